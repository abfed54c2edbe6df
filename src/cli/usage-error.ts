/** Exit code of a wrong invocation or bad input (1 is left for failures at run time). */
export const USAGE_EXIT_CODE = 2;

/** Thrown by commands for a wrong invocation or missing backend: exit code 2, message only. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

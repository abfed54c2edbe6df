/** Progress events from the pipeline; the CLI draws bars from them, the library ignores them by default. */
export interface ProgressReporter {
  start(step: string, total: number): void;
  advance(step: string, by?: number): void;
  finish(step: string): void;
  /** One line for the user (on stderr in the CLI). */
  info(message: string): void;
  /** Ends every step still shown: an interrupted run leaves steps unfinished. */
  close?(): void;
}

export const silentProgress: ProgressReporter = {
  start() {},
  advance() {},
  finish() {},
  info() {},
};

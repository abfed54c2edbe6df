/**
 * The arguments of a library call that cannot be used as given: an unknown or misspelt option, a
 * value of the wrong type, an empty question. The caller's mistake, found before anything is done
 * (the server answers 400). Apart, like ConfigError, so that callers can tell it apart cheaply.
 */
export class OptionsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OptionsError";
  }
}

/** What a caller passed, for the "got ..." of an OptionsError: null, a string quoted, else its type. */
export function describeGiven(value: unknown): string {
  if (value === null) return "null";
  return typeof value === "string" ? `the string ${JSON.stringify(value)}` : typeof value;
}

/** The cut-offs K that eval reports when none are given (apart, for the CLI's help text). */
export const DEFAULT_KS = [5, 8, 10];

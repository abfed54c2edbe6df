/** Defaults of the issue: one correction round, 10 s, 100 rows. */
export const TEXT2CYPHER_DEFAULTS = { maxCorrections: 1, timeoutMs: 10_000, maxRows: 100, rowTokens: 6000 };

/** The rows of `first`, then those of `second` not named in it. */
export function mergeByName<T extends { name: string }>(first: T[], second: T[]): T[] {
  const seen = new Set(first.map((row) => row.name));
  return [...first, ...second.filter((row) => !seen.has(row.name))];
}

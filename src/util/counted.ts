/** "1 entity", "3 entities": a count with its noun in the number it needs. */
export function counted(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}

/**
 * Entity keys are names normalised so that "Apple", "APPLE", "Ａｐｐｌｅ" and " apple " meet in one
 * node: Unicode NFKC folds full-width forms, quotes are unified, whitespace collapsed, case folded.
 */
export function entityKey(name: string): string {
  return name
    .normalize("NFKC")
    .replace(/[\u2018\u2019\u201A\u201B`´]/g, "'")
    .replace(/[\u201C\u201D\u201E\u201F«»「」『』]/g, '"')
    .replace(/^["'\s]+|["'\s]+$/g, "")
    .replace(/[\p{Cc}\p{Cf}]/gu, "")
    .replace(/\s+/g, " ")
    .trim()
    .toLowerCase();
}

/** Separator of the two entity keys in a relationship key; entity keys never contain it. */
export const PAIR_SEPARATOR = "\u001f";

/** One edge per unordered pair: the pair is stored in canonical (sorted) order. */
export function relationshipKey(a: string, b: string): string {
  const [first, second] = canonicalPair(a, b);
  return `${first}${PAIR_SEPARATOR}${second}`;
}

export function canonicalPair(a: string, b: string): [string, string] {
  return a <= b ? [a, b] : [b, a];
}

export function splitRelationshipKey(key: string): [string, string] {
  const at = key.indexOf(PAIR_SEPARATOR);
  if (at < 0) throw new Error(`Not a relationship key: ${JSON.stringify(key)}`);
  return [key.slice(0, at), key.slice(at + 1)];
}

export const DESCRIPTION_SEPARATOR = "<SEP>";

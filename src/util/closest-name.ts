/** A name folded for comparison: case, `_` and `-` do not tell option names apart. */
function squash(name: string): string {
  return name.toLowerCase().replace(/[-_]/g, "");
}

/**
 * The known name an unknown one most likely meant: the same one spelt with other case, `_` or `-`
 * (`chunk_top_k`), a synonym callers reach for (`filter` for `metadata`), or the only known name
 * one slip of the keyboard away (`workspce`, `prnue`: a letter left out, added, changed or two
 * swapped; two slips for names of seven letters or more). Undefined when nothing is that close.
 */
export function closestName(
  name: string,
  known: readonly string[],
  synonyms: Readonly<Record<string, string>> = {},
): string | undefined {
  const wanted = squash(name);
  const same = known.find((key) => squash(key) === wanted);
  if (same) return same;
  const synonym = Object.hasOwn(synonyms, wanted) ? synonyms[wanted] : undefined;
  if (synonym !== undefined && known.includes(synonym)) return synonym;
  // Short names are too easily one slip away from each other ("id", "k") to guess.
  const slips = wanted.length >= 7 ? 2 : wanted.length >= 4 ? 1 : 0;
  // The one nearest name, if no other is as near. A loop, not Math.min(...): a workspace's entity
  // names and aliases can be more than a spread's arguments fit on the stack.
  let nearest = Number.POSITIVE_INFINITY;
  let meant: string | undefined;
  for (const key of known) {
    const distance = editDistance(wanted, squash(key));
    if (distance < nearest) {
      nearest = distance;
      meant = key;
    } else if (distance === nearest) {
      meant = undefined;
    }
  }
  return nearest <= slips ? meant : undefined;
}

/** Letters inserted, deleted, replaced or swapped with a neighbour (optimal string alignment). */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return Number.POSITIVE_INFINITY;
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, at(i - 2, j - 2) + 1);
      (rows[i] as number[])[j] = best;
    }
  }
  return at(a.length, b.length);
}

/** `"filter" (did you mean "metadata"?)`, or `"colour"` when no known name is close. */
export function quotedWithGuess(
  name: string,
  known: readonly string[],
  synonyms?: Readonly<Record<string, string>>,
): string {
  const meant = closestName(name, known, synonyms);
  return meant ? `"${name}" (did you mean "${meant}"?)` : `"${name}"`;
}

export interface NamesOf {
  /** The call, as the caller knows it: "query", "index", "entities.merge". */
  what: string;
  /** What the names are: "option" (the default), "field". */
  noun?: string;
  synonyms?: Readonly<Record<string, string>>;
}

/**
 * One message for unknown names, each with its likely meaning, then the names known:
 * `Unknown index option "prnue" (did you mean "prune"?). Known options: communities, prune, signal.`
 */
export function unknownNamesMessage(
  unknown: readonly string[],
  known: readonly string[],
  of: NamesOf,
): string {
  const noun = of.noun ?? "option";
  const named = unknown.map((name) => quotedWithGuess(name, known, of.synonyms));
  return (
    `Unknown ${of.what} ${noun}${unknown.length > 1 ? "s" : ""} ${named.join(", ")}. ` +
    `Known ${noun}s: ${known.join(", ")}.`
  );
}

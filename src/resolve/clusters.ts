import type { CandidatePair } from "./candidates.js";
import { compareNames } from "./name-evidence.js";
import { analyzeName, type NameForm } from "./names.js";

export interface ClusterMerge {
  from: string;
  into: string;
  why: string;
}

/**
 * Turns accepted pairs into merges. Pairs join groups strongest first; two groups join only when
 * every name of one matches every name of the other (no conflict, no unrelated names, no unvouched
 * borderline pair), so "Fezziwig" cannot carry "Mr. Fezziwig" and "Mrs. Fezziwig" into one. A name accepted with two names that conflict with each other is
 * ambiguous and merged with neither. Each group folds into its fullest name.
 */
export function mergesFromPairs(
  accepted: CandidatePair[],
  sizes: Map<string, number>,
  borderlineJoins: (a: string, b: string) => boolean = () => false,
): ClusterMerge[] {
  const names = new Map<string, NameForm>();
  for (const p of accepted) {
    names.set(p.a, analyzeName(p.names[0]));
    names.set(p.b, analyzeName(p.names[1]));
  }
  // Every two names of a group must match by name: "American" may not tie "American Mafia" to
  // "American Football League" (which share nothing), nor "Cratchit" a wife to her husband.
  const acceptedIds = new Set(accepted.map((p) => pairId(p.a, p.b)));
  const apart = (x: string, y: string) => {
    // A pair accepted on its own evidence (or by the model) stands, whatever its display names say.
    if (acceptedIds.has(pairId(x, y))) return false;
    const relation = compareNames(names.get(x)!, names.get(y)!).relation;
    if (relation === "borderline") return !borderlineJoins(x, y);
    return relation === "conflict" || relation === "none";
  };
  const usable = withoutAmbiguous(accepted, apart);
  const group = new Map<string, string[]>([...names.keys()].map((k) => [k, [k]]));
  const why = new Map<string, string>();
  const ranked = [...usable].sort(
    (x, y) =>
      strength(y) - strength(x) ||
      y.sharedNeighbours.length - x.sharedNeighbours.length ||
      (x.a + x.b < y.a + y.b ? -1 : 1),
  );
  for (const pair of ranked) {
    const ga = group.get(pair.a)!;
    const gb = group.get(pair.b)!;
    if (ga === gb || ga.some((x) => gb.some((y) => apart(x, y)))) continue;
    const joined = [...ga, ...gb];
    for (const key of joined) group.set(key, joined);
    why.set(pair.a, pair.why);
    why.set(pair.b, pair.why);
  }
  const merges: ClusterMerge[] = [];
  for (const members of new Set(group.values())) {
    if (members.length < 2) continue;
    const into = fullestName(members, names, sizes);
    for (const from of members.sort()) {
      if (from !== into) merges.push({ from, into, why: why.get(from) ?? why.get(into) ?? "" });
    }
  }
  return merges.sort((x, y) => (x.from < y.from ? -1 : x.from > y.from ? 1 : 0));
}

function withoutAmbiguous(pairs: CandidatePair[], apart: (a: string, b: string) => boolean): CandidatePair[] {
  const partners = new Map<string, string[]>();
  for (const p of pairs) {
    partners.set(p.a, [...(partners.get(p.a) ?? []), p.b]);
    partners.set(p.b, [...(partners.get(p.b) ?? []), p.a]);
  }
  const ambiguous = new Set<string>();
  for (const [key, list] of partners) {
    const clash = list.some((x, i) => list.slice(i + 1).some((y) => apart(x, y)));
    if (clash) ambiguous.add(key);
  }
  return pairs.filter((p) => !ambiguous.has(p.a) && !ambiguous.has(p.b));
}

function strength(p: CandidatePair): number {
  return p.name.relation === "strong" ? 2 : p.name.relation === "weak" ? 1 : 0;
}

/**
 * The longest name (then with its title, then most passages): "Ebenezer Scrooge" over "Scrooge",
 * "Mr. Fezziwig" over "Fezziwig". A possessive ("Scrooge's nephew") describes rather than names,
 * so a name goes first: "Fred" over "Scrooge's nephew".
 */
function fullestName(members: string[], names: Map<string, NameForm>, sizes: Map<string, number>): string {
  return [...members].sort(
    (x, y) =>
      Number(names.get(x)!.possessive) - Number(names.get(y)!.possessive) ||
      names.get(y)!.core.join(" ").length - names.get(x)!.core.join(" ").length ||
      y.length - x.length ||
      (sizes.get(y) ?? 0) - (sizes.get(x) ?? 0) ||
      (x < y ? -1 : 1),
  )[0]!;
}

function pairId(a: string, b: string): string {
  return a < b ? `${a}\u001f${b}` : `${b}\u001f${a}`;
}

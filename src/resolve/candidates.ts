import { UNKNOWN_TYPE } from "../merge/mentions.js";
import type { EntityRecord, RelationshipRecord } from "../types.js";
import { counted } from "../util/counted.js";
import { compareNames, type NameEvidence } from "./name-evidence.js";
import { analyzeName, blockingKeys, isProperName, type NameForm } from "./names.js";
import type { SimilarPair } from "./similar-pairs.js";

/** How sure resolution is about a pair: merge it, ask (a model or a person), or leave it apart. */
export type Decision = "merge" | "confirm" | "apart";

export interface ResolutionTuning {
  /** Neighbours two names must share when one is only part of the other ("Tim", "Tiny Tim"). */
  minSharedNeighbours: number;
  /** Names sharing a word with more entities than this are not compared on that word (a common word). */
  maxBlockSize: number;
}

/** One pair of entities that might be one, with everything that speaks for and against it. */
export interface CandidatePair {
  a: string;
  b: string;
  names: [string, string];
  name: NameEvidence;
  types: [string, string];
  typesAgree: boolean;
  sharedNeighbours: string[];
  sharedChunks: number;
  /** An extracted relationship links them: the extraction saw two things. */
  related: boolean;
  /** How the pair was found: names that match, or close name-and-description vectors. */
  foundBy: "name" | "similarity";
  /** Cosine similarity of the two entity vectors, for pairs found by it. */
  similarity?: number;
  decision: Decision;
  why: string;
}

interface GraphView {
  entities: Map<string, EntityRecord>;
  /** The display name's form first, then each alias's: an entity is compared under every name it has. */
  forms: Map<string, NameForm[]>;
  neighbours: Map<string, Set<string>>;
}

/**
 * Pairs whose names say they might be one entity (blocked by shared words, acronyms and Chinese
 * surnames and given names, so not every pair is compared), each with its decision; then the pairs
 * close by their vectors (`similar`) that names did not pair, which at most go to confirmation.
 */
export function findCandidates(
  entities: EntityRecord[],
  relationships: RelationshipRecord[],
  tuning: ResolutionTuning,
  keptApart: (a: string, b: string) => boolean = () => false,
  similar: SimilarPair[] = [],
): CandidatePair[] {
  const view = graphView(entities, relationships);
  const pairs: CandidatePair[] = [];
  const seen = new Set<string>();
  for (const [a, b] of blockedPairs(view, tuning.maxBlockSize)) {
    seen.add(pairId(a, b));
    if (keptApart(a, b)) continue;
    const pair = evaluatePair(view, a, b, tuning);
    if (pair) pairs.push(pair);
  }
  for (const { a, b, score } of similar) {
    if (seen.has(pairId(a, b)) || !view.entities.has(a) || !view.entities.has(b) || keptApart(a, b)) continue;
    seen.add(pairId(a, b));
    pairs.push(evaluateSimilarPair(view, a, b, score, tuning));
  }
  return pairs.sort((x, y) => compare(x.a, y.a) || compare(x.b, y.b));
}

function graphView(entities: EntityRecord[], relationships: RelationshipRecord[]): GraphView {
  const neighbours = new Map<string, Set<string>>();
  const link = (from: string, to: string) => {
    const set = neighbours.get(from) ?? new Set<string>();
    set.add(to);
    neighbours.set(from, set);
  };
  for (const r of relationships) {
    link(r.sourceKey, r.targetKey);
    link(r.targetKey, r.sourceKey);
  }
  return {
    entities: new Map(entities.map((e) => [e.key, e])),
    forms: new Map(entities.map((e) => [e.key, [e.name, ...(e.aliases ?? [])].map(analyzeName)])),
    neighbours,
  };
}

function blockedPairs(view: GraphView, maxBlockSize: number): [string, string][] {
  const blocks = new Map<string, string[]>();
  for (const [key, forms] of view.forms) {
    for (const block of new Set(forms.flatMap(blockingKeys)))
      blocks.set(block, [...(blocks.get(block) ?? []), key]);
  }
  const seen = new Set<string>();
  const pairs: [string, string][] = [];
  for (const members of blocks.values()) {
    if (members.length < 2 || members.length > maxBlockSize) continue;
    for (let i = 0; i < members.length; i++) {
      for (let j = i + 1; j < members.length; j++) {
        const [a, b] = [members[i]!, members[j]!].sort(compare) as [string, string];
        const id = `${a}\u001f${b}`;
        if (seen.has(id)) continue;
        seen.add(id);
        pairs.push([a, b]);
      }
    }
  }
  return pairs;
}

function evaluatePair(view: GraphView, a: string, b: string, tuning: ResolutionTuning): CandidatePair | null {
  const name = compareNameSets(view.forms.get(a)!, view.forms.get(b)!);
  if (name.relation === "none") return null;
  const pair = { ...pairEvidence(view, a, b, name), foundBy: "name" as const };
  return { ...pair, ...decide(pair, tuning) };
}

/** A pair found by vector similarity: names that match decide as usual, else it may only be asked about. */
function evaluateSimilarPair(
  view: GraphView,
  a: string,
  b: string,
  score: number,
  tuning: ResolutionTuning,
): CandidatePair {
  const name = compareNameSets(view.forms.get(a)!, view.forms.get(b)!);
  const pair = { ...pairEvidence(view, a, b, name), foundBy: "similarity" as const, similarity: score };
  const similar = `similar name and description (${score.toFixed(2)})`;
  if (name.relation !== "none") {
    const decision = decide(pair, tuning);
    return { ...pair, ...decision, why: `${decision.why}; ${similar}` };
  }
  return { ...pair, ...decideSimilar(pair, similar) };
}

function pairEvidence(view: GraphView, a: string, b: string, name: NameEvidence) {
  const ea = view.entities.get(a)!;
  const eb = view.entities.get(b)!;
  const na = view.neighbours.get(a) ?? new Set<string>();
  const nb = view.neighbours.get(b) ?? new Set<string>();
  const sharedNeighbours = [...na].filter((n) => nb.has(n) && n !== a && n !== b).sort(compare);
  const chunksOfB = new Set(eb.sourceChunkIds);
  return {
    a,
    b,
    names: [ea.name, eb.name] as [string, string],
    name,
    types: [ea.type, eb.type] as [string, string],
    typesAgree: typesAgree(ea.type, eb.type),
    sharedNeighbours,
    sharedChunks: ea.sourceChunkIds.filter((id) => chunksOfB.has(id)).length,
    related: na.has(b),
  };
}

type Evidence = Omit<CandidatePair, "decision" | "why" | "foundBy" | "similarity">;

const RANK: Record<NameEvidence["relation"], number> = {
  strong: 3,
  weak: 2,
  borderline: 1,
  none: 0,
  conflict: -1,
};

/** Entities compared under all their names: any conflict rules the pair out, else the best match counts. */
function compareNameSets(a: NameForm[], b: NameForm[]): NameEvidence {
  let best: NameEvidence = { relation: "none", reason: "names share no form" };
  for (const x of a) {
    for (const y of b) {
      const evidence = compareNames(x, y);
      if (evidence.relation === "conflict") return evidence;
      if (RANK[evidence.relation] > RANK[best.relation]) best = evidence;
    }
  }
  return best;
}

/**
 * Conservative on purpose: a wrong merge hides a person inside another, a missed one only leaves
 * a duplicate (listed by `kgrag entities list --duplicates`).
 */
export function decide(p: Evidence, tuning: ResolutionTuning): { decision: Decision; why: string } {
  const context = p.sharedNeighbours.length > 0 || p.sharedChunks > 0;
  const shared = sharedInGraph(p);
  if (p.name.relation === "conflict") return { decision: "apart", why: p.name.reason };
  if (!p.typesAgree) return { decision: "apart", why: "types differ" };
  // "back pain" and "pain", "census ," and "census": noun phrases, not names, are never merged.
  if (!p.names.every(isProperName)) return { decision: "apart", why: "not proper names" };
  if (p.name.relation === "strong") {
    if (p.related)
      return { decision: "confirm", why: `${p.name.reason}; an extracted relationship links them` };
    if (context) return { decision: "merge", why: `${p.name.reason}; ${shared}` };
    return { decision: "confirm", why: `${p.name.reason}; nothing shared in the graph` };
  }
  if (p.name.relation === "weak") {
    // Part of a person's name is an alias ("Scrooge"); part of a place's or a firm's is often
    // another one ("Baltimore" and "Baltimore County"): only a model or a person decides those.
    const people = p.types.every((type) => type === PERSON_TYPE);
    if (people && !p.related && p.sharedNeighbours.length >= tuning.minSharedNeighbours) {
      return { decision: "merge", why: `${p.name.reason}; ${shared}` };
    }
    const against = p.related ? "; an extracted relationship links them" : "";
    if (context) return { decision: "confirm", why: `${p.name.reason}; ${shared}${against}` };
    return { decision: "apart", why: `${p.name.reason}; nothing shared in the graph` };
  }
  if (context) return { decision: "confirm", why: `${p.name.reason}; ${shared}` };
  return { decision: "apart", why: `${p.name.reason}; nothing shared in the graph` };
}

/**
 * Close vectors with names that share nothing ("FRED" and "SCROOGE'S NEPHEW"): never merged on
 * similarity alone. With agreeing types, proper names, something shared in the graph and no
 * extracted relationship between them, a model (or a person) is asked; otherwise they stay apart.
 */
function decideSimilar(p: Evidence, similar: string): { decision: Decision; why: string } {
  const shared = sharedInGraph(p);
  if (!p.typesAgree) return { decision: "apart", why: `${similar}; types differ` };
  if (!p.names.every(isProperName)) return { decision: "apart", why: `${similar}; not proper names` };
  if (p.related) return { decision: "apart", why: `${similar}; an extracted relationship links them` };
  if (p.sharedNeighbours.length === 0 && p.sharedChunks === 0) {
    return { decision: "apart", why: `${similar}; nothing shared in the graph` };
  }
  return { decision: "confirm", why: `${similar}; ${shared}` };
}

const PERSON_TYPE = "person";

/** Types agree when equal or when one is only the placeholder of a relationship endpoint. */
function typesAgree(a: string, b: string): boolean {
  return a === b || a === UNKNOWN_TYPE || b === UNKNOWN_TYPE;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Whether the graph lets a borderline pair ("Mr. Scrooge", "Ebenezer Scrooge") end up in one group
 * through a third name that was merged with both: a shared neighbour, and no relationship between
 * them ("Mrs. Cratchit" and "Bob Cratchit" are linked as wife and husband). This never merges a
 * pair by itself; it only keeps such a pair from blocking merges accepted on their own evidence.
 */
export function borderlineVouching(pairs: CandidatePair[]): (a: string, b: string) => boolean {
  const vouched = new Set(
    pairs
      .filter((p) => p.typesAgree && !p.related && p.sharedNeighbours.length > 0)
      .map((p) => pairId(p.a, p.b)),
  );
  return (a, b) => vouched.has(pairId(a, b));
}

function pairId(a: string, b: string): string {
  return a < b ? `${a}\u001f${b}` : `${b}\u001f${a}`;
}

/** "1 shared neighbour, 2 shared passages": what a pair shares, for the pair's reason. */
function sharedInGraph(p: Evidence): string {
  return `${counted(p.sharedNeighbours.length, "shared neighbour")}, ${counted(p.sharedChunks, "shared passage")}`;
}

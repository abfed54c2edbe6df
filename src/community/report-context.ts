import type { TiktokenEncoding } from "js-tiktoken";
import type { CommunityRecord } from "../types.js";
import { DEFAULT_ENCODING } from "../util/tokens.js";
import {
  type CandidateEntity,
  type CandidateRelationship,
  type ChildReport,
  type ContextEntity,
  ContextPacker,
  type ContextRelationship,
  TokenCounter,
} from "./context-packer.js";
import type { GraphIndex } from "./graph-index.js";

export type { ChildReport, ContextEntity, ContextRelationship } from "./context-packer.js";

export interface ReportContext {
  communityId: string;
  level: number;
  /** Every member, most connected first (the context itself may hold fewer). */
  members: { key: string; name: string; degree: number }[];
  entities: ContextEntity[];
  relationships: ContextRelationship[];
  /** Children's reports used in place of their raw detail. */
  childReports: ChildReport[];
  internalRelationshipCount: number;
  /** Internal relationships neither in the context nor covered by a child report (no room left). */
  omittedRelationships: number;
  text: string;
}

export interface ReportContextInput {
  community: Pick<CommunityRecord, "id" | "level" | "entityKeys">;
  index: GraphIndex;
  /** Finished reports of the community's children; used only when the raw detail is over budget. */
  childReports: ChildReport[];
  budget: number;
  encoding?: TiktokenEncoding;
  /**
   * A counter shared by every community of one run over the same `index` and budget (see
   * reportTokenCounter): each entity's and relationship's line is then counted once per run.
   */
  tokens?: TokenCounter;
}

/** The token counter buildReportContext uses for this budget and encoding; share it across a run. */
export function reportTokenCounter(
  budget: number,
  encoding: TiktokenEncoding = DEFAULT_ENCODING,
): TokenCounter {
  return new TokenCounter(encoding, Math.max(64, Math.floor(budget / 8)));
}

/**
 * The context a report is written from: all internal relationships, most connected first, with
 * their endpoints' descriptions. Over budget, children's reports replace their raw detail (largest
 * child first) until the rest fits; whatever room is left still takes raw relationships.
 */
export function buildReportContext(input: ReportContextInput): ReportContext {
  const tokens = input.tokens ?? reportTokenCounter(input.budget, input.encoding);
  const relationships = candidateRelationships(input);
  const members = rankedMembers(input);
  const pack = (substitutes: ChildReport[]) =>
    packContext(input, relationships, members, substitutes, tokens);
  const raw = pack([]);
  if (raw.omittedRelationships === 0 || input.childReports.length === 0) return raw;
  const children = [...input.childReports].sort(
    (a, b) => b.entityKeys.length - a.entityKeys.length || (a.id < b.id ? -1 : 1),
  );
  const withLargest = (k: number) => pack(children.slice(0, k));
  const all = withLargest(children.length);
  if (all.omittedRelationships > 0) return all;
  // The fewest children whose reports make the rest fit. A report is shorter than the detail it
  // replaces, so "fits" grows with k and a binary search needs log2(children) packs, not one each.
  let [low, high, best] = [1, children.length, all];
  while (low < high) {
    const mid = Math.floor((low + high) / 2);
    const attempt = withLargest(mid);
    if (attempt.omittedRelationships === 0) [high, best] = [mid, attempt];
    else low = mid + 1;
  }
  return best;
}

function packContext(
  input: ReportContextInput,
  relationships: CandidateRelationship[],
  members: ReportContext["members"],
  substitutes: ChildReport[],
  tokens: TokenCounter,
): ReportContext {
  const packer = new ContextPacker(input.budget, tokens);
  const childOf = new Map<string, string>();
  for (const child of substitutes) {
    if (!packer.addChildReport(child)) continue;
    for (const key of child.entityKeys) childOf.set(key, child.id);
  }
  const entityOf = (key: string) => candidateEntity(input.index, key);
  let omitted = 0;
  for (const rel of relationships) {
    const child = childOf.get(rel.sourceKey);
    if (child !== undefined && child === childOf.get(rel.targetKey)) continue;
    if (!packer.addRelationship(rel, entityOf)) omitted++;
  }
  // Members without any relationship in the context (e.g. a singleton) are still described.
  for (const member of members) {
    if (!childOf.has(member.key) && !packer.hasEntity(member.key)) packer.addEntity(entityOf(member.key));
  }
  return {
    communityId: input.community.id,
    level: input.community.level,
    members,
    entities: packer.entities,
    relationships: packer.relationships,
    childReports: packer.childReports,
    internalRelationshipCount: relationships.length,
    omittedRelationships: omitted,
    text: packer.render(),
  };
}

/** Internal relationships by combined endpoint degree, then weight, then key (a total order). */
function candidateRelationships(input: ReportContextInput): CandidateRelationship[] {
  const { index } = input;
  return index
    .internalRelationships(input.community.entityKeys)
    .map((rel) => ({
      key: rel.key,
      sourceKey: rel.sourceKey,
      targetKey: rel.targetKey,
      description: rel.description,
      weight: rel.weight,
      combinedDegree: index.degree(rel.sourceKey) + index.degree(rel.targetKey),
    }))
    .sort((a, b) => b.combinedDegree - a.combinedDegree || b.weight - a.weight || (a.key < b.key ? -1 : 1));
}

function rankedMembers(input: ReportContextInput): ReportContext["members"] {
  return input.community.entityKeys
    .map((key) => ({ key, name: input.index.entity(key)?.name ?? key, degree: input.index.degree(key) }))
    .sort((a, b) => b.degree - a.degree || (a.key < b.key ? -1 : 1));
}

function candidateEntity(index: GraphIndex, key: string): CandidateEntity {
  const entity = index.entity(key);
  return {
    key,
    name: entity?.name ?? key,
    type: entity?.type ?? "unknown",
    description: entity?.description ?? "",
    degree: index.degree(key),
  };
}

/** The token budget of every report context of a run, and the tokenizer that counts it. */
export interface ReportBudget {
  tokens: number;
  encoding: TiktokenEncoding;
}

export function reportBudgetOf(config: {
  community: { reportContextTokens: number };
  chunking: { encoding: TiktokenEncoding };
}): ReportBudget {
  return { tokens: config.community.reportContextTokens, encoding: config.chunking.encoding };
}

/**
 * Builds the report context of any of `communities` (reading the children's finished reports as
 * they are at the call), with one token counter: every entity's and relationship's line is counted
 * once, not per community.
 */
export function reportContextBuilder(
  budget: ReportBudget,
  index: GraphIndex,
  communities: readonly CommunityRecord[],
): (community: CommunityRecord) => ReportContext {
  const tokens = reportTokenCounter(budget.tokens, budget.encoding);
  const byId = new Map(communities.map((c) => [c.id, c]));
  return (community) =>
    buildReportContext({
      community,
      index,
      childReports: finishedChildReports(community, byId),
      budget: budget.tokens,
      encoding: budget.encoding,
      tokens,
    });
}

function finishedChildReports(community: CommunityRecord, byId: Map<string, CommunityRecord>): ChildReport[] {
  return community.childIds.flatMap((id) => {
    const child = byId.get(id);
    return child?.report ? [{ id: child.id, entityKeys: child.entityKeys, report: child.report }] : [];
  });
}

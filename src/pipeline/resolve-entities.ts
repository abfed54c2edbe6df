import { setImmediate as nextTurn } from "node:timers/promises";
import pLimit from "p-limit";
import type { KgragConfig } from "../config.js";
import { addRules, loadResolution } from "../resolve/apply-rules.js";
import { borderlineVouching, type CandidatePair, findCandidates } from "../resolve/candidates.js";
import { mergesFromPairs } from "../resolve/clusters.js";
import { confirmPair } from "../resolve/confirm.js";
import type { EntityRule } from "../resolve/rules.js";
import { findSimilarPairs, similarityTuning } from "../resolve/similar-pairs.js";
import type { KgragServices } from "../services.js";
import type { EntityRecord, RelationshipRecord } from "../types.js";
import { entityEmbeddingText, syncNamespace } from "./embed-graph.js";
import { stopPoint } from "./stop-point.js";

/** Who index-time merges are recorded as, in the rules and the history. */
export const RESOLUTION_AUTHOR = "resolution";

export interface ResolveResult {
  merged: number;
  confirmed: number;
  asked: number;
}

/**
 * Index-time entity resolution: finds pairs of entities whose names and neighbourhoods say they
 * are one, asks the chat model about the pairs that stay open (when one is configured), and
 * records the merges as rules, so every later re-fold keeps them.
 */
export async function resolveEntities(services: KgragServices, signal?: AbortSignal): Promise<ResolveResult> {
  const result: ResolveResult = { merged: 0, confirmed: 0, asked: 0 };
  if (!resolutionRuns(services)) return result;
  // A merge gives the merged entity the neighbours of both, which can make the next pair's case.
  for (let round = 0; round < services.config.resolution.rounds; round++) {
    const step = await resolveRound(services, signal);
    result.merged += step.merged;
    result.confirmed += step.confirmed;
    result.asked += step.asked;
    if (step.merged === 0) break;
  }
  return result;
}

/** Whether index runs resolve entities: `entityResolution` on, or `auto` with a chat model. */
export function resolutionRuns(services: Pick<KgragServices, "config" | "chat">): boolean {
  return resolutionRunsWith(services.config, Boolean(services.chat));
}

/** resolutionRuns from the config alone, for a run that would (`withChat`) or would not have a chat model. */
export function resolutionRunsWith(config: KgragConfig, withChat: boolean): boolean {
  const setting = config.entityResolution;
  return setting === "on" || (setting === "auto" && withChat);
}

/**
 * Whether resolution embeds the entities before the embed stage does (for its similar pairs):
 * from scratch, their vectors are then written by the resolve stage instead.
 */
export function resolutionEmbedsEntities(config: KgragConfig, withChat: boolean): boolean {
  return resolutionRunsWith(config, withChat) && config.resolution.similarity.enabled;
}

async function resolveRound(services: KgragServices, signal?: AbortSignal): Promise<ResolveResult> {
  const { store, config } = services;
  const result: ResolveResult = { merged: 0, confirmed: 0, asked: 0 };
  const resolution = await loadResolution(store);
  const entities = await store.listEntities();
  const relationships = await store.listRelationships();
  const similar = await similarPairs(services, entities, relationships, signal);
  const pairs = findCandidates(
    entities,
    relationships,
    config.resolution,
    (a, b) => resolution.keptApart(a, b),
    similar,
  );
  const accepted = pairs.filter((p) => p.decision === "merge");
  const confirmed = await confirmOpenPairs(services, pairs, entities, signal);
  result.asked = confirmed.asked;
  result.confirmed = confirmed.same.length;
  const sizes = new Map(entities.map((e) => [e.key, e.sourceChunkIds.length]));
  const merges = mergesFromPairs([...accepted, ...confirmed.same], sizes, borderlineVouching(pairs));
  if (merges.length === 0) return result;
  await stopPoint(signal);
  const at = new Date().toISOString();
  const rules: EntityRule[] = merges.map((m) => ({
    kind: "merge",
    from: m.from,
    into: m.into,
    by: RESOLUTION_AUTHOR,
    at,
    note: m.why,
  }));
  await addRules(
    services,
    rules,
    merges.flatMap((m) => [m.from, m.into]),
    "entity resolution",
  );
  result.merged = merges.length;
  return result;
}

/**
 * Pairs close by their name-and-description vectors. The entities' vectors are brought up to date
 * first (the index run embeds after resolution): only what changed is embedded, and what this
 * writes is what the run's embedding step would have written.
 */
async function similarPairs(
  services: KgragServices,
  entities: EntityRecord[],
  relationships: RelationshipRecord[],
  signal?: AbortSignal,
) {
  const { similarity, maxBlockSize } = services.config.resolution;
  if (!similarity.enabled) return [];
  await stopPoint(signal);
  const inputs = entities.map((e) => ({ id: e.key, text: () => entityEmbeddingText(e) }));
  await syncNamespace(services, "entities", inputs, undefined, signal);
  // The embedding reply often comes back with chat replies whose slots hand on to waiting
  // requests: those go out first, then the scoring below holds the process.
  await nextTurn();
  const tuning = similarityTuning(similarity, services.embedder.kind);
  return findSimilarPairs(services.store, entities, relationships, { ...tuning, maxBlockSize });
}

async function confirmOpenPairs(
  services: KgragServices,
  pairs: CandidatePair[],
  entities: Awaited<ReturnType<KgragServices["store"]["listEntities"]>>,
  signal?: AbortSignal,
): Promise<{ same: CandidatePair[]; asked: number }> {
  const { chat, config } = services;
  const open = pairs.filter((p) => p.decision === "confirm");
  if (!chat || !config.resolution.confirmWithModel || open.length === 0) return { same: [], asked: 0 };
  const byKey = new Map(entities.map((e) => [e.key, e]));
  const limit = pLimit(config.llm?.concurrency ?? 1);
  const verdicts = await Promise.all(
    open.map((pair) =>
      limit(async () => {
        try {
          return { pair, verdict: await confirmPair(chat, pair, byKey, signal) };
        } catch (error) {
          // A failed question merges nothing: the pair stays apart and is listed as a duplicate.
          if (signal?.aborted) throw error;
          return { pair, verdict: { same: false, reason: "the model could not be asked" } };
        }
      }),
    ),
  );
  const same = verdicts
    .filter((v) => v.verdict.same)
    .map((v) => ({
      ...v.pair,
      decision: "merge" as const,
      why: `${v.pair.why}; model: ${v.verdict.reason}`,
    }));
  return { same, asked: open.length };
}

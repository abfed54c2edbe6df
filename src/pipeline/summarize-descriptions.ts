import { splitRelationshipKey } from "../merge/keys.js";
import type { DescriptionSummarizer } from "../merge/summarizer.js";
import type { GraphStore } from "../storage/graph-store.js";
import type { EntityRecord, GraphChanges, RelationshipRecord } from "../types.js";
import type { ProgressReporter } from "../util/progress.js";
import { stopRequested } from "./stop-point.js";

/** The part of KgragServices this step uses. */
export interface SummarizeServices {
  store: Pick<
    GraphStore,
    | "entitiesNeedingSummary"
    | "relationshipsNeedingSummary"
    | "getEntities"
    | "getRelationships"
    | "applyGraphChanges"
  >;
  progress: ProgressReporter;
}

export interface SummarizeResult {
  entities: number;
  relationships: number;
  /** Items whose summary failed; they keep their joined fragments and are retried next run. */
  failed: { kind: "entity" | "relationship"; key: string; error: string }[];
}

type Pending =
  | { kind: "entity"; record: EntityRecord; name: string }
  | { kind: "relationship"; record: RelationshipRecord; name: string };

/**
 * Replaces the joined fragments of every entity and relationship past the summary thresholds with
 * their summary. Each summary is applied on its own as soon as it is ready, so a crash or a failed
 * call loses nothing already done. Summaries run concurrently; the chat model limits its calls.
 */
export async function summarizeDescriptions(
  services: SummarizeServices,
  summarizer: DescriptionSummarizer,
  signal?: AbortSignal,
): Promise<SummarizeResult> {
  const { store, progress } = services;
  const pending = await pendingSummaries(store);
  const result: SummarizeResult = { entities: 0, relationships: 0, failed: [] };
  if (pending.length === 0) return result;
  progress.start("summarize", pending.length);
  await Promise.all(
    pending.map(async (item) => {
      // Once stopped, the rest waits for the next run (the caller stops after this step).
      if (await stopRequested(signal)) return;
      try {
        const summary = await summarizer.summarize(
          { kind: item.kind, name: item.name },
          item.record.fragments,
        );
        if (await applySummary(store, item, summary)) {
          if (item.kind === "entity") result.entities += 1;
          else result.relationships += 1;
        }
      } catch (error) {
        if (signal?.aborted) return;
        const message = error instanceof Error ? error.message : String(error);
        result.failed.push({ kind: item.kind, key: item.record.key, error: message });
      }
      progress.advance("summarize");
    }),
  );
  progress.finish("summarize");
  return result;
}

async function pendingSummaries(store: SummarizeServices["store"]): Promise<Pending[]> {
  const entities = await store.entitiesNeedingSummary();
  const relationships = await store.relationshipsNeedingSummary();
  const endpointKeys = [...new Set(relationships.flatMap((r) => [r.sourceKey, r.targetKey]))];
  const names = new Map((await store.getEntities(endpointKeys)).map((e) => [e.key, e.name]));
  const nameOf = (key: string) => names.get(key) ?? key;
  return [
    ...entities.map((record): Pending => ({ kind: "entity", record, name: record.name })),
    ...relationships.map((record): Pending => {
      const [source, target] = splitRelationshipKey(record.key);
      return { kind: "relationship", record, name: `${nameOf(source)} — ${nameOf(target)}` };
    }),
  ];
}

/**
 * Writes the summary unless the record changed while it was being written: a summary is only
 * valid for the fragments it was made from.
 */
async function applySummary(
  store: SummarizeServices["store"],
  item: Pending,
  summary: string,
): Promise<boolean> {
  const isCurrent = <T extends { fragmentsHash: string }>(record: T | undefined): record is T =>
    record !== undefined && record.fragmentsHash === item.record.fragmentsHash;
  if (item.kind === "entity") {
    const [current] = await store.getEntities([item.record.key]);
    if (!isCurrent(current)) return false;
    const upsert = { ...current, description: summary, needsSummary: false };
    await store.applyGraphChanges(summaryChanges({ upsertEntities: [upsert] }, item.kind, current, summary));
  } else {
    const [current] = await store.getRelationships([item.record.key]);
    if (!isCurrent(current)) return false;
    const upsert = { ...current, description: summary, needsSummary: false };
    await store.applyGraphChanges(
      summaryChanges({ upsertRelationships: [upsert] }, item.kind, current, summary),
    );
  }
  return true;
}

function summaryChanges(
  upserts: Pick<Partial<GraphChanges>, "upsertEntities" | "upsertRelationships">,
  kind: Pending["kind"],
  current: { key: string; description: string },
  summary: string,
): GraphChanges {
  return {
    upsertEntities: upserts.upsertEntities ?? [],
    upsertRelationships: upserts.upsertRelationships ?? [],
    deleteEntityKeys: [],
    deleteRelationshipKeys: [],
    history: [
      {
        kind,
        key: current.key,
        action: "update",
        oldDescription: current.description,
        newDescription: summary,
        cause: "summarize",
        at: new Date().toISOString(),
      },
    ],
  };
}

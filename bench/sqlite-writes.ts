/**
 * Write throughput of the embedded store on an indexing-shaped load: 6,000 one-chunk documents,
 * each merged with 8 entity and 10 relationship mentions (entities shared across documents, so
 * most merges update existing records), then chunk and entity vectors.
 * Run: npx tsx bench/sqlite-writes.ts
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { entityKey, relationshipKey } from "../src/merge/keys.js";
import { openSqliteStore } from "../src/storage/sqlite/sqlite-store.js";
import type { EntityRecord, GraphChanges, RelationshipRecord } from "../src/types.js";

const DOCUMENTS = 6_000;
const ENTITIES_PER_CHUNK = 8;
const DISTINCT_ENTITIES = 4_000;
const DIM = 256;
const AT = new Date().toISOString();

function entityName(i: number): string {
  return `Entity ${i % DISTINCT_ENTITIES}`;
}

function mergeOf(chunkId: string, names: string[]) {
  const keys = names.map(entityKey);
  const pairs = keys
    .slice(1)
    .flatMap((b, i) => [[keys[0], b] as const, ...(i > 0 ? [[keys[i], b] as const] : [])]);
  const entities: EntityRecord[] = names.map((name) => ({
    key: entityKey(name),
    name,
    type: "concept",
    description: `${name} appears in ${chunkId}.`,
    fragments: [`${name} appears in ${chunkId}.`],
    sourceChunkIds: [chunkId],
    fragmentsHash: chunkId,
    needsSummary: false,
  }));
  const relationships: RelationshipRecord[] = pairs.slice(0, 10).map(([a, b]) => {
    const [sourceKey, targetKey] = [a as string, b as string].sort() as [string, string];
    return {
      key: relationshipKey(sourceKey, targetKey),
      sourceKey,
      targetKey,
      description: `${sourceKey} with ${targetKey} in ${chunkId}.`,
      fragments: [],
      keywords: ["co-occurs"],
      weight: 1,
      sourceChunkIds: [chunkId],
      fragmentsHash: chunkId,
      needsSummary: false,
    };
  });
  const changes: GraphChanges = {
    upsertEntities: entities,
    upsertRelationships: relationships,
    deleteEntityKeys: [],
    deleteRelationshipKeys: [],
    history: entities.map((e) => ({
      kind: "entity" as const,
      key: e.key,
      action: "update" as const,
      oldDescription: null,
      newDescription: e.description,
      cause: `merge chunk ${chunkId}`,
      at: AT,
    })),
  };
  const mentions = {
    entities: entities.map((e) => ({
      entityKey: e.key,
      chunkId,
      name: e.name,
      type: e.type,
      description: e.description,
    })),
    relationships: relationships.map((r) => ({
      relationshipKey: r.key,
      sourceKey: r.sourceKey,
      targetKey: r.targetKey,
      chunkId,
      description: r.description,
      keywords: r.keywords,
      strength: 5,
    })),
  };
  return { mentions, changes };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "kgrag-bench-writes-"));
  const store = await openSqliteStore(dir);
  try {
    const started = performance.now();
    const cpuStarted = process.cpuUsage();
    for (let d = 0; d < DOCUMENTS; d++) {
      const docId = `doc-${d}`;
      const text = `Passage ${d} about ${entityName(d)} and ${entityName(d * 7)} in 深圳 and 北京.`;
      await store.upsertDocument({
        id: docId,
        title: docId,
        path: null,
        contentHash: docId,
        status: "processing",
        error: null,
        metadata: { n: d },
        chunkCount: 1,
        createdAt: AT,
        updatedAt: AT,
      });
      const chunkId = `${docId}:0`;
      await store.replaceDocumentChunks(docId, [
        { id: chunkId, docId, index: 0, text, tokens: 20, start: 0, end: text.length },
      ]);
      const names = Array.from({ length: ENTITIES_PER_CHUNK }, (_, i) => entityName(d * 13 + i * 101));
      const { mentions, changes } = mergeOf(chunkId, names);
      await store.commitChunkMerge(chunkId, mentions, changes);
      await store.setDocumentStatus(docId, "processed", null);
    }
    const mergedMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuStarted);

    const vectorsStarted = performance.now();
    const vector = Array.from({ length: DIM }, (_, i) => Math.sin(i));
    const chunkIds = [...(await store.chunkIdsInScope({}))];
    await store.upsertVectors(
      "chunks",
      chunkIds.map((id) => ({ id, vector, textHash: id })),
    );
    const entityKeys = (await store.listEntities()).map((e) => e.key);
    await store.upsertVectors(
      "entities",
      entityKeys.map((id) => ({ id, vector, textHash: id })),
    );
    const vectorsMs = performance.now() - vectorsStarted;

    const counts = await store.counts();
    console.log(`sqlite writes: ${DOCUMENTS} documents, ${ENTITIES_PER_CHUNK} entities per chunk`);
    const cpuSeconds = ((cpu.user + cpu.system) / 1e6).toFixed(2);
    console.log(`  documents + chunks + merges: ${(mergedMs / 1000).toFixed(2)} s (cpu ${cpuSeconds} s)`);
    console.log(
      `  ${chunkIds.length + entityKeys.length} vectors (${DIM}-d): ${(vectorsMs / 1000).toFixed(2)} s`,
    );
    console.log(`  totals: ${JSON.stringify(counts)}`);
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();

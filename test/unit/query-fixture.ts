import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigSchema, type KgragConfigInput, SqliteReadCacheSchema } from "../../src/config.js";
import { HashingEmbedder } from "../../src/embedding/hashing-embedder.js";
import type { ChatModel, ChatRequest, ChatResponse } from "../../src/llm/chat-model.js";
import { UsageTracker } from "../../src/llm/usage.js";
import { entityKey, relationshipKey } from "../../src/merge/keys.js";
import { embedGraph } from "../../src/pipeline/embed-graph.js";
import type { KgragServices } from "../../src/services.js";
import { openSqliteStore } from "../../src/storage/sqlite/sqlite-store.js";
import type { ChunkRecord, Metadata } from "../../src/types.js";
import { silentProgress } from "../../src/util/progress.js";
import { changes, makeEntity, makeRelationship, seedDocument } from "../support/storage-fixtures.js";

/** One hand-written chunk and the graph an extractor would have found in it. */
export interface ChunkSpec {
  doc: string;
  text: string;
  entities: string[];
  pairs?: [string, string][];
  metadata?: Metadata;
}

export interface Fixture {
  services: KgragServices;
  /** Chunk records in spec order. */
  chunks: ChunkRecord[];
  chunkOf(text: string): ChunkRecord;
  close(): Promise<void>;
}

/**
 * A real SQLite workspace holding exactly the given graph, embedded with the hashing embedder, so
 * query tests control every entity, edge and passage.
 */
export async function buildFixture(
  specs: ChunkSpec[],
  options: { chat?: ChatModel | null; config?: KgragConfigInput } = {},
): Promise<Fixture> {
  const dir = await mkdtemp(join(tmpdir(), "kgrag-query-"));
  const readCache = options.config?.sqliteReadCache;
  const store = await openSqliteStore(
    dir,
    readCache ? { readCache: SqliteReadCacheSchema.parse(readCache) } : {},
  );
  const chunks: ChunkRecord[] = [];
  for (const doc of [...new Set(specs.map((s) => s.doc))]) {
    const own = specs.filter((s) => s.doc === doc);
    const records = await seedDocument(
      store,
      doc,
      own.map((s) => s.text),
      own[0]?.metadata ?? {},
    );
    chunks.push(...records);
    // Indexed documents: a pending one would add a "not fully indexed" warning to every query.
    await store.setDocumentStatus(doc, "processed", null);
  }
  const chunkOf = (text: string) => {
    const found = chunks.find((c) => c.text === text);
    if (!found) throw new Error(`no chunk ${text}`);
    return found;
  };

  const entityChunks = new Map<string, { name: string; chunks: string[] }>();
  const pairChunks = new Map<string, { pair: [string, string]; chunks: string[]; texts: string[] }>();
  for (const spec of specs) {
    const chunkId = chunkOf(spec.text).id;
    for (const name of spec.entities) {
      const e = entityChunks.get(entityKey(name)) ?? { name, chunks: [] };
      e.chunks.push(chunkId);
      entityChunks.set(entityKey(name), e);
    }
    for (const pair of spec.pairs ?? []) {
      const key = relationshipKey(entityKey(pair[0]), entityKey(pair[1]));
      const r = pairChunks.get(key) ?? { pair, chunks: [], texts: [] };
      r.chunks.push(chunkId);
      r.texts.push(spec.text);
      pairChunks.set(key, r);
    }
    await store.commitChunkMerge(chunkId, { entities: [], relationships: [] }, changes());
  }
  await store.applyGraphChanges(
    changes({
      upsertEntities: [...entityChunks.values()].map((e) =>
        // Descriptions name only the entity, so similarity to the question comes from names alone.
        makeEntity(e.name, { sourceChunkIds: e.chunks, description: `${e.name}.` }),
      ),
      upsertRelationships: [...pairChunks.values()].map((r) =>
        // A relationship is described by the sentences that state it, as an extractor would.
        makeRelationship(r.pair[0], r.pair[1], {
          sourceChunkIds: r.chunks,
          weight: 5 * r.chunks.length,
          description: r.texts.join(" "),
        }),
      ),
    }),
  );
  const services: KgragServices = {
    config: ConfigSchema.parse(options.config ?? {}),
    store,
    embedder: new HashingEmbedder(256),
    chat: options.chat ?? null,
    usage: new UsageTracker(),
    progress: silentProgress,
  };
  await embedGraph(services);
  return {
    services,
    chunks,
    chunkOf,
    close: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A chat model double answering per stage, recording every request. */
export class StageChat implements ChatModel {
  readonly model = "stage-double";
  readonly requests: ChatRequest[] = [];

  constructor(
    private readonly replies: Partial<Record<string, (request: ChatRequest) => string | Promise<string>>>,
  ) {}

  async chat(request: ChatRequest): Promise<ChatResponse> {
    this.requests.push(request);
    const reply = this.replies[request.stage];
    if (!reply) throw new Error(`StageChat: no reply scripted for stage ${request.stage}`);
    const text = await reply(request);
    request.onToken?.(text);
    return { text, usage: { promptTokens: 10, completionTokens: 5 }, cached: false };
  }

  calls(stage: string): number {
    return this.requests.filter((r) => r.stage === stage).length;
  }
}

/** A multi-hop corpus: the question names the film; the answer is in the director's own passage. */
export const FILM = "Big Stone Gap is a 2014 American comedy film directed by Adriana Trigiani.";
export const DIRECTOR = "Adriana Trigiani is an Italian-American novelist who lives in Greenwich Village.";
export const TOWN = "Big Stone Gap is a town in Wise County, Virginia, known for coal mining.";
export const DISTRACTORS = [
  "Lyon is a city in France on the Rhône river with a famous food culture.",
  "The Danube flows through Vienna and Budapest before reaching the Black Sea.",
  "Mount Fuji is the highest mountain in Japan and an active volcano.",
  "Greenwich Mean Time is the mean solar time at the Royal Observatory in London.",
];

export const MULTI_HOP: ChunkSpec[] = [
  {
    doc: "film",
    text: FILM,
    entities: ["Big Stone Gap", "Adriana Trigiani"],
    pairs: [["Big Stone Gap", "Adriana Trigiani"]],
    metadata: { kind: "film" },
  },
  {
    doc: "person",
    text: DIRECTOR,
    entities: ["Adriana Trigiani", "Greenwich Village"],
    pairs: [["Adriana Trigiani", "Greenwich Village"]],
    metadata: { kind: "person" },
  },
  {
    doc: "town",
    text: TOWN,
    entities: ["Big Stone Gap", "Wise County"],
    pairs: [["Big Stone Gap", "Wise County"]],
    metadata: { kind: "place" },
  },
  { doc: "lyon", text: DISTRACTORS[0] as string, entities: ["Lyon", "France"], pairs: [["Lyon", "France"]] },
  {
    doc: "danube",
    text: DISTRACTORS[1] as string,
    entities: ["Danube", "Vienna"],
    pairs: [["Danube", "Vienna"]],
  },
  {
    doc: "fuji",
    text: DISTRACTORS[2] as string,
    entities: ["Mount Fuji", "Japan"],
    pairs: [["Mount Fuji", "Japan"]],
  },
  {
    doc: "gmt",
    text: DISTRACTORS[3] as string,
    entities: ["Greenwich Mean Time", "London"],
    pairs: [["Greenwich Mean Time", "London"]],
  },
];

/** Keywords a model would give for the multi-hop question. */
export const MULTI_HOP_KEYWORDS = JSON.stringify({
  high_level_keywords: ["film director", "residence"],
  low_level_keywords: ["Big Stone Gap"],
});

import pLimit, { type LimitFunction } from "p-limit";
import type { Embedder } from "../embedding/embedder.js";
import { splitRelationshipKey } from "../merge/keys.js";
import type { KgragServices } from "../services.js";
import type { GraphEntity, GraphRelationship, GraphView } from "../storage/graph-store.js";
import type { VectorItem, VectorNamespace } from "../types.js";
import { hashText } from "../util/hash.js";
import type { ProgressReporter } from "../util/progress.js";
import { shareTurn } from "../util/turns.js";
import { loadGraphView } from "./graph-view.js";
import { stopPoint } from "./stop-point.js";
import { vectorWriteSize } from "./write-batches.js";

/**
 * One item to embed. Its text is built when asked (for its hash, then again when its batch is
 * embedded): a namespace's texts built up front were all held until its last batch, about 100 MB
 * on 277,000 relationships.
 */
export interface EmbeddingInput {
  id: string;
  text: () => string;
}

export function entityEmbeddingText(entity: Pick<GraphEntity, "name" | "aliases" | "description">): string {
  // Aliases are embedded with the name, so a question naming the entity any way finds it.
  const aliases = entity.aliases?.length ? ` (${entity.aliases.join(", ")})` : "";
  return `${entity.name}${aliases}\n${entity.description}`;
}

export function relationshipEmbeddingText(
  rel: Pick<GraphRelationship, "key" | "keywords" | "description">,
  names: Map<string, string>,
): string {
  const [a, b] = splitRelationshipKey(rel.key);
  return `${rel.keywords.join(", ")}\n${names.get(a) ?? a}\n${names.get(b) ?? b}\n${rel.description}`;
}

/** The namespaces embedGraph fills. */
export const GRAPH_VECTOR_NAMESPACES: readonly GraphVectorNamespace[] = [
  "chunks",
  "entities",
  "relationships",
];
export type GraphVectorNamespace = Extract<VectorNamespace, "chunks" | "entities" | "relationships">;

/**
 * Embeds whatever changed since the last run: chunks by their text, entities by name and
 * description, relationships by keywords, both names and description (what makes global
 * retrieval possible). Vectors of items that no longer exist are removed. `graph` is the graph as
 * the run already read it; `namespaces` limits the run to some of the three.
 */
export async function embedGraph(
  services: KgragServices,
  signal?: AbortSignal,
  graph?: GraphView,
  namespaces: readonly GraphVectorNamespace[] = GRAPH_VECTOR_NAMESPACES,
): Promise<{ embedded: number }> {
  const { store } = services;
  const chunks = namespaces.includes("chunks") ? await store.listChunks() : [];
  const { entities, relationships } = graph ?? (await loadGraphView(store));
  const names = new Map(entities.map((e) => [e.key, e.name]));
  const inputsOf = (ns: GraphVectorNamespace): EmbeddingInput[] => {
    if (ns === "chunks") return chunks.map((c) => ({ id: c.id, text: () => c.text }));
    if (ns === "entities") return entities.map((e) => ({ id: e.key, text: () => entityEmbeddingText(e) }));
    return relationships.map((r) => ({ id: r.key, text: () => relationshipEmbeddingText(r, names) }));
  };

  // The namespaces are independent: embedding them together keeps every request slot busy
  // instead of draining one namespace's last half-empty round before the next starts. Their writes
  // take turns: on Neo4j a relationship vector MERGEs its endpoint entities, and concurrent
  // transactions on the same nodes would deadlock and retry.
  const writes = pLimit(1);
  const counts = await Promise.all(
    GRAPH_VECTOR_NAMESPACES.filter((ns) => namespaces.includes(ns)).map((ns) =>
      syncNamespace(services, ns, inputsOf(ns), writes, signal),
    ),
  );
  const embedded = counts.reduce((a, b) => a + b, 0);
  return { embedded };
}

/**
 * Embeds the chunks that have no vector yet (and drops vectors of chunks that are gone). Chunk
 * vectors need nothing but the chunk texts, so an index run starts them while the model extracts.
 */
export async function embedChunks(services: KgragServices, signal?: AbortSignal): Promise<number> {
  const chunks = await services.store.listChunks();
  return syncNamespace(
    services,
    "chunks",
    chunks.map((c) => ({ id: c.id, text: () => c.text })),
    pLimit(1),
    signal,
  );
}

/** Embeds the inputs whose text hash changed and deletes vectors whose item is gone. */
export async function syncNamespace(
  services: KgragServices,
  ns: VectorNamespace,
  inputs: EmbeddingInput[],
  writes: LimitFunction = pLimit(1),
  signal?: AbortSignal,
): Promise<number> {
  const { store, embedder, progress } = services;
  const stored = await store.vectorHashes(ns);
  const live = new Set(inputs.map((i) => i.id));
  const stale = [...stored.keys()].filter((id) => !live.has(id));
  if (stale.length) await store.deleteVectors(ns, stale);
  const todo = inputs.flatMap((input) => {
    const textHash = hashText(input.text());
    return stored.get(input.id) === textHash ? [] : [{ input, textHash }];
  });
  if (todo.length === 0) return 0;
  const write: VectorWrite = (namespace, items) => writes(() => store.upsertVectors(namespace, items));
  await embedInBatches(
    embedder,
    ns,
    todo,
    new VectorWrites(ns, write, vectorWriteSize(services)),
    progress,
    signal,
  );
  return todo.length;
}

/**
 * Embedded vectors held until a write's worth is ready: on Neo4j a commit per embedding step
 * (each also updating the vector index) cost more than the embedding. One write is in flight
 * while the next steps embed: waiting for each commit before embedding on left the server idle
 * while kgrag embedded and kgrag idle while the server indexed.
 */
export class VectorWrites {
  private pending: VectorItem[] = [];
  private inFlight: Promise<void> = Promise.resolve();

  constructor(
    private readonly ns: VectorNamespace,
    private readonly write: VectorWrite,
    private readonly size: number,
  ) {}

  async add(items: VectorItem[]): Promise<void> {
    this.pending.push(...items);
    while (this.pending.length >= this.size) await this.start(this.pending.splice(0, this.size));
  }

  /** Writes what is held and waits for every write; the first failure is thrown. */
  async flush(): Promise<void> {
    while (this.pending.length > 0) await this.start(this.pending.splice(0, this.size));
    await this.inFlight;
  }

  /** Starts a write once the previous one is done (a failed one throws here, and stops the step). */
  private async start(items: VectorItem[]): Promise<void> {
    await this.inFlight;
    const write = this.write(this.ns, items);
    // Awaited by the next start or flush; until then a failure must not count as unhandled.
    write.catch(() => {});
    this.inFlight = write;
  }
}

/** Vectors embedded per step (the embedder splits a step into its own batches). */
export const WRITE_BATCH = 256;

type VectorWrite = KgragServices["store"]["upsertVectors"];

async function embedInBatches(
  embedder: Embedder,
  ns: VectorNamespace,
  todo: { input: EmbeddingInput; textHash: string }[],
  writes: VectorWrites,
  progress: ProgressReporter,
  signal: AbortSignal | undefined,
): Promise<void> {
  const step = `embed ${ns}`;
  progress.start(step, todo.length);
  try {
    for (let i = 0; i < todo.length; i += WRITE_BATCH) {
      await stopPoint(signal);
      await shareTurn();
      const batch = todo.slice(i, i + WRITE_BATCH);
      const vectors = await embedder.embed(batch.map((b) => b.input.text()));
      await writes.add(
        batch.map((b, j) => ({
          id: b.input.id,
          textHash: b.textHash,
          vector: vectorAt(vectors, j, embedder),
        })),
      );
      progress.advance(step, batch.length);
    }
  } catch (error) {
    // Stopped or failed: the vectors done are kept, the next run embeds only the rest. The first
    // failure is the one reported.
    await writes.flush().catch(() => {});
    throw error;
  }
  await writes.flush();
  progress.finish(step);
}

function vectorAt(vectors: number[][], index: number, embedder: Embedder): number[] {
  const vector = vectors[index];
  if (!vector) throw new Error(`Embedding model ${embedder.model} returned fewer vectors than texts`);
  if (vector.length !== embedder.dimension) {
    throw new Error(
      `Embedding model ${embedder.model} returned a vector of dimension ${vector.length}, expected ${embedder.dimension}`,
    );
  }
  return vector;
}

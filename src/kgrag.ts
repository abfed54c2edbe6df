import { resolve } from "node:path";
import { z } from "zod";
import type { KgragConfigInput } from "./config.js";
import { ConfigError } from "./config-error.js";
import { isPlainObject } from "./config-file/layers.js";
import { parseSourceDocuments } from "./ingest/source-input.js";
import {
  fromLangChainDocuments,
  isLangChainDocument,
  type LangChainDocumentLike,
} from "./integrations/langchain/documents.js";
import { withAbortSignal } from "./llm/chat-model.js";
import { describeGiven, OptionsError } from "./options-error.js";
import { removeDocuments } from "./pipeline/delete-documents.js";
import {
  type MetadataEditOptions,
  type MetadataPatch,
  updateDocumentMetadata,
} from "./pipeline/document-metadata.js";
import { type IndexComponents, refreshCommunities, settleGraph } from "./pipeline/index-workflow.js";
import type { QueryOptions, QueryResult } from "./query/query-engine.js";
import type { Reranker } from "./rerank/reranker.js";
import { createEntityCuration, type EntityCuration } from "./resolve/curation.js";
import type { KgragServices } from "./services.js";
import type { GraphStore } from "./storage/graph-store.js";
import type { DocumentRecord, SourceDocumentInput } from "./types.js";
import { oneAtATime } from "./util/one-at-a-time.js";
import type { ProgressReporter } from "./util/progress.js";
import { parseOptions } from "./util/strict-options.js";
import {
  BackupError,
  type BackupOptions,
  BackupOptionsSchema,
  type BackupSummary,
  backupWorkspace,
  NEO4J_BACKUP_ADVICE,
} from "./workspace/backup.js";
import { createComponents } from "./workspace/components.js";
import { recordWorkspaceModels } from "./workspace/embedding-guard.js";
import {
  GIVEN_CHAT_SHAPE,
  GIVEN_EMBEDDER_SHAPE,
  type GivenChatModel,
  type GivenEmbedder,
  isGivenChatModel,
  isGivenEmbedder,
} from "./workspace/given-models.js";
import {
  type IndexOptions,
  IndexOptionsSchema,
  type IndexSummary,
  indexPaths,
  indexSources,
} from "./workspace/indexing.js";
import { withWorkspaceLock } from "./workspace/lock.js";
import { openServices } from "./workspace/open-services.js";
import { indexRunReport, type StatusReport, storeContents } from "./workspace/status.js";

export type { StatusReport } from "./workspace/status.js";

export interface CreateKgragOptions {
  /** Settings; anything not given comes from KGRAG_* environment variables, then defaults. */
  config?: KgragConfigInput;
  /** Environment to read settings from (default process.env). */
  env?: Record<string, string | undefined>;
  /**
   * Bring your own models: kgrag's ChatModel / Embedder, or LangChain chat models and embeddings
   * objects as they are. They win over the configured endpoints; `chat: null` runs offline.
   */
  chat?: GivenChatModel | null;
  embedder?: GivenEmbedder;
  /** A reranker of your own; else the configured `rerank` endpoint, if any. */
  reranker?: Reranker;
  store?: GraphStore;
  progress?: ProgressReporter;
}

/** The kgrag library entry point: one object per workspace. The CLI is a thin layer over it. */
export interface Kgrag {
  readonly services: KgragServices;
  readonly components: IndexComponents;
  /** "llm" when a chat model is configured, otherwise the offline built-ins. */
  readonly mode: "llm" | "offline";
  /**
   * Files and folders, or documents (validated first: a bad one refuses the whole call), or the
   * output of any LangChain document loader.
   */
  index(
    inputs: string[] | SourceDocumentInput[] | LangChainDocumentLike[],
    options?: IndexOptions,
  ): Promise<IndexSummary>;
  status(): Promise<StatusReport>;
  query(question: string, options?: Partial<QueryOptions>): Promise<QueryResult>;
  deleteDocuments(docIds: string[]): Promise<{ deleted: string[]; missing: string[] }>;
  /**
   * Sets metadata keys of one document (a null value removes the key) in place, for the scope
   * filters: nothing is extracted or embedded again. Returns the updated record. An unknown id
   * throws UnknownDocumentError, a bad patch an OptionsError; either way nothing changes. The next
   * index of the document's file gives it the file's metadata again (keep lasting metadata there).
   * The edit is recorded in the workspace history (kind "document": keys, old and new values, `by`).
   */
  updateDocumentMetadata(
    docId: string,
    patch: MetadataPatch,
    options?: MetadataEditOptions,
  ): Promise<DocumentRecord>;
  /** Re-clusters (warm-started from the stored hierarchy unless `fresh`) and writes missing reports. */
  rebuildCommunities(options?: { fresh?: boolean }): Promise<void>;
  /** Hand curation: create, merge, rename, edit, split, delete, add relationships (kept as rules). */
  readonly entities: EntityCuration;
  /**
   * Writes the workspace into one backup file, safe while another process indexes it (SQLite
   * only: a Neo4j workspace is refused with what to use instead). `restoreWorkspace` reads it back.
   */
  backup(outFile: string, options?: BackupOptions): Promise<BackupSummary>;
  close(): Promise<void>;
}

/**
 * The options createKgrag knows, for their names: the values are checked where they are used (the
 * config by loadConfig). Strict, since a misspelt `confg` would otherwise open ./kgrag-data.
 */
const CreateKgragOptionsSchema = z.strictObject({
  config: z.custom<KgragConfigInput>(isPlainObject, "must be an object of settings").optional(),
  // Not z.record: zod refuses process.env, whose prototype is not Object's.
  env: z.custom<Record<string, string | undefined>>(isObject, "must be an object of variables").optional(),
  chat: z
    .custom<GivenChatModel | null>((value) => value === null || isGivenChatModel(value), {
      error: (issue) => `must be ${GIVEN_CHAT_SHAPE}, or null for none; got ${describeGiven(issue.input)}`,
    })
    .optional(),
  embedder: z
    .custom<GivenEmbedder>(isGivenEmbedder, {
      error: (issue) => `must be ${GIVEN_EMBEDDER_SHAPE}; got ${describeGiven(issue.input)}`,
    })
    .optional(),
  reranker: z.custom<Reranker>().optional(),
  store: z.custom<GraphStore>().optional(),
  progress: z.custom<ProgressReporter>().optional(),
}) satisfies z.ZodType<CreateKgragOptions>;

function isObject(value: unknown): boolean {
  return typeof value === "object" && value !== null;
}

export async function createKgrag(options: CreateKgragOptions = {}): Promise<Kgrag> {
  parseOptions(
    CreateKgragOptionsSchema,
    options,
    { what: "createKgrag" },
    (message) => new ConfigError(message),
  );
  const services = await openServices(options);
  try {
    const components = await createComponents(services);
    return buildFacade(resolve(services.config.workspace), services, components);
  } catch (error) {
    await services.store.close();
    throw error;
  }
}

function buildFacade(workspace: string, services: KgragServices, components: IndexComponents): Kgrag {
  const { store } = services;
  // Opening reads only; the writer records the models and brings the vector index files up to date.
  const asWriter =
    <T>(work: () => Promise<T>) =>
    async () => {
      await recordWorkspaceModels(store, services.embedder, components.extractor.kind);
      const result = await work();
      // A failed or stopped run leaves the files behind: readers score the newer rows exactly.
      await store.refreshIndexes?.();
      return result;
    };
  const locked = <T>(work: () => Promise<T>) => {
    if (store.kind === "sqlite") return withWorkspaceLock(workspace, asWriter(work));
    return store.withWriterLease ? store.withWriterLease(asWriter(work)) : asWriter(work)();
  };
  // An instance's own writes queue behind each other: the workspace lock (or Neo4j lease) is for
  // other instances and processes, and would refuse this one's second call as if it were another's.
  const inTurn = oneAtATime();
  const writing = <T>(work: () => Promise<T>) => inTurn(() => locked(work));
  const facade: Kgrag = {
    services,
    components,
    mode: services.chat ? "llm" : "offline",
    index: async (inputs, given) => {
      mustBeList(
        inputs,
        "index takes a list of file and folder paths, of documents or of LangChain documents",
      );
      const indexOptions = parseOptions(IndexOptionsSchema, given, { what: "index" });
      const run = indexOptions.signal
        ? await stoppable(services, indexOptions.signal)
        : { services, components };
      if (isPathList(inputs)) {
        return writing(() => indexPaths(run.services, run.components, inputs, indexOptions));
      }
      // Validated before taking the lock: a bad document refuses the call with nothing written.
      const parsed = parseSourceDocuments(isLangChainList(inputs) ? fromLangChainDocuments(inputs) : inputs);
      // The call's metadata is each document's default; its own wins.
      const shared = indexOptions.metadata;
      const sources = shared ? parsed.map((s) => ({ ...s, metadata: { ...shared, ...s.metadata } })) : parsed;
      return writing(() => indexSources(run.services, run.components, sources, [], indexOptions));
    },
    status: async () => {
      const contents = await storeContents(store);
      return {
        workspace,
        storage: services.config.storage,
        extractor: components.extractor.kind,
        embedding: {
          model: services.embedder.model,
          dimension: services.embedder.dimension,
          kind: services.embedder.kind,
        },
        ...contents,
        indexRun: indexRunReport(services.config.storage, workspace, contents.documents),
      };
    },
    // Loaded on the first query: an index run reaches its first model request without it.
    query: async (question, queryOptions = {}) =>
      (await import("./query/query-engine.js")).runQuery(services, question, queryOptions),
    deleteDocuments: async (docIds) => {
      mustBeList(docIds, "deleteDocuments takes a list of document ids");
      return writing(async () => {
        const known = new Set((await store.listDocuments()).map((d) => d.id));
        const deleted = docIds.filter((id) => known.has(id));
        const missing = docIds.filter((id) => !known.has(id));
        // Runs even when no id is known: it also finishes a delete that an earlier crash interrupted.
        await removeDocuments(services, deleted, `delete document ${deleted.join(", ")}`);
        await settleGraph(services, components, deleted.length > 0);
        return { deleted, missing };
      });
    },
    updateDocumentMetadata: (docId, patch, options) =>
      writing(() => updateDocumentMetadata(services, docId, patch, options)),
    rebuildCommunities: (options = {}) =>
      writing(() => refreshCommunities(services, components, true, { fresh: options.fresh === true })),
    entities: createEntityCuration(services, components, writing),
    backup: async (outFile, given) => {
      const options = parseOptions(BackupOptionsSchema, given, { what: "backup" });
      if (typeof outFile !== "string" || outFile === "") {
        throw new OptionsError(`backup takes the path of the file to write; got ${describeGiven(outFile)}.`);
      }
      if (store.kind !== "sqlite") throw new BackupError(NEO4J_BACKUP_ADVICE);
      return backupWorkspace(workspace, outFile, options, services.configFile ?? null);
    },
    // After the writes under way: closing the store under a run would fail it halfway.
    close: () => inTurn(() => store.close()),
  };
  return closable(facade, workspace);
}

/**
 * A call on an instance after its close(): the store is gone, and the store's own error ("The
 * database connection is not open") would not say why.
 */
export class KgragClosedError extends Error {
  constructor(workspace: string) {
    super(
      `This kgrag instance (workspace ${workspace}) is closed: its close() was called. ` +
        "Open the workspace again with createKgrag to go on using it.",
    );
    this.name = "KgragClosedError";
  }
}

/** The facade whose every method, its curation's too, refuses to run once it is closed; close() twice closes once. */
function closable(facade: Kgrag, workspace: string): Kgrag {
  let closed = false;
  const refuseWhenClosed = () => {
    if (closed) throw new KgragClosedError(workspace);
  };
  return {
    ...whileOpen(facade, refuseWhenClosed),
    entities: whileOpen(facade.entities, refuseWhenClosed),
    close: async () => {
      if (closed) return;
      closed = true;
      await facade.close();
    },
  };
}

/** `target` with each of its (async) methods calling `check` first; its other fields as they are. */
function whileOpen<T extends object>(target: T, check: () => void): T {
  const methods = Object.entries(target as Record<string, unknown>).map(([name, value]) => {
    if (typeof value !== "function") return [name, value];
    const method = value as (...args: unknown[]) => Promise<unknown>;
    return [
      name,
      async (...args: unknown[]) => {
        check();
        return method(...args);
      },
    ];
  });
  return Object.fromEntries(methods) as T;
}

/** Arguments of the wrong shape fail with what was meant, not deep inside (`inputs.every is not a function`). */
function mustBeList(value: unknown, expected: string): void {
  if (Array.isArray(value)) return;
  throw new OptionsError(`${expected}; got ${describeGiven(value)}.`);
}

/** Services and components of one run whose every model call the signal cancels. */
async function stoppable(services: KgragServices, signal: AbortSignal) {
  const scoped = { ...services, chat: services.chat && withAbortSignal(services.chat, signal) };
  return { services: scoped, components: await createComponents(scoped) };
}

function isPathList(inputs: unknown[]): inputs is string[] {
  return Array.isArray(inputs) && inputs.every((i) => typeof i === "string");
}

function isLangChainList(inputs: unknown[]): inputs is LangChainDocumentLike[] {
  return inputs.length > 0 && inputs.every(isLangChainDocument);
}

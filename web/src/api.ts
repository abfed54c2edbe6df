import { z } from "zod";
import { ApiError } from "./api-error";
import type { ReportCitation } from "./components/report-citations";
import { mergeByName } from "./merge-by-name";
import { readServerSentEvents } from "./sse";

export { ApiError };

/** Typed client for the kgrag HTTP API (see API-CONTRACT in the server docs). Schemas are loose: extra fields pass. */

const ErrorBodySchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

export const WorkspaceSchema = z.looseObject({
  id: z.string(),
  path: z.string().optional(),
  storage: z.string().optional(),
  neo4j: z.boolean().optional(),
});
export type Workspace = z.infer<typeof WorkspaceSchema>;

/** Whether the workspace is stored in Neo4j (the Cypher console and Text2Cypher chat need it). */
export function usesNeo4j(workspace: Workspace | undefined): boolean {
  return Boolean(workspace && (workspace.neo4j || workspace.storage === "neo4j"));
}

export const HealthSchema = z.looseObject({
  ok: z.boolean(),
  version: z.string().optional(),
  models: z.looseObject({ chat: z.string(), embedding: z.string() }).optional(),
});

export const JobSchema = z.looseObject({
  id: z.string(),
  kind: z.string(),
  status: z.enum(["queued", "running", "done", "failed", "interrupted"]),
  stage: z.string().default(""),
  done: z.number().default(0),
  total: z.number().default(0),
  /** The whole job's progress, 0 to 1; `done`/`total` count the current step only. */
  progress: z.number().optional(),
  message: z.string().optional(),
  errors: z
    .array(
      z.looseObject({ documentId: z.string().optional(), file: z.string().optional(), message: z.string() }),
    )
    .default([]),
  documents: z.array(z.string()).default([]),
  /** An upload's file names. */
  files: z.array(z.string()).optional(),
  /** A raw-text index job's text titles. */
  titles: z.record(z.string(), z.string()).optional(),
  createdAt: z.string().optional(),
  finishedAt: z.string().optional(),
});
export type Job = z.infer<typeof JobSchema>;

const MetadataSchema = z.record(z.string(), z.unknown());

/** What an upload takes, and the names uploaded before with their documents. */
export const UploadRulesSchema = z.looseObject({
  extensions: z.array(z.string()),
  maxFileBytes: z.number(),
  maxFiles: z.number(),
  files: z
    .array(
      z.looseObject({
        name: z.string(),
        documents: z.array(z.looseObject({ id: z.string(), title: z.string() })).default([]),
      }),
    )
    .default([]),
});

export const DocumentRowSchema = z.looseObject({
  id: z.string(),
  title: z.string().nullish(),
  status: z.string(),
  chunks: z.number().default(0),
  error: z.string().nullish(),
  metadata: MetadataSchema.default({}),
  updatedAt: z.string().nullish(),
});
export type DocumentRow = z.infer<typeof DocumentRowSchema>;

export const QUERY_MODES = ["naive", "local", "global", "hybrid", "mix"] as const;
export type QueryMode = (typeof QUERY_MODES)[number];

const ContextEntitySchema = z.looseObject({
  name: z.string(),
  type: z.string(),
  description: z.string(),
  score: z.number().optional(),
});
const ContextRelationshipSchema = z.looseObject({
  source: z.string(),
  target: z.string(),
  description: z.string(),
  keywords: z.array(z.string()).default([]),
  weight: z.number().optional(),
  score: z.number().optional(),
});
const ContextChunkSchema = z.looseObject({ id: z.string(), docId: z.string(), text: z.string() });
const ContextCommunitySchema = z.looseObject({
  id: z.string(),
  level: z.number().optional(),
  title: z.string(),
  summary: z.string(),
});
export const ReferenceSchema = z.looseObject({
  n: z.number(),
  docId: z.string(),
  title: z.string(),
  chunkId: z.string(),
  start: z.number().optional(),
  end: z.number().optional(),
  /** A PDF passage's page, and the page it ends on when it runs onto the next. */
  page: z.number().optional(),
  pageEnd: z.number().optional(),
});
export type Reference = z.infer<typeof ReferenceSchema>;

export const QueryContextSchema = z.looseObject({
  entities: z.array(ContextEntitySchema).default([]),
  relationships: z.array(ContextRelationshipSchema).default([]),
  chunks: z.array(ContextChunkSchema).default([]),
  communities: z.array(ContextCommunitySchema).default([]),
});
export type QueryContext = z.infer<typeof QueryContextSchema>;

export const QueryResultSchema = z.looseObject({
  mode: z.string(),
  answer: z.string().default(""),
  keywords: z.object({ high: z.array(z.string()), low: z.array(z.string()) }).optional(),
  context: QueryContextSchema,
  references: z.array(ReferenceSchema).default([]),
  usage: z
    .looseObject({ llmCalls: z.number(), promptTokens: z.number(), completionTokens: z.number() })
    .optional(),
  timings: z.looseObject({ retrievalMs: z.number(), totalMs: z.number() }).optional(),
  /** What went wrong without failing the query (a reranker that did not answer, a budget too small). */
  warnings: z.array(z.string()).optional(),
});
export type QueryResult = z.infer<typeof QueryResultSchema>;

/** The `context` event: the result so far, without the answer. */
const StreamContextSchema = z.object({
  context: z.looseObject({
    context: QueryContextSchema.optional(),
    entities: z.array(ContextEntitySchema).optional(),
    relationships: z.array(ContextRelationshipSchema).optional(),
    chunks: z.array(ContextChunkSchema).optional(),
    communities: z.array(ContextCommunitySchema).optional(),
    references: z.array(ReferenceSchema).optional(),
  }),
});

export interface QueryRequest {
  question: string;
  mode: QueryMode;
  contextOnly?: boolean;
  topK?: number;
  chunkTopK?: number;
  totalTokens?: number;
  responseType?: string;
  docIds?: string[];
  metadata?: Record<string, string>;
}

export const EntityRowSchema = z.looseObject({
  name: z.string(),
  type: z.string(),
  degree: z.number().default(0),
  description: z.string().default(""),
  community: z.union([z.string(), z.number()]).nullish(),
});
export type EntityRow = z.infer<typeof EntityRowSchema>;

const MentionSchema = z.object({ start: z.number(), end: z.number() });
export const SourcePassageSchema = z.looseObject({
  chunkId: z.string(),
  documentId: z.string(),
  title: z.string().nullish(),
  text: z.string(),
  mentions: z.array(MentionSchema).optional(),
});
export type SourcePassage = z.infer<typeof SourcePassageSchema>;

const RelationshipSchema = z.looseObject({
  source: z.string(),
  target: z.string(),
  description: z.string().default(""),
  weight: z.number().default(1),
  keywords: z.union([z.string(), z.array(z.string())]).nullish(),
});
export type Relationship = z.infer<typeof RelationshipSchema>;

export const EntityDetailSchema = z.object({
  entity: EntityRowSchema.extend({ aliases: z.array(z.string()).optional() }),
  relationships: z.array(RelationshipSchema).default([]),
  sources: z.array(SourcePassageSchema).default([]),
});
export type EntityDetail = z.infer<typeof EntityDetailSchema>;

/** An entity as the curation routes return it. */
const CuratedEntitySchema = z.looseObject({
  key: z.string(),
  name: z.string(),
  type: z.string(),
  aliases: z.array(z.string()).default([]),
});
export type CuratedEntity = z.infer<typeof CuratedEntitySchema>;
const CuratedEnvelopeSchema = z.object({ entity: CuratedEntitySchema });

export const NeighbourhoodSchema = z.object({
  nodes: z.array(
    z.looseObject({
      id: z.string(),
      name: z.string(),
      type: z.string(),
      degree: z.number().default(0),
      community: z.union([z.string(), z.number()]).nullish(),
    }),
  ),
  edges: z.array(
    z.looseObject({
      id: z.string(),
      source: z.string(),
      target: z.string(),
      description: z.string().default(""),
      weight: z.number().default(1),
    }),
  ),
  truncated: z.boolean().default(false),
});
export type Neighbourhood = z.infer<typeof NeighbourhoodSchema>;

export const CommunityItemSchema = z.looseObject({
  id: z.string(),
  level: z.number(),
  parent: z.string().nullish(),
  title: z.string(),
  size: z.number().default(0),
  rating: z.number().nullish(),
});
export type CommunityItem = z.infer<typeof CommunityItemSchema>;

const ReportCitationSchema: z.ZodType<ReportCitation> = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("entity"), name: z.string() }),
  z.object({ kind: z.literal("relationship"), source: z.string(), target: z.string() }),
  z.object({ kind: z.literal("community"), id: z.string(), title: z.string() }),
]);

export const CommunityDetailSchema = z.object({
  community: CommunityItemSchema,
  report: z
    .looseObject({
      title: z.string(),
      summary: z.string().default(""),
      findings: z.array(z.unknown()).optional(),
      text: z.string().default(""),
    })
    .nullish(),
  members: z.array(z.string()).default([]),
  /** What each citation id of the report ("E:3", "R:7", "C:c1-ab12") stands for. */
  citations: z.record(z.string(), ReportCitationSchema).default({}),
  /** The id asked for, when it was retired by a re-clustering and this community took its members. */
  movedFrom: z.string().optional(),
});
export type CommunityDetail = z.infer<typeof CommunityDetailSchema>;

export const PassageSchema = z.looseObject({
  chunkId: z.string(),
  documentId: z.string(),
  title: z.string().nullish(),
  text: z.string(),
});
export type Passage = z.infer<typeof PassageSchema>;

const RowSchema = z.record(z.string(), z.unknown());
export const CypherResultSchema = z.object({
  columns: z.array(z.string()),
  rows: z.array(RowSchema),
  truncated: z.boolean().default(false),
  elapsedMs: z.number().optional(),
});
export type CypherResult = z.infer<typeof CypherResultSchema>;

export const ChatReplySchema = z.looseObject({
  route: z.string(),
  cypher: z.string().nullish(),
  validation: z.looseObject({ ok: z.boolean(), messages: z.array(z.string()) }).nullish(),
  rows: z.array(RowSchema).nullish(),
  answer: z.string(),
  /** Generations made: more than 1 when a correction round ran. */
  attempts: z.number().nullish(),
  /** Each query the validator rejected or Neo4j failed, and why. */
  failedAttempts: z
    .array(z.looseObject({ cypher: z.string(), stage: z.string(), errors: z.array(z.string()) }))
    .nullish(),
});
export type ChatReply = z.infer<typeof ChatReplySchema>;

const API_KEY_STORAGE = "kgrag.apiKey";

export function savedApiKey(): string {
  return localStorage.getItem(API_KEY_STORAGE) ?? "";
}

export function saveApiKey(key: string): void {
  if (key) localStorage.setItem(API_KEY_STORAGE, key);
  else localStorage.removeItem(API_KEY_STORAGE);
}

/** The server's default cap on a neighbourhood's relationships (its graph.maxEdges). */
const SERVER_MAX_EDGES = 10_000;
/** Relationships asked for per node a neighbourhood may hold. */
const EDGES_PER_NODE = 5;

/**
 * How many relationships to ask for with a neighbourhood of up to `maxNodes` entities: in
 * proportion to them. The server keeps the strongest first, so a fixed 1,000 left 137 of a depth-2
 * neighbourhood's 721 nodes without any edge drawn (and the graph called capped).
 */
export function edgeBudget(maxNodes: number): number {
  return Math.min(SERVER_MAX_EDGES, maxNodes * EDGES_PER_NODE);
}

/** Workspace of every request; set by the workspace picker. */
let currentWorkspace = "";
export function useWorkspace(id: string): void {
  currentWorkspace = id;
}

function requestHeaders(extra: Record<string, string> = {}): Record<string, string> {
  const headers: Record<string, string> = { ...extra };
  const key = savedApiKey();
  if (key) headers.Authorization = `Bearer ${key}`;
  if (currentWorkspace) headers["X-Kgrag-Workspace"] = currentWorkspace;
  return headers;
}

async function failure(response: Response): Promise<ApiError> {
  const body: unknown = await response.json().catch(() => undefined);
  const parsed = ErrorBodySchema.safeParse(body);
  if (parsed.success) return new ApiError(response.status, parsed.data.error.code, parsed.data.error.message);
  return new ApiError(response.status, "http_error", `${response.status} ${response.statusText}`);
}

async function send(path: string, init: RequestInit = {}, json?: unknown): Promise<Response> {
  const headers = requestHeaders(json === undefined ? {} : { "Content-Type": "application/json" });
  const response = await fetch(path, {
    ...init,
    headers: { ...headers, ...(init.headers as Record<string, string> | undefined) },
    body: json === undefined ? init.body : JSON.stringify(json),
  });
  if (!response.ok) throw await failure(response);
  return response;
}

/** `signal` aborts the request: a view whose answer is no longer wanted (a newer one is asked) ends it. */
async function getJson<T>(schema: z.ZodType<T>, path: string, signal?: AbortSignal): Promise<T> {
  const response = await send(path, { signal });
  return schema.parse(await response.json());
}

async function postJson<T>(schema: z.ZodType<T>, path: string, body: unknown): Promise<T> {
  const response = await send(path, { method: "POST" }, body);
  return schema.parse(await response.json());
}

function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== "") search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

const JobEnvelopeSchema = z.object({ job: JobSchema });

export const api = {
  health: () => getJson(HealthSchema, "/health"),
  workspaces: () =>
    getJson(z.object({ workspaces: z.array(WorkspaceSchema) }), "/api/v1/workspaces").then(
      (r) => r.workspaces,
    ),

  uploads: () => getJson(UploadRulesSchema, "/api/v1/uploads"),
  uploadFiles(files: File[]): Promise<Job> {
    const form = new FormData();
    for (const file of files) form.append("files", file, file.name);
    return send("/api/v1/documents", { method: "POST", body: form })
      .then((r) => r.json())
      .then((body) => JobEnvelopeSchema.parse(body).job);
  },
  documents: (
    params: { offset?: number; limit?: number; status?: string; q?: string },
    signal?: AbortSignal,
  ) =>
    getJson(
      z.object({ items: z.array(DocumentRowSchema), total: z.number() }),
      `/api/v1/documents${query(params)}`,
      signal,
    ),
  deleteDocument: (id: string) =>
    send(`/api/v1/documents/${encodeURIComponent(id)}`, { method: "DELETE" })
      .then((r) => r.json())
      .then((body) => JobEnvelopeSchema.parse(body).job),
  /** Sets (a value) and removes (null) metadata keys of a document; resolves with its row as it is now. */
  updateDocumentMetadata: (id: string, metadata: Record<string, string | number | boolean | null>) =>
    send(`/api/v1/documents/${encodeURIComponent(id)}`, { method: "PATCH" }, { metadata })
      .then((r) => r.json())
      .then((body) => z.object({ document: DocumentRowSchema }).parse(body).document),
  reindexDocument: (id: string) =>
    postJson(JobEnvelopeSchema, `/api/v1/documents/${encodeURIComponent(id)}/reindex`, {}).then((r) => r.job),
  jobs: (signal?: AbortSignal) =>
    getJson(z.object({ items: z.array(JobSchema) }), "/api/v1/jobs", signal).then((r) => r.items),
  job: (id: string) => getJson(JobSchema, `/api/v1/jobs/${encodeURIComponent(id)}`),

  /** Follows a job's SSE stream until its `end` event; resolves with the final job. */
  async followJob(id: string, onProgress: (job: Job) => void, signal?: AbortSignal): Promise<Job> {
    const response = await send(`/api/v1/jobs/${encodeURIComponent(id)}/events`, { signal });
    let last: Job | undefined;
    for await (const event of readServerSentEvents(response)) {
      const job = JobSchema.parse(JSON.parse(event.data));
      last = job;
      onProgress(job);
      if (event.event === "end") break;
    }
    return last ?? api.job(id);
  },

  query: (request: QueryRequest) => postJson(QueryResultSchema, "/api/v1/query", request),

  /** Streams an answer: the context first, then tokens, then the full result. */
  async queryStream(
    request: QueryRequest,
    handlers: {
      onContext(context: QueryContext, references: Reference[]): void;
      onToken(text: string): void;
    },
    signal?: AbortSignal,
  ): Promise<QueryResult> {
    const response = await send("/api/v1/query/stream", { method: "POST", signal }, request);
    for await (const event of readServerSentEvents(response)) {
      const data: unknown = JSON.parse(event.data);
      if (event.event === "context") {
        const { context } = StreamContextSchema.parse(data);
        const inner = context.context ?? QueryContextSchema.parse(context);
        handlers.onContext(inner, context.references ?? []);
      } else if (event.event === "token") {
        handlers.onToken(z.object({ text: z.string() }).parse(data).text);
      } else if (event.event === "done") {
        return QueryResultSchema.parse(data);
      } else if (event.event === "error") {
        const { error } = ErrorBodySchema.parse(data);
        throw new ApiError(500, error.code, error.message);
      }
    }
    throw new ApiError(500, "stream_ended", "The answer stream ended before its result.");
  },

  /** Names starting with the text first (what a user typing a name wants), then full-text matches. */
  searchEntities: async (q: string, limit = 20) => {
    const rows = (params: Record<string, string | number>) =>
      getJson(z.object({ items: z.array(EntityRowSchema) }), `/api/v1/graph/entities${query(params)}`).then(
        (r) => r.items,
      );
    const [byPrefix, byText] = await Promise.all([rows({ prefix: q, limit }), rows({ q, limit })]);
    return mergeByName(byPrefix, byText).slice(0, limit);
  },
  popularEntities: (limit = 50) =>
    getJson(
      z.object({ items: z.array(EntityRowSchema) }),
      `/api/v1/graph/entities/popular${query({ limit })}`,
    ).then((r) => r.items),
  entity: (name: string, signal?: AbortSignal) =>
    getJson(EntityDetailSchema, `/api/v1/graph/entity${query({ name })}`, signal),
  renameEntity: (entity: string, name: string) =>
    postJson(CuratedEnvelopeSchema, "/api/v1/entities/rename", { entity, name }).then((r) => r.entity),
  /** Merges `others` into `into`, which keeps its name. */
  mergeEntities: (into: string, others: string[]) =>
    postJson(CuratedEnvelopeSchema, "/api/v1/entities/merge", { names: [into, ...others], into }).then(
      (r) => r.entity,
    ),
  neighbourhood: (
    name: string,
    depth = 1,
    maxNodes = 200,
    maxEdges = edgeBudget(maxNodes),
    signal?: AbortSignal,
  ) =>
    getJson(
      NeighbourhoodSchema,
      `/api/v1/graph/neighbourhood${query({ name, depth, maxNodes, maxEdges })}`,
      signal,
    ),
  communities: (signal?: AbortSignal) =>
    getJson(z.object({ items: z.array(CommunityItemSchema) }), "/api/v1/graph/communities", signal).then(
      (r) => r.items,
    ),
  community: (id: string, signal?: AbortSignal) =>
    getJson(CommunityDetailSchema, `/api/v1/graph/communities/${encodeURIComponent(id)}`, signal),
  passage: (chunkId: string, signal?: AbortSignal) =>
    getJson(PassageSchema, `/api/v1/passages/${encodeURIComponent(chunkId)}`, signal),

  cypher: (cypherQuery: string, limit?: number) =>
    postJson(CypherResultSchema, "/api/v1/cypher", { query: cypherQuery, limit }),
  startChat: () => postJson(z.object({ id: z.string() }), "/api/v1/chat/sessions", {}).then((r) => r.id),
  chat: (sessionId: string, message: string) =>
    postJson(ChatReplySchema, `/api/v1/chat/sessions/${encodeURIComponent(sessionId)}/messages`, { message }),
};

import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { UnknownDocumentError } from "../pipeline/document-metadata.js";
import { CurationInputError, UnknownEntityError } from "../resolve/curation.js";
import { Neo4jWorkspaceBusyError } from "../storage/neo4j/busy-error.js";
import { WorkspaceBusyError } from "../workspace/lock.js";
import { isCallerError } from "./caller-errors.js";
import { JobRunningError } from "./jobs/job-queue.js";
import { queryBodyFieldNote } from "./queries/query-body.js";

/** An error the API reports as is: `{error: {code, message}}` with its status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** `hint`, when given, says why it may be missing and where to look instead. */
export const notFound = (what: string, hint?: string) =>
  new ApiError(404, "not_found", hint ? `${what} not found: ${hint}` : `${what} not found`);
export const badRequest = (message: string, code = "bad_request") => new ApiError(400, code, message);
export const unsupportedMediaType = (message: string) => new ApiError(415, "unsupported_media_type", message);

/** A query that ran past its time limit: `limitMs` the server's queryTimeoutMs, or less if the request asked. */
export const queryTimedOut = (limitMs: number) =>
  new ApiError(504, "query_timeout", `The query did not finish within its time limit of ${limitMs} ms`);

/** A query whose client went away before its answer was sent (nginx's 499: nobody reads it). */
export const clientClosedRequest = () =>
  new ApiError(499, "client_closed_request", "The client closed the connection before the answer was sent");

export function errorBody(code: string, message: string) {
  return { error: { code, message } };
}

/** Fastify's error codes that mean a bad request, with the status and our code for each. */
const FRAMEWORK_ERRORS: Record<string, { status: number; code: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: "payload_too_large" },
  FST_REQ_FILE_TOO_LARGE: { status: 413, code: "file_too_large" },
  FST_FILES_LIMIT: { status: 413, code: "too_many_files" },
  FST_PARTS_LIMIT: { status: 413, code: "too_many_parts" },
  FST_FIELDS_LIMIT: { status: 413, code: "too_many_fields" },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: "unsupported_media_type" },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: "bad_request" },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: "bad_json" },
  FST_INVALID_MULTIPART_CONTENT_TYPE: { status: 400, code: "not_multipart" },
};

/** Curation refusals and a workspace another writer holds, as the API reports them. */
function writeError(error: unknown): ApiError | undefined {
  const message = error instanceof Error ? error.message : "";
  if (error instanceof UnknownEntityError) {
    if (error.reason === "ambiguous") return new ApiError(409, "ambiguous_entity", message);
    return new ApiError(404, "not_found", message);
  }
  if (error instanceof UnknownDocumentError) return new ApiError(404, "not_found", message);
  if (error instanceof CurationInputError) {
    if (error.reason === "conflict") return new ApiError(409, "name_taken", message);
    return new ApiError(400, "bad_request", message);
  }
  const busy =
    error instanceof JobRunningError ||
    error instanceof WorkspaceBusyError ||
    error instanceof Neo4jWorkspaceBusyError;
  return busy ? new ApiError(409, "workspace_busy", message) : undefined;
}

/**
 * `Unrecognized key: "filter"` -> `... "filter" (did you mean "metadata"?)`, among the body's own
 * fields (question and timeoutMs included, the library's callbacks not: they are the server's).
 */
function withSuggestions(message: string): string {
  if (!/^Unrecognized keys?:/.test(message)) return message;
  return message.replace(/"([^"]+)"/g, (quoted, name: string) => {
    const note = queryBodyFieldNote(name);
    return note ? `${quoted} (${note})` : quoted;
  });
}

/** What a failed request answers: its status, our error code, and a message for the caller. */
interface ErrorReply {
  status: number;
  code: string;
  message: string;
}

/**
 * What `error` answers: a known error as it says, a caller's mistake as a 4xx naming what is wrong,
 * anything else as a generic 500 (its detail written to the log, never sent).
 */
function errorReply(error: FastifyError, request: FastifyRequest): ErrorReply {
  const known = error instanceof ApiError ? error : writeError(error);
  if (known) return { status: known.status, code: known.code, message: known.message };
  if (hasZodFastifySchemaValidationErrors(error)) {
    const where = error.validationContext ?? "request";
    const onQuery = request.url.startsWith("/api/v1/query");
    const details = error.validation
      .map((v) => {
        const field = v.instancePath.replace(/^\//, "").replaceAll("/", ".");
        const message = onQuery ? withSuggestions(v.message ?? "invalid") : (v.message ?? "invalid");
        return field ? `${field}: ${message}` : message;
      })
      .join("; ");
    return { status: 400, code: "bad_request", message: `Invalid ${where}: ${details}` };
  }
  const framework = error.code ? FRAMEWORK_ERRORS[error.code] : undefined;
  if (framework) return { ...framework, message: error.message };
  if (error.statusCode === 429) return { status: 429, code: "rate_limited", message: error.message };
  if (isCallerError(error)) return { status: 400, code: "bad_request", message: error.message };
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return { status: error.statusCode, code: "bad_request", message: error.message };
  }
  logUnexpected(request, error);
  return { status: 500, code: "internal_error", message: `Internal server error; ${SEE_THE_LOG}` };
}

/**
 * Every error leaves as `{error: {code, message}}`, or in Ollama's shape under its paths (a refused
 * body, a missing key, a rate limit, a 500 alike, on a route kgrag serves there or not); a stack
 * trace never does.
 */
export function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const { status, code, message } = errorReply(error, request);
  const ollama = isOllamaPath(request.url.split("?")[0] ?? "/");
  void reply.status(status).send(ollama ? ollamaErrorBody(message) : errorBody(code, message));
}

/** Ollama's error shape, `{error: "<message>"}`: its clients read `error` as a string. */
export function ollamaErrorBody(message: string): { error: string } {
  return { error: message };
}

/**
 * Whether a path is the Ollama-compatible API's (`/api/...` outside the REST API's `/api/v1`),
 * whose errors answer in Ollama's shape, a route kgrag does not serve included.
 */
export function isOllamaPath(path: string): boolean {
  return path.startsWith("/api/") && path !== "/api/v1" && !path.startsWith("/api/v1/");
}

/** Where a generic message sends the reader for the detail. */
const SEE_THE_LOG = "the server's log (stderr) has the detail";

/**
 * The server runs without a request logger; an unexpected failure still reaches its operator. The
 * detail (a child process's stderr, a stack) stays in this log, never in a reply.
 */
function logUnexpected(request: FastifyRequest, error: unknown): void {
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`kgrag serve: ${request.method} ${request.url.split("?")[0]}: ${detail}\n`);
}

/**
 * What a stream that had already opened (an SSE `error` event, an Ollama NDJSON line) says of a
 * failure: a caller's mistake as the JSON routes say it, anything else as generic as a 500's body,
 * under `code`, with the detail written to stderr.
 */
export function streamFailure(
  request: FastifyRequest,
  error: unknown,
  code: string,
): ReturnType<typeof errorBody> {
  const known = error instanceof ApiError ? error : writeError(error);
  if (known) return errorBody(known.code, known.message);
  if (isCallerError(error) && error instanceof Error) return errorBody("bad_request", error.message);
  logUnexpected(request, error);
  return errorBody(code, `The query failed; ${SEE_THE_LOG}`);
}

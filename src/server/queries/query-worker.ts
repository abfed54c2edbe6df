import { createKgrag, type Kgrag } from "../../kgrag.js";
import { QUERY_MODES, type QueryContextEvent } from "../../query/options.js";
import { runQuery } from "../../query/query-engine.js";
import { isCallerError } from "../caller-errors.js";
import { type FromQueryWorker, type ToQueryWorker, WARM_UP_QUESTION } from "./query-messages.js";

/**
 * A query process: it opens each served workspace once (its own read connection, caches and
 * vector files) and answers queries on it, so retrieval, which is CPU work, runs beside the
 * request loop instead of on it. Started by QueryPool with the server's environment.
 */
const send = process.send?.bind(process);
if (!send) throw new Error("query-worker runs as a child process of `kgrag serve`");
const env = process.env;
const engines = new Map<string, Promise<Kgrag>>();

function engineFor(workspace: string): Promise<Kgrag> {
  let engine = engines.get(workspace);
  if (!engine) {
    engine = createKgrag({ env, config: { workspace } });
    engines.set(workspace, engine);
    // A workspace that failed to open is tried again by the next query, not remembered broken.
    engine.catch(() => engines.delete(workspace));
  }
  return engine;
}

const post = (message: FromQueryWorker) => {
  send(message);
};

/**
 * One buffer a result's JSON is encoded into, reused by every result: posting a message copies it
 * into the message synchronously (the channel serialises it before send returns), so the bytes
 * need not outlive the call. Writing into it is faster than Buffer.from for the JSON, a two-byte
 * string whenever a description is not Latin-1, and allocates nothing per query. Results whose
 * UTF-8 could exceed it get a buffer of their own, so it never grows.
 */
const SCRATCH_BYTES = 1024 * 1024;
let scratch: Buffer | undefined;

/** `text` in UTF-8: a view into the scratch buffer, valid until the next call. */
function utf8Bytes(text: string): Buffer {
  // Three bytes per UTF-16 unit at most (a surrogate pair is two units and four bytes).
  if (text.length * 3 > SCRATCH_BYTES) return Buffer.from(text);
  scratch ??= Buffer.allocUnsafeSlow(SCRATCH_BYTES);
  return scratch.subarray(0, scratch.write(text));
}

/** The queries sent and not yet answered, each with the controller its "cancel" aborts. */
const unanswered = new Map<number, AbortController>();

async function answer(
  request: Extract<ToQueryWorker, { type: "query" }>,
  signal: AbortSignal,
): Promise<void> {
  const { id, stream } = request;
  try {
    // One cancelled while it waited its turn ends here, before any work.
    signal.throwIfAborted();
    const kgrag = await engineFor(request.workspace);
    const result = await runQuery(kgrag.services, request.question, {
      ...request.options,
      signal,
      ...(stream
        ? {
            onContext: (context: QueryContextEvent) => post({ type: "context", id, context }),
            onToken: (text: string) => post({ type: "token", id, text }),
          }
        : {}),
    });
    post({ type: "done", id, json: utf8Bytes(JSON.stringify(result)) });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    post({ type: "failed", id, message, callerError: isCallerError(error) });
  } finally {
    unanswered.delete(id);
  }
}

/** Queued in order (see `turn`), with a controller a "cancel" message aborts meanwhile. */
function enqueue(request: Extract<ToQueryWorker, { type: "query" }>): void {
  const controller = new AbortController();
  unanswered.set(request.id, controller);
  turn = turn.then(() => answer(request, controller.signal));
}

/** Opens the workspaces and, when asked, answers the warm-up question in every mode on each. */
async function open(workspaces: string[], warmUp: boolean): Promise<void> {
  const warmed: { workspace: string; modes: string[] }[] = [];
  for (const workspace of workspaces) {
    const kgrag = await engineFor(workspace).catch(() => undefined);
    // A workspace that does not open is reported by its first query.
    if (!kgrag || !warmUp) continue;
    const modes: string[] = [];
    for (const mode of QUERY_MODES) {
      const answered = await runQuery(kgrag.services, WARM_UP_QUESTION, { mode, contextOnly: true }).then(
        () => true,
        () => false,
      );
      if (answered) modes.push(mode);
    }
    warmed.push({ workspace, modes });
  }
  post({ type: "ready", warmed });
}

async function closeAll(): Promise<void> {
  const opened = await Promise.allSettled(engines.values());
  engines.clear();
  for (const engine of opened) if (engine.status === "fulfilled") await engine.value.close();
}

/**
 * Queries are answered one after another: they are CPU work only (no model is waited on here), so
 * interleaving them would not finish any sooner, only stretch every one of them and keep all of
 * their intermediate results alive at once. In order, a query waits its turn and then runs alone.
 */
let turn: Promise<void> = Promise.resolve();

process.on("message", (message: ToQueryWorker) => {
  if (message.type === "query") enqueue(message);
  // Heard between a running query's steps (runQuery yields to the event loop there), or before a queued one starts.
  else if (message.type === "cancel") unanswered.get(message.id)?.abort(new Error("The query was cancelled"));
  // Opened (and warmed) up front, in turn, so the first queries wait for it instead of paying for it.
  else if (message.type === "open") turn = turn.then(() => open(message.workspaces, message.warmUp));
  else process.disconnect();
});
// Asked to close, or the server went away: nothing is left to answer.
process.on("disconnect", () => void closeAll().finally(() => process.exit(0)));

import type { QueryContextEvent, QueryOptionsInput } from "../../query/options.js";

/**
 * Query options that cross a process: everything but the callbacks, which become messages, and the
 * signal, which becomes a "cancel" message.
 */
export type PlainQueryOptions = Omit<QueryOptionsInput, "onToken" | "onContext" | "signal">;

/** What a query process starts with: the environment the server was given and the workspaces to open. */
export interface QueryWorkerData {
  env: NodeJS.ProcessEnv;
  workspaces: string[];
  /** Answer a warm-up query per mode on each workspace before the first request (config server.warmQueryWorkers). */
  warmUp?: boolean;
}

export type ToQueryWorker =
  | {
      type: "query";
      id: number;
      workspace: string;
      question: string;
      options: PlainQueryOptions;
      /** Forward the context and answer tokens as they come (the streaming routes). */
      stream: boolean;
    }
  /**
   * Stop the query (its time ran out, or its caller left): a query still waiting its turn is
   * dropped, a running one stops at its next step. Either way it ends with "failed" (or "done").
   */
  | { type: "cancel"; id: number }
  /** The workspaces to open, and maybe warm, before the first query (sent once, after the process starts). */
  | { type: "open"; workspaces: string[]; warmUp: boolean }
  | { type: "close" };

export type FromQueryWorker =
  /** The workspaces of "open" are open (and warm when asked): the modes each warm-up answered in. */
  | { type: "ready"; warmed: { workspace: string; modes: string[] }[] }
  | { type: "context"; id: number; context: QueryContextEvent }
  | { type: "token"; id: number; text: string }
  /**
   * The QueryResult as JSON in UTF-8: serialised and encoded in the worker, so the request loop
   * only writes the bytes (a string would be copied out of the message, measured and encoded
   * again on the way to the socket).
   */
  | { type: "done"; id: number; json: Uint8Array }
  /** `callerError`: the query asked for something wrong (a 400), rather than failed. */
  | { type: "failed"; id: number; message: string; callerError: boolean };

/**
 * Any question serves: the warm-up is for what every query loads on first use (the relationship
 * and entity caches, the vector matrices, the walk's numbered graph, the tokenizer, the keyword
 * model) and for the JIT, not for any answer. Common words also read the full-text postings most
 * questions share.
 */
export const WARM_UP_QUESTION = "Who was the first person to lead the group, and where was it founded?";

import { useEffect, useState } from "preact/hooks";
import type { QueryMode } from "../api";
import type { AnswerState } from "./AnswerPanel";

export interface AskOptions {
  topK: string;
  chunkTopK: string;
  totalTokens: string;
  responseType: string;
  contextOnly: boolean;
}

/** What the Ask view shows: the question, its mode(s) and options, and the answers. */
export interface AskSession {
  question: string;
  mode: QueryMode;
  compare: boolean;
  otherMode: QueryMode;
  options: AskOptions;
  /** Whether the options section is open. */
  optionsOpen: boolean;
  answers: AnswerState[];
}

const NEW_SESSION: AskSession = {
  question: "",
  mode: "mix",
  compare: false,
  otherMode: "naive",
  options: { topK: "", chunkTopK: "", totalTokens: "", responseType: "", contextOnly: false },
  optionsOpen: false,
  answers: [],
};

/**
 * The Ask view's session, held by the app rather than the view: going to another view and back
 * finds the question, options and answers as they were, and an answer still streaming goes on
 * filling in meanwhile. One per workspace (the app makes a new one when the workspace changes).
 */
export class AskStore {
  private session = NEW_SESSION;
  private readonly listeners = new Set<(session: AskSession) => void>();
  private streams: AbortController | undefined;

  get current(): AskSession {
    return this.session;
  }

  update(change: (session: AskSession) => AskSession): void {
    this.session = change(this.session);
    for (const listener of this.listeners) listener(this.session);
  }

  subscribe(listener: (session: AskSession) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The signal of a new question's streams; those of the question before are aborted. */
  newQuestion(): AbortSignal {
    this.streams?.abort();
    this.streams = new AbortController();
    return this.streams.signal;
  }

  /** Ends the streams still running (the workspace changed). */
  close(): void {
    this.streams?.abort();
  }
}

/** The store's session, rendered again on each change, and the function that changes it. */
export function useAskSession(
  store: AskStore,
): [AskSession, (change: (session: AskSession) => AskSession) => void] {
  const [session, setSession] = useState(store.current);
  useEffect(() => {
    setSession(store.current);
    return store.subscribe(setSession);
  }, [store]);
  return [session, (change) => store.update(change)];
}

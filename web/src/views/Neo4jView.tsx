import { useMemo, useState } from "preact/hooks";
import { api, type ChatReply, type CypherResult, usesNeo4j } from "../api";
import { useApp } from "../app-context";
import { errorText } from "../components/errors";
import { ResultTable } from "../components/ResultTable";
import { graphOfRows } from "../graph/cypher-graph";
import GraphCanvas from "../graph/GraphCanvas";

/**
 * Neo4j workspaces: a read-only Cypher console and Text2Cypher chat. Another workspace (an address
 * typed or kept from one) gets a notice up front instead of tools that would fail on first use.
 */
export default function Neo4jView() {
  const { workspace } = useApp();
  if (!usesNeo4j(workspace)) return <NeedsNeo4j workspace={workspace?.id ?? ""} />;
  return (
    <div class="neo4j-view">
      <CypherConsole />
      <Text2CypherChat />
    </div>
  );
}

function NeedsNeo4j({ workspace }: { workspace: string }) {
  return (
    <section class="neo4j-view" aria-label="Neo4j">
      <p class="notice" role="status">
        Workspace “{workspace}” uses the embedded SQLite store: the Cypher console and the Text2Cypher chat
        need the Neo4j backend (KGRAG_STORAGE=neo4j, see docs/neo4j.md). The Graph view explores this
        workspace's graph, and Ask answers questions about it.
      </p>
    </section>
  );
}

function CypherConsole() {
  const [cypher, setCypher] = useState("MATCH (e:Entity)-[r]-(o:Entity) RETURN e, r, o LIMIT 50");
  const [result, setResult] = useState<CypherResult>();
  const [failure, setFailure] = useState<string>();
  const [view, setView] = useState<"table" | "graph">("table");
  const graph = useMemo(() => graphOfRows(result?.rows ?? []), [result]);

  async function run(event: Event) {
    event.preventDefault();
    setFailure(undefined);
    try {
      setResult(await api.cypher(cypher));
    } catch (error) {
      setResult(undefined);
      setFailure(errorText(error));
    }
  }

  return (
    <section class="cypher-console" aria-label="Cypher console">
      <h2>Cypher (read-only)</h2>
      <form onSubmit={run}>
        <textarea
          aria-label="Cypher query"
          rows={4}
          spellcheck={false}
          value={cypher}
          onInput={(event) => setCypher((event.target as HTMLTextAreaElement).value)}
        />
        <div class="toolbar">
          <button type="submit" class="primary">
            Run
          </button>
          <label class="inline">
            <input type="radio" checked={view === "table"} onChange={() => setView("table")} /> table
          </label>
          <label class="inline">
            <input type="radio" checked={view === "graph"} onChange={() => setView("graph")} /> graph
          </label>
          {result && (
            <span class="muted small">
              {result.rows.length} rows{result.truncated ? " (truncated)" : ""}
              {result.elapsedMs !== undefined ? ` · ${Math.round(result.elapsedMs)} ms` : ""}
            </span>
          )}
        </div>
      </form>
      {failure && <pre class="error">{failure}</pre>}
      {result && view === "table" && <ResultTable columns={result.columns} rows={result.rows} />}
      {result && view === "graph" && <GraphCanvas nodes={graph.nodes} edges={graph.edges} colourBy="type" />}
    </section>
  );
}

interface ChatTurn {
  question: string;
  reply?: ChatReply;
  error?: string;
}

function Text2CypherChat() {
  const [session, setSession] = useState<string>();
  const [turns, setTurns] = useState<ChatTurn[]>([]);
  const [message, setMessage] = useState("");

  async function send(event: Event) {
    event.preventDefault();
    const question = message.trim();
    if (!question) return;
    setMessage("");
    const index = turns.length;
    setTurns((current) => [...current, { question }]);
    const settle = (turn: Partial<ChatTurn>) =>
      setTurns((current) => current.map((t, i) => (i === index ? { ...t, ...turn } : t)));
    try {
      const id = session ?? (await api.startChat());
      setSession(id);
      settle({ reply: await api.chat(id, question) });
    } catch (error) {
      settle({ error: errorText(error) });
    }
  }

  return (
    <section class="text2cypher" aria-label="Text2Cypher chat">
      <h2>Chat with the graph</h2>
      <ol class="chat">
        {turns.map((turn, i) => (
          <li key={i}>
            <p class="question">{turn.question}</p>
            {!turn.reply && !turn.error && <p class="muted">Thinking…</p>}
            {turn.error && <p class="error">{turn.error}</p>}
            {turn.reply && <ChatAnswer reply={turn.reply} />}
          </li>
        ))}
      </ol>
      <form onSubmit={send} class="toolbar">
        <input
          type="text"
          aria-label="Chat message"
          placeholder="Ask in plain words, e.g. Which movies did Tom Hanks act in?"
          value={message}
          onInput={(event) => setMessage((event.target as HTMLInputElement).value)}
        />
        <button type="submit" class="primary">
          Send
        </button>
        <button
          type="button"
          onClick={() => {
            setSession(undefined);
            setTurns([]);
          }}
        >
          New chat
        </button>
      </form>
    </section>
  );
}

/** The queries a correction round replaced, collapsed: the answer above them is what counts. */
function Corrections({ reply }: { reply: ChatReply }) {
  const failed = reply.failedAttempts ?? [];
  const attempts = reply.attempts ?? 1;
  if (attempts < 2 || failed.length === 0) return null;
  return (
    <details class="corrections small">
      <summary>
        {reply.validation?.ok
          ? `corrected after ${attempts} attempts`
          : `${attempts} attempts, none succeeded`}
      </summary>
      <ol>
        {failed.map((attempt, i) => (
          <li key={i}>
            <pre class="cypher">{attempt.cypher}</pre>
            <p class="error">
              {attempt.stage === "validation" ? "Rejected before it ran: " : ""}
              {attempt.errors.join("; ")}
            </p>
          </li>
        ))}
      </ol>
    </details>
  );
}

function ChatAnswer({ reply }: { reply: ChatReply }) {
  return (
    <div class="chat-answer">
      <p class="muted small">route: {reply.route}</p>
      {reply.cypher && <pre class="cypher">{reply.cypher}</pre>}
      <Corrections reply={reply} />
      {reply.validation && (
        <ul class={reply.validation.ok ? "muted small" : "error small"}>
          {reply.validation.ok && reply.validation.messages.length === 0 && <li>validated</li>}
          {reply.validation.messages.map((m, i) => (
            <li key={i}>{m}</li>
          ))}
        </ul>
      )}
      {reply.rows && reply.rows.length > 0 && (
        <ResultTable columns={Object.keys(reply.rows[0] ?? {})} rows={reply.rows.slice(0, 50)} />
      )}
      <p class="answer">{reply.answer}</p>
    </div>
  );
}

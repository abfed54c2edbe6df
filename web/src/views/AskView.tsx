import { useRef, useState } from "preact/hooks";
import { api, QUERY_MODES, type QueryMode, type QueryRequest } from "../api";
import { errorText } from "../components/errors";
import { AnswerPanel, type AnswerState } from "./AnswerPanel";

interface AskOptions {
  topK: string;
  chunkTopK: string;
  totalTokens: string;
  responseType: string;
  contextOnly: boolean;
}

const NO_OPTIONS: AskOptions = {
  topK: "",
  chunkTopK: "",
  totalTokens: "",
  responseType: "",
  contextOnly: false,
};

/** Only the options the user filled in: the rest fall back to the workspace's query config. */
function requestFor(question: string, mode: QueryMode, options: AskOptions): QueryRequest {
  const request: QueryRequest = { question, mode };
  if (options.contextOnly) request.contextOnly = true;
  if (options.topK) request.topK = Number(options.topK);
  if (options.chunkTopK) request.chunkTopK = Number(options.chunkTopK);
  if (options.totalTokens) request.totalTokens = Number(options.totalTokens);
  if (options.responseType.trim()) request.responseType = options.responseType.trim();
  return request;
}

/** Ask: one question in one mode, or two modes side by side, answers streaming in. */
export function AskView() {
  const [question, setQuestion] = useState("");
  const [mode, setMode] = useState<QueryMode>("mix");
  const [compare, setCompare] = useState(false);
  const [otherMode, setOtherMode] = useState<QueryMode>("naive");
  const [options, setOptions] = useState<AskOptions>(NO_OPTIONS);
  const [answers, setAnswers] = useState<AnswerState[]>([]);
  const aborter = useRef<AbortController | undefined>(undefined);

  function update(index: number, change: (state: AnswerState) => AnswerState) {
    setAnswers((current) => current.map((state, i) => (i === index ? change(state) : state)));
  }

  async function stream(index: number, request: QueryRequest, signal: AbortSignal) {
    try {
      const result = await api.queryStream(
        request,
        {
          onContext: (context, references) => update(index, (s) => ({ ...s, context, references })),
          onToken: (text) => update(index, (s) => ({ ...s, answer: s.answer + text })),
        },
        signal,
      );
      update(index, (s) => ({
        ...s,
        answer: result.answer,
        context: result.context,
        references: result.references,
        result,
        running: false,
      }));
    } catch (error) {
      if (!signal.aborted) update(index, (s) => ({ ...s, error: errorText(error), running: false }));
    }
  }

  function ask(event: Event) {
    event.preventDefault();
    const text = question.trim();
    if (!text) return;
    aborter.current?.abort();
    const controller = new AbortController();
    aborter.current = controller;
    const modes = compare ? [mode, otherMode] : [mode];
    setAnswers(modes.map((m) => ({ mode: m, answer: "", references: [], running: true })));
    modes.forEach((m, i) => void stream(i, requestFor(text, m, options), controller.signal));
  }

  const setOption = (key: keyof AskOptions) => (event: Event) => {
    const input = event.target as HTMLInputElement;
    setOptions((current) => ({ ...current, [key]: input.type === "checkbox" ? input.checked : input.value }));
  };

  return (
    <div class="ask-view">
      <form class="ask-form" onSubmit={ask}>
        <textarea
          aria-label="Question"
          placeholder="Ask a question about your documents…"
          rows={3}
          value={question}
          onInput={(event) => setQuestion((event.target as HTMLTextAreaElement).value)}
          onKeyDown={(event) => {
            if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) ask(event);
          }}
        />
        <div class="toolbar">
          <ModeSelect label="Mode" value={mode} onChange={setMode} />
          <label class="inline">
            <input
              type="checkbox"
              checked={compare}
              onChange={(e) => setCompare((e.target as HTMLInputElement).checked)}
            />{" "}
            compare with
          </label>
          {compare && <ModeSelect label="Second mode" value={otherMode} onChange={setOtherMode} />}
          <label class="inline">
            <input type="checkbox" checked={options.contextOnly} onChange={setOption("contextOnly")} />{" "}
            context only
          </label>
          <button type="submit" class="primary">
            Ask
          </button>
        </div>
        <details class="options">
          <summary>Options</summary>
          <label>
            topK <input type="number" min={1} value={options.topK} onInput={setOption("topK")} />
          </label>
          <label>
            chunkTopK{" "}
            <input type="number" min={1} value={options.chunkTopK} onInput={setOption("chunkTopK")} />
          </label>
          <label>
            totalTokens{" "}
            <input type="number" min={256} value={options.totalTokens} onInput={setOption("totalTokens")} />
          </label>
          <label>
            response type{" "}
            <input
              type="text"
              placeholder="Multiple Paragraphs"
              value={options.responseType}
              onInput={setOption("responseType")}
            />
          </label>
        </details>
      </form>
      <div class={`answers${answers.length > 1 ? " side-by-side" : ""}`}>
        {answers.map((state, i) => (
          <AnswerPanel key={`${i}:${state.mode}`} state={state} />
        ))}
      </div>
    </div>
  );
}

function ModeSelect(props: { label: string; value: QueryMode; onChange(mode: QueryMode): void }) {
  return (
    <label class="inline">
      {props.label}{" "}
      <select
        aria-label={props.label}
        value={props.value}
        onChange={(event) => props.onChange((event.target as HTMLSelectElement).value as QueryMode)}
      >
        {QUERY_MODES.map((m) => (
          <option key={m} value={m}>
            {m}
          </option>
        ))}
      </select>
    </label>
  );
}

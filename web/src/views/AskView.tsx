import { useEffect, useState } from "preact/hooks";
import { api, QUERY_MODES, type QueryMode, type QueryRequest } from "../api";
import { errorText } from "../components/errors";
import { AnswerPanel, type AnswerState } from "./AnswerPanel";
import {
  type AskProblem,
  askProblem,
  type NumberInput,
  type NumberOption,
  OPTION_MAXIMUM,
  OPTION_MINIMUM,
} from "./ask-problems";
import { type AskOptions, type AskSession, type AskStore, useAskSession } from "./ask-session";

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

/**
 * Ask: one question in one mode, or two modes side by side, answers streaming in. What it shows
 * lives in `store`, which outlasts the view.
 */
export function AskView({ store }: { store: AskStore }) {
  const [session, change] = useAskSession(store);
  const { question, mode, compare, otherMode, options, optionsOpen, answers } = session;
  /** What stopped the last Ask (or Enter), shown until the field it names is changed. */
  const [problem, setProblem] = useState<AskProblem>();
  /** Bumped by each stopped Ask, so the field at fault gets the focus again. */
  const [stopped, setStopped] = useState(0);
  useEffect(() => {
    // After the render that opened the options section: a control in a closed one takes no focus.
    if (problem) document.getElementById(`ask-${problem.field}`)?.focus();
  }, [stopped]);
  const set =
    <K extends keyof AskSession>(key: K) =>
    (value: AskSession[K]) =>
      change((current) => ({ ...current, [key]: value }));

  function update(index: number, changeAnswer: (state: AnswerState) => AnswerState) {
    change((current) => ({
      ...current,
      answers: current.answers.map((state, i) => (i === index ? changeAnswer(state) : state)),
    }));
  }

  async function stream(index: number, request: QueryRequest, signal: AbortSignal) {
    // Once a newer question started, events this stream had read already belong to no answer shown.
    const updateLive = (changeAnswer: (state: AnswerState) => AnswerState) => {
      if (!signal.aborted) update(index, changeAnswer);
    };
    try {
      const result = await api.queryStream(
        request,
        {
          onContext: (context, references) => updateLive((s) => ({ ...s, context, references })),
          onToken: (text) => updateLive((s) => ({ ...s, answer: s.answer + text })),
        },
        signal,
      );
      updateLive((s) => ({
        ...s,
        answer: result.answer,
        context: result.context,
        references: result.references,
        result,
        running: false,
      }));
    } catch (error) {
      updateLive((s) => ({ ...s, error: errorText(error), running: false }));
    }
  }

  function ask(event: Event) {
    event.preventDefault();
    const found = askProblem(question, options, numberInputs());
    if (found) {
      setProblem(found);
      setStopped((n) => n + 1);
      if (found.field !== "question") set("optionsOpen")(true);
      return;
    }
    setProblem(undefined);
    const text = question.trim();
    const signal = store.newQuestion();
    const modes = compare ? [mode, otherMode] : [mode];
    change((current) => ({
      ...current,
      answers: modes.map((m) => ({ mode: m, answer: "", references: [], running: true })),
    }));
    modes.forEach((m, i) => void stream(i, requestFor(text, m, options), signal));
  }

  const setOption = (key: keyof AskOptions) => (event: Event) => {
    if (problem?.field === key) setProblem(undefined);
    const input = event.target as HTMLInputElement;
    const value = input.type === "checkbox" ? input.checked : input.value;
    change((current) => ({ ...current, options: { ...current.options, [key]: value } }));
  };

  return (
    <div class="ask-view">
      {/* Checked by askProblem, on Enter too, rather than by the browser (which cannot point at a
          field in the closed options section, and does not check on Enter). */}
      <form class="ask-form" onSubmit={ask} noValidate>
        <textarea
          id="ask-question"
          aria-label="Question"
          {...invalidIf(problem, "question")}
          placeholder="Ask a question about your documents… (Enter asks, Shift+Enter starts a new line)"
          rows={3}
          value={question}
          onInput={(event) => {
            if (problem?.field === "question") setProblem(undefined);
            set("question")((event.target as HTMLTextAreaElement).value);
          }}
          onKeyDown={(event) => {
            // Not while an input method composes (Chinese, Japanese): its Enter picks the characters.
            if (event.key === "Enter" && !event.shiftKey && !event.isComposing) ask(event);
          }}
        />
        <div class="toolbar">
          <ModeSelect label="Mode" value={mode} onChange={set("mode")} />
          <label class="inline">
            <input
              type="checkbox"
              checked={compare}
              onChange={(e) => set("compare")((e.target as HTMLInputElement).checked)}
            />{" "}
            compare with
          </label>
          {compare && <ModeSelect label="Second mode" value={otherMode} onChange={set("otherMode")} />}
          <label class="inline">
            <input type="checkbox" checked={options.contextOnly} onChange={setOption("contextOnly")} />{" "}
            context only
          </label>
          <button type="submit" class="primary">
            Ask
          </button>
        </div>
        {problem && (
          <p class="error" role="alert" id="ask-problem">
            {problem.message}
          </p>
        )}
        <details
          class="options"
          open={optionsOpen}
          onToggle={(event) => set("optionsOpen")((event.target as HTMLDetailsElement).open)}
        >
          <summary>Options</summary>
          {(Object.keys(OPTION_MINIMUM) as Array<keyof typeof OPTION_MINIMUM>).map((key) => (
            <label key={key}>
              {key}{" "}
              <input
                id={`ask-${key}`}
                type="number"
                min={OPTION_MINIMUM[key]}
                max={OPTION_MAXIMUM[key]}
                step={1}
                value={options[key]}
                onInput={setOption(key)}
                {...invalidIf(problem, key)}
              />
            </label>
          ))}
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
          <AnswerPanel
            key={`${i}:${state.mode}`}
            state={state}
            onTab={(tab) => update(i, (answer) => ({ ...answer, tab }))}
          />
        ))}
      </div>
    </div>
  );
}

/**
 * The options' number inputs, for what their value does not tell: text the browser cannot read as
 * a number leaves the value "" (as if the option were left empty), with `validity.badInput` set.
 * They are in the page while the options section is closed too.
 */
function numberInputs(): Partial<Record<NumberOption, NumberInput>> {
  const inputs: Partial<Record<NumberOption, NumberInput>> = {};
  for (const field of Object.keys(OPTION_MINIMUM) as NumberOption[]) {
    const input = document.getElementById(`ask-${field}`);
    if (input instanceof HTMLInputElement) inputs[field] = input;
  }
  return inputs;
}

/** Marks the field a problem names as invalid, described by the problem's message. */
function invalidIf(problem: AskProblem | undefined, field: AskProblem["field"]) {
  return problem?.field === field ? { "aria-invalid": true, "aria-describedby": "ask-problem" } : {};
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

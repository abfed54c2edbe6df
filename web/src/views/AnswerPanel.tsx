import { useId } from "preact/hooks";
import type { QueryContext, QueryResult, Reference } from "../api";
import { useApp } from "../app-context";
import { answerPieces, answerSources, referenceLabel } from "../components/citations";
import { claimOf } from "../components/cited-sentence";
import { Description } from "../components/Description";
import type { PassageHighlight } from "../components/highlight";
import { ReportText } from "../components/ReportText";
import { communityCitations } from "../components/report-citations";
import { routeHash } from "../route";

export interface AnswerState {
  mode: string;
  answer: string;
  context?: QueryContext;
  references: Reference[];
  result?: QueryResult;
  error?: string;
  running: boolean;
  /** The context tab shown; kept with the answer so it survives a visit to another view. */
  tab?: ContextTabName;
}

const TABS = ["entities", "relationships", "reports", "passages"] as const;
export type ContextTabName = (typeof TABS)[number];

/**
 * One mode's answer: streamed text with clickable [n] citations (the passage opens) and [C:id] ones
 * (the communities view opens on that report), the context in tabs, timings and usage.
 */
export function AnswerPanel({ state, onTab }: { state: AnswerState; onTab: (tab: ContextTabName) => void }) {
  const { openPassage, navigate } = useApp();
  const tab = state.tab ?? "passages";
  /** Ids tying each tab to the panel it shows (two answers side by side each have their own). */
  const tabIds = useId();
  const tabId = (name: ContextTabName) => `${tabIds}-tab-${name}`;
  /** Arrows, Home and End move between the tabs (one Tab stop for the list, as tabs are read). */
  const moveBetweenTabs = (event: KeyboardEvent) => {
    const at = TABS.indexOf(tab);
    const to = tabKeyTarget(event.key, at, TABS.length);
    if (to === undefined) return;
    event.preventDefault();
    const name = TABS[to] as ContextTabName;
    onTab(name);
    document.getElementById(tabId(name))?.focus();
  };
  const highlightTerms = termsOf(state.result);
  const chunks = state.context?.chunks ?? [];
  /** Opens a passage, from the context when it is there (chunk i is reference i + 1). */
  const showPassage = (
    chunkId: string,
    title?: string,
    highlight: PassageHighlight = { terms: highlightTerms },
  ) => {
    const chunk = chunks.find((c) => c.id === chunkId);
    const known = chunk && {
      chunkId,
      documentId: chunk.docId,
      title: title ?? chunk.docId,
      text: chunk.text,
    };
    openPassage(chunkId, highlight, known);
  };
  /** From the answer, `claim` is the sentence the citation ends: the passage marks what supports it. */
  const openCitation = (n: number, claim?: string) => {
    const reference = state.references.find((r) => r.n === n);
    const chunkId = reference?.chunkId ?? chunks[n - 1]?.id;
    const highlight = claim ? { claim, terms: highlightTerms } : undefined;
    if (chunkId) showPassage(chunkId, reference?.title, highlight);
  };
  const openReport = (id: string) => navigate("communities", { community: id });
  const reportTitle = (id: string) => state.context?.communities.find((c) => c.id === id)?.title;
  const context = state.context;
  const pieces = answerPieces(state.answer);
  const sources = answerSources(state.answer, state.references, !state.running);
  return (
    <section class="answer-panel" aria-label={`Answer (${state.mode})`} data-mode={state.mode}>
      <h3>
        {state.mode} {state.running && <span class="muted small">streaming…</span>}
      </h3>
      {state.error && <p class="error">{state.error}</p>}
      <div class="answer" data-testid="answer">
        {pieces.map((piece, i) => {
          if ("cite" in piece)
            return (
              <button
                type="button"
                key={i}
                class="citation"
                title={state.references.find((r) => r.n === piece.cite)?.title}
                onClick={() => openCitation(piece.cite, claimOf(pieces, i))}
              >
                [{piece.cite}]
              </button>
            );
          if ("report" in piece)
            return (
              <button
                type="button"
                key={i}
                class="citation report-citation"
                title={`Community report: ${reportTitle(piece.report) ?? piece.report}`}
                onClick={() => openReport(piece.report)}
              >
                [C:{piece.report}]
              </button>
            );
          return <span key={i}>{piece.text}</span>;
        })}
      </div>
      {sources && (
        <section class="sources" aria-label={sources.heading}>
          <p class="muted small sources-heading">
            {sources.heading}
            {sources.note ? ` (${sources.note})` : ""}
          </p>
          {sources.references.length > 0 && (
            <ol class="references small">
              {sources.references.map((ref) => (
                <li key={ref.n} value={ref.n}>
                  <button type="button" class="link" onClick={() => openCitation(ref.n)}>
                    {referenceLabel(ref)}
                  </button>
                </li>
              ))}
            </ol>
          )}
          {sources.reports.length > 0 && (
            <ul class="references small report-sources">
              {sources.reports.map((id) => (
                <li key={id}>
                  <button type="button" class="link" onClick={() => openReport(id)}>
                    {reportTitle(id) ?? id}
                  </button>{" "}
                  <span class="muted">(community report)</span>
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
      {state.result?.warnings?.map((warning) => (
        <p key={warning} class="error small" role="status">
          {warning}
        </p>
      ))}
      {state.result && (
        <p class="muted small metrics">
          {state.result.timings &&
            `retrieval ${Math.round(state.result.timings.retrievalMs)} ms · total ${Math.round(state.result.timings.totalMs)} ms`}
          {state.result.usage &&
            ` · ${state.result.usage.llmCalls} LLM calls · ${state.result.usage.promptTokens} prompt + ${state.result.usage.completionTokens} completion tokens`}
        </p>
      )}
      {context && (
        <div class="tabs">
          <div role="tablist" aria-label={`Context (${state.mode})`} onKeyDown={moveBetweenTabs}>
            {TABS.map((name) => (
              <button
                type="button"
                role="tab"
                key={name}
                id={tabId(name)}
                aria-selected={tab === name}
                aria-controls={`${tabIds}-panel`}
                tabIndex={tab === name ? 0 : -1}
                class={tab === name ? "active" : ""}
                onClick={() => onTab(name)}
              >
                {name} ({countOf(context, name)})
              </button>
            ))}
          </div>
          <div role="tabpanel" id={`${tabIds}-panel`} aria-labelledby={tabId(tab)}>
            <ContextTab
              context={context}
              references={state.references}
              tab={tab}
              onPassage={(id) => openPassage(id, { terms: highlightTerms })}
              onReport={openReport}
            />
          </div>
        </div>
      )}
    </section>
  );
}

/** The tab a key moves to from tab `at` of `count` (they wrap around), or none for other keys. */
export function tabKeyTarget(key: string, at: number, count: number): number | undefined {
  if (key === "ArrowRight") return (at + 1) % count;
  if (key === "ArrowLeft") return (at - 1 + count) % count;
  if (key === "Home") return 0;
  if (key === "End") return count - 1;
  return undefined;
}

function countOf(context: QueryContext, tab: ContextTabName): number {
  if (tab === "entities") return context.entities.length;
  if (tab === "relationships") return context.relationships.length;
  if (tab === "reports") return context.communities.length;
  return context.chunks.length;
}

function termsOf(result: QueryResult | undefined): string[] {
  const keywords = result?.keywords;
  return [...(keywords?.high ?? []), ...(keywords?.low ?? [])].filter((term) => term.length > 1);
}

function ContextTab(props: {
  context: QueryContext;
  references: readonly Reference[];
  tab: ContextTabName;
  onPassage(chunkId: string): void;
  onReport(communityId: string): void;
}) {
  const { context, tab } = props;
  if (tab === "entities") {
    return (
      <table class="context">
        <tbody>
          {context.entities.map((e) => (
            <tr key={e.name}>
              <td>
                <a href={routeHash("graph", { entity: e.name })}>{e.name}</a>
              </td>
              <td class="muted small">{e.type}</td>
              <td class="small">
                <Description text={e.description} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    );
  }
  if (tab === "relationships") {
    return (
      <table class="context">
        <tbody>
          {context.relationships.map((r) => (
            <tr key={`${r.source}|${r.target}`}>
              <td>
                {r.source} — {r.target}
              </td>
              <td class="small">
                <Description text={r.description} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    );
  }
  if (tab === "reports") {
    const citations = communityCitations(context.communities);
    return (
      <ul class="context">
        {context.communities.map((c) => (
          <li key={c.id}>
            <button type="button" class="link" onClick={() => props.onReport(c.id)}>
              <strong>{c.title}</strong>
            </button>{" "}
            <span class="muted small">C:{c.id}</span>
            <p class="small">
              <ReportText text={c.summary} citations={citations} />
            </p>
          </li>
        ))}
      </ul>
    );
  }
  // A passage is named as its reference is (its document's title), its document's id beside it.
  const referenceOf = new Map(props.references.map((ref) => [ref.chunkId, ref]));
  return (
    <ol class="context">
      {context.chunks.map((chunk) => {
        const reference = referenceOf.get(chunk.id);
        return (
          <li key={chunk.id}>
            <button type="button" class="passage-button" onClick={() => props.onPassage(chunk.id)}>
              <span class="small passage-source">
                {reference ? <strong>{referenceLabel(reference)}</strong> : null}{" "}
                <span class="muted">{chunk.docId}</span>
              </span>
              <span class="snippet">{chunk.text}</span>
            </button>
          </li>
        );
      })}
    </ol>
  );
}

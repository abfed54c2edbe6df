import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { api, type Passage } from "../api";
import type { PassageHighlight } from "../app-context";
import { HighlightedText } from "./HighlightedText";

/** A passage read in full, with the mention (or cited span) marked. */
export function PassageDialog(props: {
  chunkId: string;
  highlight?: PassageHighlight;
  known?: Passage;
  onClose(): void;
}) {
  const [passage, setPassage] = useState<Passage | undefined>(props.known);
  const [failure, setFailure] = useState<string>();
  useEffect(() => {
    setFailure(undefined);
    setPassage(props.known);
    if (props.known) return;
    // Another passage opened meanwhile: this one's answer is not wanted any more.
    const request = new AbortController();
    const { signal } = request;
    api
      .passage(props.chunkId, signal)
      .then((found) => {
        if (!signal.aborted) setPassage(found);
      })
      .catch((error: unknown) => {
        if (!signal.aborted) setFailure(error instanceof Error ? error.message : String(error));
      });
    return () => request.abort();
  }, [props.chunkId, props.known]);
  const closeButton = useRef<HTMLButtonElement>(null);
  // Focus moves into the dialog and stays there (its one control is the close button), and goes
  // back to what had it (the citation) when the dialog closes. A layout effect: focus moves as the
  // dialog appears, not a frame later.
  useLayoutEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    closeButton.current?.focus();
    return () => before?.focus();
  }, []);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") props.onClose();
      else if (event.key === "Tab") {
        event.preventDefault();
        closeButton.current?.focus();
      }
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, [props.onClose]);
  return (
    <div class="overlay">
      <button
        type="button"
        class="backdrop"
        aria-label="Close passage"
        tabIndex={-1}
        onClick={props.onClose}
      />
      <section class="dialog passage-dialog" role="dialog" aria-modal="true" aria-label="Passage">
        <header>
          <h2>{passage?.title || passage?.documentId || "Passage"}</h2>
          <button type="button" class="close" aria-label="Close" ref={closeButton} onClick={props.onClose}>
            ×
          </button>
        </header>
        <p class="muted small">
          {props.chunkId}
          {passage ? ` · ${passage.documentId}` : ""}
        </p>
        {failure && <p class="error">{failure}</p>}
        {passage && (
          <p class="passage-text">
            <HighlightedText text={passage.text} highlight={props.highlight} />
          </p>
        )}
      </section>
    </div>
  );
}

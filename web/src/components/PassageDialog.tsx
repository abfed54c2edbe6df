import { useEffect, useState } from "preact/hooks";
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
    api
      .passage(props.chunkId)
      .then(setPassage)
      .catch((error: unknown) => setFailure(error instanceof Error ? error.message : String(error)));
  }, [props.chunkId, props.known]);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => event.key === "Escape" && props.onClose();
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, [props.onClose]);
  return (
    <div class="overlay">
      <button type="button" class="backdrop" aria-label="Close passage" onClick={props.onClose} />
      <section class="dialog passage-dialog" role="dialog" aria-label="Passage">
        <header>
          <h2>{passage?.title || passage?.documentId || "Passage"}</h2>
          <button type="button" class="close" aria-label="Close" onClick={props.onClose}>
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

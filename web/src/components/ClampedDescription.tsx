import { useId, useLayoutEffect, useRef, useState } from "preact/hooks";
import { Description } from "./Description";

/**
 * A description cut to a few lines (a hub's, merged from dozens of passages, pushed its
 * relationships screens down), with a button to show it whole and cut it again. The button shows
 * only when there is more than the lines shown.
 */
export function ClampedDescription({ text, class: className }: { text: string; class?: string }) {
  const [expanded, setExpanded] = useState(false);
  const [overflows, setOverflows] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const id = useId();

  // Measured while cut: whether the text runs past the lines shown.
  useLayoutEffect(() => {
    const element = box.current;
    if (!element || expanded) return;
    setOverflows(element.scrollHeight > element.clientHeight + 1);
  }, [text, expanded]);

  const cut = !expanded;
  return (
    <div class="clamped-description">
      <div ref={box} id={id} class={`clamp-box${cut ? " clamped" : ""}${cut && overflows ? " faded" : ""}`}>
        <Description class={className} text={text} />
      </div>
      {overflows && (
        <button
          type="button"
          class="link show-more"
          aria-expanded={expanded}
          aria-controls={id}
          onClick={() => setExpanded((open) => !open)}
        >
          {expanded ? "Show less" : "Show more"}
        </button>
      )}
    </div>
  );
}

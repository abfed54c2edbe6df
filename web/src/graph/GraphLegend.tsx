import type { ComponentChildren } from "preact";
import { useId, useLayoutEffect, useRef, useState } from "preact/hooks";

/**
 * The legend band above the drawing: a few lines, then a "+N more" button that shows the rest (a
 * band that scrolled showed about four lines on a phone, with nothing to say there were more).
 */
export function GraphLegend(props: { children: ComponentChildren; entryCount: number }) {
  const list = useRef<HTMLUListElement>(null);
  const listId = useId();
  const [expanded, setExpanded] = useState(false);
  const [hidden, setHidden] = useState(0);

  // Counted after every render: an entry's text can change (community titles arriving) and wrap
  // anew while the list, its height capped, keeps its size...
  useLayoutEffect(() => {
    if (list.current && !expanded) setHidden(entriesCutOff(list.current));
  });
  // ...and whenever the list's size changes (the window's, the panel's beside it).
  useLayoutEffect(() => {
    const element = list.current;
    if (!element || expanded) return;
    const watcher = new ResizeObserver(() => setHidden(entriesCutOff(element)));
    watcher.observe(element);
    return () => watcher.disconnect();
  }, [expanded]);

  return (
    <div class="legend-band">
      <ul ref={list} id={listId} class="legend" data-expanded={expanded ? "" : undefined} aria-label="Legend">
        {props.children}
      </ul>
      {(expanded || hidden > 0) && (
        <button
          type="button"
          class="link legend-toggle"
          aria-controls={listId}
          aria-expanded={expanded}
          aria-label={expanded ? "Show fewer legend entries" : `Show ${hidden} more legend entries`}
          onClick={() => setExpanded(!expanded)}
        >
          {expanded ? "Show fewer" : `+${hidden} more`}
        </button>
      )}
    </div>
  );
}

/**
 * How many of the list's entries lie (wholly or partly) below its bottom edge: its overflow is clipped
 * at its padding box, so an entry in the bottom padding is still seen.
 */
function entriesCutOff(list: HTMLUListElement): number {
  const bottom = list.getBoundingClientRect().bottom;
  let cut = 0;
  for (const entry of list.children) if (entry.getBoundingClientRect().bottom > bottom + 1) cut += 1;
  return cut;
}

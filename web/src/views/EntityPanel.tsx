import { useEffect, useRef, useState } from "preact/hooks";
import { api, type EntityDetail } from "../api";
import { useApp } from "../app-context";
import { ClampedDescription } from "../components/ClampedDescription";
import { Description } from "../components/Description";
import { EntityCuration } from "../components/EntityCuration";
import { errorText } from "../components/errors";
import { HighlightedText } from "../components/HighlightedText";
import { excerptAroundMark } from "../components/highlight";
import { routeHash } from "../route";

/** Side panel: an entity's description, type, relationships and source passages (mentions marked). */
export function EntityPanel({
  name,
  onExpand,
  onChanged,
  communityNames,
}: {
  name: string;
  onExpand(name: string): void;
  /** After a rename or merge in the panel, with the entity's name. */
  onChanged(name: string): void;
  /** Community ids' readable names (their reports' titles), when known. */
  communityNames?: ReadonlyMap<string, string>;
}) {
  const { openPassage } = useApp();
  const [detail, setDetail] = useState<EntityDetail>();
  const [failure, setFailure] = useState<string>();
  const heading = useRef<HTMLHeadingElement>(null);

  // The control that picked this entity (a suggestion, a relationship of the entity before) is
  // gone with the list it was in: the focus, left nowhere, comes to this panel's heading, so the
  // keyboard goes on from here instead of from the top of the page.
  useEffect(() => {
    if (!document.activeElement || document.activeElement === document.body) heading.current?.focus();
  }, []);

  useEffect(() => {
    setDetail(undefined);
    setFailure(undefined);
    // Another entity picked meanwhile: this one's answer is not wanted any more.
    const request = new AbortController();
    const { signal } = request;
    api
      .entity(name, signal)
      .then((found) => {
        if (!signal.aborted) setDetail(found);
      })
      .catch((error: unknown) => {
        if (!signal.aborted) setFailure(errorText(error));
      });
    return () => request.abort();
  }, [name]);

  // Reached by an alias or in another case, the entity goes by its own name: the heading says it,
  // and a relationship's other end is the end that is not that name.
  const entityName = detail?.entity.name ?? name;
  return (
    <aside class="side-panel" aria-label="Entity details">
      <h2 ref={heading} tabIndex={-1}>
        {entityName}
      </h2>
      {failure && <p class="error">{failure}</p>}
      {!detail && !failure && <p class="muted">Loading…</p>}
      {detail && (
        <>
          <p class="muted">
            <span class="badge">{detail.entity.type}</span> degree {detail.entity.degree}
            {detail.entity.community !== undefined && detail.entity.community !== null && (
              <>
                {" · "}
                <a href={routeHash("communities", { community: String(detail.entity.community) })}>
                  {communityNames?.get(String(detail.entity.community)) ??
                    `community ${detail.entity.community}`}
                </a>
              </>
            )}
          </p>
          {detail.entity.aliases && detail.entity.aliases.length > 0 && (
            <p class="small">Also: {detail.entity.aliases.join(", ")}</p>
          )}
          <ClampedDescription class="description" text={detail.entity.description} />
          <button type="button" onClick={() => onExpand(name)}>
            Expand
          </button>
          <EntityCuration name={name} onChanged={onChanged} />
          <h3>Relationships ({detail.relationships.length})</h3>
          <ul class="relationships">
            {detail.relationships.map((rel) => {
              const other = rel.source === entityName ? rel.target : rel.source;
              return (
                <li key={`${rel.source}|${rel.target}`}>
                  <button type="button" class="link" onClick={() => onExpand(other)}>
                    {other}
                  </button>{" "}
                  <span class="muted small">w {rel.weight}</span>
                  <Description class="small" text={rel.description} />
                </li>
              );
            })}
          </ul>
          <h3>Source passages ({detail.sources.length})</h3>
          <ul class="sources">
            {detail.sources.map((source) => {
              const highlight = source.mentions?.length ? { ranges: source.mentions } : { terms: [name] };
              // The preview shows a few lines: from just before the mention, so it is among them.
              const preview = excerptAroundMark(source.text, highlight);
              return (
                <li key={source.chunkId}>
                  <button
                    type="button"
                    class="passage-button"
                    onClick={() =>
                      openPassage(source.chunkId, highlight, { ...source, title: source.title ?? undefined })
                    }
                  >
                    <strong class="small">{source.title || source.documentId}</strong>
                    <span class="snippet">
                      <HighlightedText text={preview.text} highlight={preview.highlight} />
                    </span>
                  </button>
                </li>
              );
            })}
          </ul>
        </>
      )}
    </aside>
  );
}

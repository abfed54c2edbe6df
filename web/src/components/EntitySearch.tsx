import { useEffect, useState } from "preact/hooks";
import { api, type EntityRow } from "../api";

/** Entity search by name prefix or full text; picks one of the suggestions. */
export function EntitySearch({ onPick }: { onPick(name: string): void }) {
  const [text, setText] = useState("");
  const [suggestions, setSuggestions] = useState<EntityRow[]>([]);
  /** The text the shown suggestions (or "no match") are for; empty while none are shown. */
  const [answered, setAnswered] = useState("");

  useEffect(() => {
    const q = text.trim();
    if (!q) {
      setSuggestions([]);
      setAnswered("");
      return;
    }
    // Wait for a pause in typing; a newer request replaces the older one.
    let live = true;
    const timer = window.setTimeout(() => {
      api
        .searchEntities(q, 12)
        .then((items) => {
          if (!live) return;
          setSuggestions(items);
          setAnswered(q);
        })
        .catch(() => live && setSuggestions([]));
    }, 200);
    return () => {
      live = false;
      window.clearTimeout(timer);
    };
  }, [text]);

  const pick = (name: string) => {
    setText("");
    setSuggestions([]);
    setAnswered("");
    onPick(name);
  };
  const close = () => {
    setSuggestions([]);
    setAnswered("");
  };

  return (
    <form
      class="entity-search"
      // Focus leaving the search (a click elsewhere, Tab past the list) closes the suggestions.
      onFocusOut={(event) => {
        const next = event.relatedTarget as Node | null;
        if (!next || !event.currentTarget.contains(next)) close();
      }}
      onKeyDown={(event) => {
        if (event.key === "Escape") close();
        else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
          // The arrows walk the field and its suggestions (Tab and Enter still work as before).
          const stops = [...event.currentTarget.querySelectorAll<HTMLElement>("input, .suggestion")];
          const at = stops.indexOf(event.target as HTMLElement);
          const next = stops[at + (event.key === "ArrowDown" ? 1 : -1)];
          if (at < 0 || !next) return;
          event.preventDefault();
          next.focus();
        }
      }}
      onSubmit={(event) => {
        event.preventDefault();
        const first = suggestions[0];
        if (first) pick(first.name);
      }}
    >
      <input
        type="search"
        aria-label="Search entities"
        placeholder="Search an entity…"
        value={text}
        onInput={(event) => setText((event.target as HTMLInputElement).value)}
      />
      {suggestions.length > 0 && (
        <ul class="suggestions">
          {suggestions.map((entity) => (
            <li key={entity.name}>
              <button type="button" class="suggestion" onClick={() => pick(entity.name)}>
                {entity.name}{" "}
                <span class="muted small">
                  {entity.type} · {entity.degree}
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {suggestions.length === 0 && answered && answered === text.trim() && (
        <p class="suggestions muted small" role="status">
          No entity matches “{answered}”
        </p>
      )}
    </form>
  );
}

import { useRef, useState } from "preact/hooks";
import { api, type DocumentRow } from "../api";
import { errorText } from "./errors";
import { type MetadataLine, metadataLines, metadataPatch } from "./metadata-edit";

interface MetadataEditorProps {
  doc: DocumentRow;
  /** The document's row as the server answered the edit. */
  onSaved(row: DocumentRow): void;
  onClose(): void;
}

/**
 * A document's metadata as key/value lines to edit, add and remove, saved in place (PATCH: nothing
 * is extracted again). The server's refusal (kgrag's own keys, a job running) shows beside the lines.
 */
export function MetadataEditor({ doc, onSaved, onClose }: MetadataEditorProps) {
  const name = doc.title || doc.id;
  // The metadata the lines were made from: the row may be reloaded under the open editor, and a
  // patch worked out against the reloaded one would undo what others changed meanwhile.
  const [initial] = useState(() => ({ metadata: doc.metadata, ...metadataLines(doc.metadata) }));
  const [lines, setLines] = useState<MetadataLine[]>(initial.lines);
  const [failure, setFailure] = useState<string>();
  const [saving, setSaving] = useState(false);
  const nextId = useRef(initial.lines.length);

  const edit = (id: number, change: Partial<MetadataLine>) =>
    setLines((current) => current.map((line) => (line.id === id ? { ...line, ...change } : line)));
  const addLine = () => {
    const id = nextId.current++;
    setLines((current) => [...current, { id, key: "", value: "" }]);
  };

  async function save(event: Event) {
    event.preventDefault();
    const patch = metadataPatch(initial.metadata, lines);
    if (Object.keys(patch).length === 0) return onClose();
    setSaving(true);
    setFailure(undefined);
    try {
      onSaved(await api.updateDocumentMetadata(doc.id, patch));
    } catch (error) {
      setFailure(errorText(error));
    } finally {
      setSaving(false);
    }
  }

  return (
    <form class="metadata-editor" aria-label={`Metadata of ${name}`} onSubmit={save}>
      {lines.map((line, i) => (
        <div class="metadata-line" key={line.id}>
          <input
            aria-label={`Key ${i + 1}`}
            placeholder="key"
            value={line.key}
            onInput={(event) => edit(line.id, { key: (event.target as HTMLInputElement).value })}
          />
          <input
            aria-label={`Value of ${line.key || "the new key"}`}
            placeholder="value"
            value={line.value}
            onInput={(event) => edit(line.id, { value: (event.target as HTMLInputElement).value })}
          />
          <button
            type="button"
            aria-label={`Remove ${line.key || "this key"}`}
            onClick={() => setLines((current) => current.filter((other) => other.id !== line.id))}
          >
            Remove
          </button>
        </div>
      ))}
      {initial.fixed.map(([key, value]) => (
        <div class="metadata-line muted small" key={`fixed:${key}`}>
          {key} = {JSON.stringify(value)} (not editable here)
        </div>
      ))}
      {failure && (
        <p class="error" role="alert">
          {failure}
        </p>
      )}
      <div class="metadata-buttons">
        <button type="button" onClick={addLine}>
          Add key
        </button>
        <button type="submit" class="primary" disabled={saving}>
          Save
        </button>
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </div>
    </form>
  );
}

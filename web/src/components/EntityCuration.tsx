import { useState } from "preact/hooks";
import { api, type CuratedEntity } from "../api";
import { errorText } from "./errors";

/**
 * Hand curation from the entity panel: rename the entity, or merge another one into it. Both are
 * kept by the server as rules (a re-index keeps them); `onChanged` gets the entity's name after.
 */
export function EntityCuration({ name, onChanged }: { name: string; onChanged(name: string): void }) {
  const [newName, setNewName] = useState("");
  const [other, setOther] = useState("");
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string>();

  async function run(work: () => Promise<CuratedEntity>) {
    setBusy(true);
    setFailure(undefined);
    try {
      const entity = await work();
      setNewName("");
      setOther("");
      onChanged(entity.name);
    } catch (error) {
      setFailure(errorText(error));
    } finally {
      setBusy(false);
    }
  }

  return (
    <details class="curation">
      <summary>Edit entity</summary>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (newName.trim()) void run(() => api.renameEntity(name, newName.trim()));
        }}
      >
        <label class="inline">
          New name{" "}
          <input value={newName} onInput={(event) => setNewName((event.target as HTMLInputElement).value)} />
        </label>{" "}
        <button type="submit" disabled={busy}>
          Rename
        </button>
      </form>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (other.trim()) void run(() => api.mergeEntities(name, [other.trim()]));
        }}
      >
        <label class="inline">
          Merge with{" "}
          <input value={other} onInput={(event) => setOther((event.target as HTMLInputElement).value)} />
        </label>{" "}
        <button type="submit" disabled={busy}>
          Merge into this
        </button>
      </form>
      {failure && <p class="error">{failure}</p>}
    </details>
  );
}

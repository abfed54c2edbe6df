import { type CreateKgragOptions, createKgrag, type Kgrag } from "../kgrag.js";
import type { KgragServices } from "../services.js";
import { terminalProgress } from "./progress-bars.js";

export interface OpenOptions {
  workspace?: string;
}

/** What most commands need: the services of one workspace, and a way to let go of it. */
export type OpenServices = (
  opts: OpenOptions,
) => Promise<{ services: KgragServices; close(): Promise<void> }>;
export type OpenKgrag = (opts: OpenOptions) => Promise<Kgrag>;

let notified = false;

/** Opens a workspace for the CLI: progress bars on a terminal, and one notice when running offline. */
export function cliOpener(extra: CreateKgragOptions = {}): OpenKgrag {
  return async (opts) => {
    const kgrag = await createKgrag({
      ...extra,
      progress: extra.progress ?? terminalProgress(),
      config: { ...extra.config, ...(opts.workspace ? { workspace: opts.workspace } : {}) },
    });
    if (kgrag.mode === "offline" && !notified) {
      notified = true;
      process.stderr.write(
        "kgrag: no LLM configured (KGRAG_LLM_MODEL unset), using the offline built-ins: " +
          `${kgrag.components.extractor.kind} extractor, ${kgrag.services.embedder.kind} embedder ` +
          `(${kgrag.services.embedder.model}), extractive summaries, reports and answers.\n`,
      );
    }
    return kgrag;
  };
}

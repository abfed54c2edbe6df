import type { Extractor } from "../extraction/extractor.js";
import type { KgragServices } from "../services.js";

let notified = false;

/**
 * Says once per process that no LLM is configured and which offline built-ins stand in, for
 * commands that would call a model. `extractor` is the kind the indexing components use offline.
 */
export function noticeOfflineOnce(
  services: KgragServices,
  extractor: Extractor["kind"] = "offline-nlp",
): void {
  if (services.chat !== null || notified) return;
  notified = true;
  process.stderr.write(
    "kgrag: no LLM configured (KGRAG_LLM_MODEL unset), using the offline built-ins: " +
      `${extractor} extractor, ${services.embedder.kind} embedder ` +
      `(${services.embedder.model}), extractive summaries, reports and answers.\n`,
  );
}

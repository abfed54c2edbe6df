import type { KgragServices } from "../services.js";
import type { CommunityReport } from "../types.js";
import { ExtractiveReportWriter } from "./extractive-report-writer.js";
import { LlmReportWriter } from "./llm-report-writer.js";
import type { ReportContext } from "./report-context.js";

/** Writes one community's report from its context. */
export interface ReportWriter {
  readonly kind: CommunityReport["method"];
  write(context: ReportContext): Promise<CommunityReport>;
}

/** The LLM writer when a chat model is configured, the offline extractive writer otherwise. */
export function reportWriterFor(services: KgragServices): ReportWriter {
  const extractive = new ExtractiveReportWriter();
  if (!services.chat) return extractive;
  return new LlmReportWriter(services.chat, {
    fallback: extractive,
    warn: (message) => services.progress.info(message),
  });
}

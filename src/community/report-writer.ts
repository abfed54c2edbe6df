import type { KgragServices } from "../services.js";
import type { CommunityReport } from "../types.js";
import { LlmReportWriter } from "./llm-report-writer.js";
import type { ReportContext } from "./report-context.js";

/** Writes one community's report from its context. */
export interface ReportWriter {
  readonly kind: CommunityReport["method"];
  write(context: ReportContext): Promise<CommunityReport>;
}

/**
 * The offline extractive writer, loaded with its first report: a run with a model needs it only as
 * the fallback for an unreadable reply, and its module loads marked (a markdown lexer whose set-up
 * cost about 13 ms of start-up before the first model request).
 */
export class DeferredExtractiveWriter implements ReportWriter {
  readonly kind = "extractive" as const;
  private writer: Promise<ReportWriter> | undefined;

  async write(context: ReportContext): Promise<CommunityReport> {
    this.writer ??= import("./extractive-report-writer.js").then(
      ({ ExtractiveReportWriter }) => new ExtractiveReportWriter(),
    );
    return (await this.writer).write(context);
  }
}

/** The LLM writer when a chat model is configured, the offline extractive writer otherwise. */
export function reportWriterFor(services: KgragServices): ReportWriter {
  const extractive = new DeferredExtractiveWriter();
  if (!services.chat) return extractive;
  return new LlmReportWriter(services.chat, {
    fallback: extractive,
    warn: (message) => services.progress.info(message),
  });
}

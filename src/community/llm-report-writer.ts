import type { ChatModel } from "../llm/chat-model.js";
import { renderPrompt } from "../llm/prompts.js";
import type { CommunityReport } from "../types.js";
import { chatForJson, UnreadableReplyError } from "./chat-json.js";
import { toCommunityReport } from "./render-report.js";
import type { ReportContext } from "./report-context.js";
import { REPORT_JSON_SCHEMA, readReportFields } from "./report-schema.js";
import type { ReportWriter } from "./report-writer.js";

/** GraphRAG asks for about 2,000 words out; this leaves room for that plus the JSON around it. */
const REPORT_MAX_TOKENS = 3000;

export interface LlmReportWriterOptions {
  /** Used when the model's reply cannot be read even after one retry; its report says what it is. */
  fallback?: ReportWriter;
  warn?: (message: string) => void;
}

/** Reports written by the chat model (stage "report") as validated JSON. */
export class LlmReportWriter implements ReportWriter {
  readonly kind = "llm" as const;

  constructor(
    private readonly chat: ChatModel,
    private readonly options: LlmReportWriterOptions = {},
  ) {}

  async write(context: ReportContext): Promise<CommunityReport> {
    try {
      const fields = await chatForJson(
        this.chat,
        {
          stage: "report",
          messages: [{ role: "user", content: renderPrompt("community-report", { context: context.text }) }],
          jsonSchema: REPORT_JSON_SCHEMA,
          temperature: 0,
          maxTokens: REPORT_MAX_TOKENS,
        },
        readReportFields,
      );
      return toCommunityReport(fields, "llm", context);
    } catch (error) {
      const { fallback } = this.options;
      // Only an unreadable reply falls back; a failing endpoint must stop the run, not go offline.
      if (!(error instanceof UnreadableReplyError) || !fallback) throw error;
      this.options.warn?.(
        `Community ${context.communityId}: ${error.message}; ` +
          `wrote an ${fallback.kind} report instead, to be redone by the LLM on the next run.`,
      );
      return fallback.write(context);
    }
  }
}

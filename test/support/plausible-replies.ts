import { OfflineNlpExtractor } from "../../src/extraction/offline-extractor.js";
import { type ChatCall, type ChatHandler, lastUserMessage } from "./scripted-openai-server.js";

/**
 * Scripted answers the size of a real model's, for measuring `kgrag index --dry-run` against a
 * run: extraction answers are the offline extractor's graph of the passage (its first dozen
 * entities and relationships, descriptions cut to a sentence) as the JSON the prompt asks for, a
 * gleaning round repeats the last third, summaries and reports restate their input at a
 * model-like length.
 */
const extractor = new OfflineNlpExtractor();
const PASSAGE = /Document title: (.*)\n\nPassage:\n"""\n([\s\S]*)\n"""/;

/** A model names about a dozen entities per passage, each with a sentence, not every noun phrase. */
const MAX_RECORDS = 12;
const MAX_DESCRIPTION = 160;

function extractionOf(call: ChatCall): { entities: unknown[]; relationships: unknown[] } {
  const first = call.body.messages?.find((m) => m.role === "user")?.content ?? "";
  const [, title = "", text = ""] = PASSAGE.exec(first) ?? [];
  const { entities, relationships } = extractor.extractText(text, title);
  const short = <T extends { description: string }>(record: T) => ({
    ...record,
    description: record.description.slice(0, MAX_DESCRIPTION),
  });
  return {
    entities: entities.slice(0, MAX_RECORDS).map(short),
    relationships: relationships.slice(0, MAX_RECORDS).map(short),
  };
}

function lastThird<T>(items: T[]): T[] {
  return items.slice(Math.floor((items.length * 2) / 3));
}

export const plausibleReplies: ChatHandler = (call) => {
  if (call.stage === "extract") return { content: JSON.stringify(extractionOf(call)) };
  if (call.stage === "glean") {
    const { entities, relationships } = extractionOf(call);
    return {
      content: JSON.stringify({ entities: lastThird(entities), relationships: lastThird(relationships) }),
    };
  }
  const input = lastUserMessage(call);
  if (call.stage === "summarize") return { content: input.slice(-1200) };
  if (call.stage === "report") {
    const lines = input.split("\n").filter((line) => line.trim());
    const findings = lines
      .slice(0, 8)
      .map((line) => ({ summary: line.slice(0, 80), explanation: line.slice(0, 300) }));
    return {
      content: JSON.stringify({
        title: lines[0]?.slice(0, 60) ?? "Community",
        summary: lines.slice(0, 3).join(" ").slice(0, 600),
        rating: 5,
        rating_explanation: "Scripted.",
        findings,
      }),
    };
  }
  return { status: 400, body: { error: { message: `no script for ${call.stage}` } } };
};

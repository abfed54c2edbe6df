import {
  followsStructuredOutput,
  type StructuredOutput,
  structuredSpec,
} from "../../query/answer/structured-output.js";
import type { KgragServices } from "../../services.js";

/**
 * Whether a message is a chat client's errand rather than a question for the graph. Open WebUI
 * sends the chat's own model, after each answer, prompts for a title, tags and follow-up
 * questions (and search queries): they open with "### Task:" and quote the conversation between
 * <chat_history> tags. Asked as questions, each would run a whole query (model calls included) to
 * answer with passages that are no title.
 */
export function isClientTask(text: string): boolean {
  return /^\s*### Task:/.test(text) && text.includes("<chat_history>");
}

/**
 * A client's errand done by the workspace's chat model alone, the prompt as it came (no retrieval,
 * no sources), as JSON when the client asks for it (`output`). Offline there is no model to write a
 * title: `{}` names none, and Open WebUI falls back to its own (the first message as the title, no
 * tags or follow-ups); undefined when `{}` does not follow the format asked: nothing honest to send.
 */
export async function doClientTask(
  services: KgragServices,
  prompt: string,
  signal: AbortSignal,
  output?: StructuredOutput,
): Promise<string | undefined> {
  if (!services.chat) return !output || followsStructuredOutput("{}", output) ? "{}" : undefined;
  const reply = await services.chat.chat({
    stage: "answer",
    messages: [{ role: "user", content: prompt }],
    ...(output ? { jsonSchema: structuredSpec(output) } : {}),
    signal,
  });
  return reply.text;
}

import type { ChatModel, ChatRequest } from "../llm/chat-model.js";
import { isCompleteJsonReply, readJsonReply } from "../llm/json-reply.js";

/**
 * One chat call whose reply must be JSON of a given shape. If the reply cannot be read, or its JSON
 * was cut short (repair would close it, silently dropping the rest), the model is asked once more
 * with the reason (a different prompt, so the LLM cache cannot replay the bad reply; bad replies
 * are not cached either). Throws UnreadableReplyError when the second reply is no better; errors of
 * the chat call itself (network, auth) pass through untouched.
 */
export async function chatForJson<T>(
  chat: ChatModel,
  request: ChatRequest,
  read: (value: unknown) => T,
): Promise<T> {
  const asked = { ...request, acceptAnswer: (text: string) => isCompleteJsonReply(text, read) };
  const first = await chat.chat(asked);
  const firstReading = completeReading(first.text, read, first.truncated);
  if (firstReading.ok) return firstReading.value;
  const retry = await chat.chat({
    ...asked,
    messages: [
      ...request.messages,
      { role: "assistant", content: first.text },
      {
        role: "user",
        content: `That reply could not be used (${firstReading.error}). Reply again with only the JSON object, following the schema.`,
      },
    ],
  });
  const retryReading = completeReading(retry.text, read, retry.truncated);
  if (retryReading.ok) return retryReading.value;
  throw new UnreadableReplyError(request.stage, retryReading.error);
}

type Reading<T> = { ok: true; value: T } | { ok: false; error: string };

function completeReading<T>(text: string, read: (value: unknown) => T, truncated?: boolean): Reading<T> {
  const reply = readJsonReply(text, read);
  if (!reply.ok) return reply;
  if (reply.cutShort || truncated) return { ok: false, error: "the JSON was cut off before it was complete" };
  return { ok: true, value: reply.value };
}

/** The model answered, twice, but not with complete JSON of the asked shape. */
export class UnreadableReplyError extends Error {
  constructor(
    readonly stage: string,
    reason: string,
  ) {
    super(`the ${stage} reply could not be read as the requested JSON: ${reason}`);
    this.name = "UnreadableReplyError";
  }
}

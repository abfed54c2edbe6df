import type { ChatModel, ChatRequest } from "../llm/chat-model.js";
import { parseJsonReply } from "./json-reply.js";

/**
 * One chat call whose reply must be JSON of a given shape. If the reply cannot be read, the model
 * is asked once more with the error (a different prompt, so the LLM cache cannot replay the bad
 * reply). Throws UnreadableReplyError when the second reply is unreadable too; errors of the chat
 * call itself (network, auth) pass through untouched.
 */
export async function chatForJson<T>(
  chat: ChatModel,
  request: ChatRequest,
  read: (value: unknown) => T,
): Promise<T> {
  const first = await chat.chat(request);
  try {
    return read(parseJsonReply(first.text));
  } catch (error) {
    const retry = await chat.chat({
      ...request,
      messages: [
        ...request.messages,
        { role: "assistant", content: first.text },
        {
          role: "user",
          content: `That reply could not be used (${errorMessage(error)}). Reply again with only the JSON object, following the schema.`,
        },
      ],
    });
    try {
      return read(parseJsonReply(retry.text));
    } catch (retryError) {
      throw new UnreadableReplyError(request.stage, errorMessage(retryError));
    }
  }
}

/** The model answered, twice, but not with JSON of the asked shape. */
export class UnreadableReplyError extends Error {
  constructor(
    readonly stage: string,
    reason: string,
  ) {
    super(`the ${stage} reply could not be read as the requested JSON: ${reason}`);
    this.name = "UnreadableReplyError";
  }
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

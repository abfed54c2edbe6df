import type { ChatModel, ChatRequest, ChatResponse } from "../../src/llm/chat-model.js";

/** A ChatModel double: answers from a function of the request and records every request. */
export class ScriptedChat implements ChatModel {
  readonly model = "scripted";
  readonly requests: ChatRequest[] = [];

  constructor(private readonly respond: (request: ChatRequest, callIndex: number) => string | Error) {}

  async chat(request: ChatRequest): Promise<ChatResponse> {
    this.requests.push(request);
    const reply = this.respond(request, this.requests.length - 1);
    if (reply instanceof Error) throw reply;
    request.onToken?.(reply);
    return { text: reply, usage: { promptTokens: 10, completionTokens: 5 }, cached: false };
  }

  stages(): string[] {
    return this.requests.map((r) => r.stage);
  }

  /** The text of the last user message of a request. */
  static prompt(request: ChatRequest): string {
    return request.messages.filter((m) => m.role === "user").at(-1)?.content ?? "";
  }
}

import { z } from "zod";
import type { ChatModel } from "../llm/chat-model.js";
import { isCompleteJsonReply, readJsonReply } from "../llm/json-reply.js";
import { renderPrompt } from "../llm/prompts.js";
import type { EntityRecord } from "../types.js";
import type { CandidatePair } from "./candidates.js";

const VerdictSchema = z.object({ same: z.boolean(), reason: z.string().default("") });
export type Verdict = z.infer<typeof VerdictSchema>;

/** Description text given to the model per entity; the name decides little without it. */
const DESCRIPTION_CHARS = 1500;

const readVerdict = (value: unknown) => VerdictSchema.parse(value);

/**
 * Asks the chat model about a pair the names and the graph could not settle (stage "resolve").
 * An unreadable answer counts as "different": resolution never guesses a merge.
 */
export async function confirmPair(
  chat: ChatModel,
  pair: CandidatePair,
  entities: Map<string, EntityRecord>,
  signal?: AbortSignal,
): Promise<Verdict> {
  const a = entities.get(pair.a)!;
  const b = entities.get(pair.b)!;
  const prompt = renderPrompt("resolve-confirm", {
    name_a: a.name,
    type_a: a.type,
    description_a: a.description.slice(0, DESCRIPTION_CHARS),
    name_b: b.name,
    type_b: b.type,
    description_b: b.description.slice(0, DESCRIPTION_CHARS),
    shared_neighbours: pair.sharedNeighbours.map((k) => entities.get(k)?.name ?? k).join(", ") || "nothing",
    evidence: pair.why,
  });
  const response = await chat.chat({
    stage: "resolve",
    messages: [{ role: "user", content: prompt }],
    temperature: 0,
    maxTokens: 200,
    acceptAnswer: (text) => isCompleteJsonReply(text, readVerdict),
    ...(signal ? { signal } : {}),
  });
  const reply = readJsonReply(response.text, readVerdict);
  return reply.ok && !reply.cutShort ? reply.value : { same: false, reason: "unreadable answer" };
}

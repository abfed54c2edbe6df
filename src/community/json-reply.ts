import { jsonrepair } from "jsonrepair";

/**
 * Reads a JSON object from a model reply: code fences and chatter around the object are dropped
 * and common damage (trailing commas, single quotes, a cut-off end) is repaired.
 */
export function parseJsonReply(text: string): unknown {
  const unfenced = text.replace(/```(?:json)?/gi, "");
  const start = unfenced.indexOf("{");
  if (start < 0) throw new Error("the reply holds no JSON object");
  const end = unfenced.lastIndexOf("}");
  const candidate = end > start ? unfenced.slice(start, end + 1) : unfenced.slice(start);
  try {
    return JSON.parse(candidate);
  } catch {
    return JSON.parse(jsonrepair(candidate));
  }
}

import type { HistoryMessage } from "../options.js";

/** Conversation turns as plain text for a prompt slot; "(none)" so the slot is never blank. */
export function formatHistory(history: HistoryMessage[]): string {
  if (history.length === 0) return "(none)";
  return history.map((m) => `${m.role === "user" ? "User" : "Assistant"}: ${m.content}`).join("\n");
}

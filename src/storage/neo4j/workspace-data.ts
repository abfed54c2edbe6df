import type { HistoryEntry, LlmCacheEntry } from "../../types.js";
import type { Neo4jConnection } from "./connection.js";
import { asHistory, asLlmCacheEntries } from "./read-rows.js";
import { llmCacheRow } from "./write-rows.js";

/** Workspace metadata, the LLM answer cache and the change history, as nodes of the workspace. */

export async function getMeta(db: Neo4jConnection, key: string): Promise<string | undefined> {
  const [row] = await db.read("store/meta-get", { key });
  return row ? String(row.value) : undefined;
}

export async function setMeta(db: Neo4jConnection, key: string, value: string): Promise<void> {
  await db.write((tx) => tx.run("store/meta-set", { key, value }));
}

export async function listMeta(db: Neo4jConnection): Promise<Record<string, string>> {
  const rows = await db.read("store/meta-list");
  return Object.fromEntries(rows.map((r) => [String(r.key), String(r.value)]));
}

export async function getLlmCache(
  db: Neo4jConnection,
  stage: string,
  model: string,
  promptHash: string,
): Promise<LlmCacheEntry | undefined> {
  return asLlmCacheEntries(await db.read("store/llm-cache-get", { stage, model, promptHash }))[0];
}

export async function putLlmCache(db: Neo4jConnection, entry: LlmCacheEntry): Promise<void> {
  await db.write((tx) => tx.run("store/llm-cache-put", { entry: llmCacheRow(entry) }));
}

export async function listLlmCache(db: Neo4jConnection): Promise<LlmCacheEntry[]> {
  return asLlmCacheEntries(await db.read("store/llm-cache-list"));
}

export async function listHistory(db: Neo4jConnection, key?: string): Promise<HistoryEntry[]> {
  return asHistory(await db.read("store/history-list", { key: key ?? null }), key);
}

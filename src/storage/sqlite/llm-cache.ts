import type { LlmCacheEntry } from "../../types.js";
import type { Sql } from "./connection.js";

interface LlmCacheRow {
  stage: string;
  model: string;
  prompt_hash: string;
  response: string;
  prompt_tokens: number;
  completion_tokens: number;
}

/** Every LLM answer by (stage, model, prompt hash), so re-runs repeat no call. */
export class LlmCacheTable {
  constructor(private readonly sql: Sql) {}

  get(stage: string, model: string, promptHash: string): LlmCacheEntry | undefined {
    const row = this.sql.get<LlmCacheRow>(
      "SELECT * FROM llm_cache WHERE stage = ? AND model = ? AND prompt_hash = ?",
      stage,
      model,
      promptHash,
    );
    return row && toEntry(row);
  }

  list(): LlmCacheEntry[] {
    return this.sql
      .all<LlmCacheRow>("SELECT * FROM llm_cache ORDER BY stage, model, prompt_hash")
      .map(toEntry);
  }

  put(entry: LlmCacheEntry): void {
    this.sql.run(
      `INSERT OR REPLACE INTO llm_cache
         (stage, model, prompt_hash, response, prompt_tokens, completion_tokens)
       VALUES (?, ?, ?, ?, ?, ?)`,
      entry.stage,
      entry.model,
      entry.promptHash,
      entry.response,
      entry.promptTokens,
      entry.completionTokens,
    );
  }
}

function toEntry(row: LlmCacheRow): LlmCacheEntry {
  return {
    stage: row.stage,
    model: row.model,
    promptHash: row.prompt_hash,
    response: row.response,
    promptTokens: row.prompt_tokens,
    completionTokens: row.completion_tokens,
  };
}

// Stores (or replaces) one LLM answer.
// @param workspace  the workspace this store serves
// @param entry  {stage, model, promptHash, response, promptTokens, completionTokens}
MERGE (l:LlmCache {workspace: $workspace, stage: $entry.stage, model: $entry.model, promptHash: $entry.promptHash})
SET l.response = $entry.response,
    l.promptTokens = $entry.promptTokens,
    l.completionTokens = $entry.completionTokens

// Every cached LLM answer of the workspace (for migration).
// @param workspace  the workspace this store serves
MATCH (l:LlmCache {workspace: $workspace})
RETURN {stage: l.stage, model: l.model, promptHash: l.promptHash, response: l.response,
        promptTokens: l.promptTokens, completionTokens: l.completionTokens} AS entry
ORDER BY l.stage, l.model, l.promptHash

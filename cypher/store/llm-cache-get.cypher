// One cached LLM answer by stage, model and prompt hash.
// @param workspace  the workspace this store serves
// @param stage  pipeline stage
// @param model  model name
// @param promptHash  hash of the prompt
MATCH (l:LlmCache {workspace: $workspace, stage: $stage, model: $model, promptHash: $promptHash})
USING INDEX l:LlmCache(workspace, stage, model, promptHash)
RETURN {stage: l.stage, model: l.model, promptHash: l.promptHash, response: l.response,
        promptTokens: l.promptTokens, completionTokens: l.completionTokens} AS entry

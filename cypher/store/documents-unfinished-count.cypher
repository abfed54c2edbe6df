// Documents not fully indexed: pending or processing (a run under way or stopped).
// @param workspace  the workspace this store serves
MATCH (d:Document {workspace: $workspace})
WHERE d.status IN ['pending', 'processing']
RETURN count(d) AS unfinished

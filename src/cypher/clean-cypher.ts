import { stripReasoning } from "../llm/json-reply.js";

/** What a model's reply to the Text2Cypher prompt holds once the wrapping is removed. */
export type GeneratedCypher = { kind: "cypher"; cypher: string } | { kind: "no-cypher"; reason: string };

/** The line the prompt asks for when a question is not a graph lookup. */
const NO_CYPHER = /^\s*NO_CYPHER\b[\s:.-]*(.*)$/is;

/**
 * Clause keywords a query can start with. Write keywords are included on purpose: cleaning must
 * keep a write the model produced so that the validator refuses it, not silently drop it.
 */
const CLAUSE_START =
  /^(MATCH|OPTIONAL\s+MATCH|WITH|UNWIND|CALL|RETURN|UNION|WHERE|ORDER\s+BY|SKIP|LIMIT|CREATE|MERGE|DELETE|DETACH|SET|REMOVE|FOREACH|LOAD\s+CSV|USE|CYPHER|EXPLAIN|PROFILE|SHOW|DROP|FINISH)\b/i;

/** Strips reasoning blocks, code fences, surrounding prose, "Cypher:" labels and trailing semicolons. */
export function cleanGeneratedCypher(answer: string): GeneratedCypher {
  const reply = stripReasoning(answer);
  const noCypher = NO_CYPHER.exec(reply.trim());
  if (noCypher) return { kind: "no-cypher", reason: (noCypher[1] ?? "").trim() || "not a graph lookup" };
  const fenced = fencedBlock(reply);
  const body = fenced ?? queryLines(reply);
  return { kind: "cypher", cypher: stripTrailing(body) };
}

/** The first fenced block, preferring one tagged cypher. */
function fencedBlock(reply: string): string | undefined {
  const blocks = [...reply.matchAll(/```[ \t]*([\w-]*)[ \t]*\r?\n([\s\S]*?)```/g)];
  if (blocks.length === 0) return undefined;
  const tagged = blocks.find((block) => /^(cypher|neo4j|cql)$/i.test(block[1] ?? ""));
  return (tagged ?? blocks[0])?.[2];
}

/**
 * Without fences: from the first line that starts a clause, through the paragraphs that continue
 * the query; prose after a blank line ends it.
 */
function queryLines(reply: string): string {
  const lines = reply.replace(/^\s*`|`\s*$/g, "").split(/\r?\n/);
  const first = lines.findIndex((line) => CLAUSE_START.test(stripLabel(line).trim()));
  if (first < 0) return reply.trim();
  const kept: string[] = [stripLabel(lines[first] ?? "")];
  let afterBlank = false;
  for (const line of lines.slice(first + 1)) {
    if (line.trim() === "") {
      afterBlank = true;
      continue;
    }
    if (afterBlank && !CLAUSE_START.test(line.trim())) break;
    afterBlank = false;
    kept.push(line);
  }
  return kept.join("\n");
}

/** "Cypher: MATCH ..." or "Query: MATCH ..." on the first line. */
function stripLabel(line: string): string {
  return line.replace(/^\s*(cypher|query|cypher query)\s*:\s*/i, "");
}

function stripTrailing(text: string): string {
  return text
    .trim()
    .replace(/[;\s]+$/, "")
    .trim();
}

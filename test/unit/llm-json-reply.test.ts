import { describe, expect, it } from "vitest";
import { cleanGeneratedCypher } from "../../src/cypher/clean-cypher.js";
import { isCompleteJsonReply, readJsonReply, stripReasoning } from "../../src/llm/json-reply.js";
import { parseKeywordsReply } from "../../src/query/keywords.js";

const anything = (value: unknown) => value;
const FULL = JSON.stringify({
  items: [{ name: "Ada Lovelace", note: "wrote the first program" }],
  done: true,
});

describe("readJsonReply", () => {
  it("flags JSON that stops unclosed, inside a string or between values, as cut short", () => {
    for (const cut of [FULL.slice(0, FULL.indexOf("first")), FULL.slice(0, FULL.indexOf(',"done"'))]) {
      const reply = readJsonReply(cut, anything);
      expect(reply).toMatchObject({ ok: true, cutShort: true });
      expect(isCompleteJsonReply(cut, anything)).toBe(false);
    }
    expect(readJsonReply(`\`\`\`json\n${FULL.slice(0, 30)}`, anything)).toMatchObject({ cutShort: true });
  });

  it("reads JSON broken before its end as unreadable, not as cut short, and reads no fragment of it", () => {
    const broken = '{"entities": [{"name": "Broken", "type": oops ] garbage';
    expect(readJsonReply(broken, anything)).toEqual({ ok: false, error: expect.stringContaining("broken") });
    expect(isCompleteJsonReply(broken, anything)).toBe(false);
    // A clean cut stays a cut, even inside a string, a number or an escape.
    for (const cut of ['{"a": [1, 2', '{"a": "x', '{"a": 1.', '{"a": tr', '{"a": "\\u00'])
      expect(readJsonReply(cut, anything)).toMatchObject({ ok: true, cutShort: true });
  });

  it("does not flag harmless repairs: fences, prose, trailing commas, single quotes", () => {
    const replies = [
      `\`\`\`json\n${FULL}\n\`\`\``,
      `Here it is [see below]:\n${FULL}\nAnything else?`,
      FULL.replace("}]", "},]"),
      "{'items': [], 'done': true}",
      `\`\`\`json\n${FULL}`,
    ];
    for (const raw of replies) {
      expect(readJsonReply(raw, anything)).toMatchObject({ ok: true, cutShort: false });
      expect(isCompleteJsonReply(raw, anything)).toBe(true);
    }
  });

  it("never reads the reasoning block as the answer", () => {
    const raw = `<think>Maybe {"items": [], "done": false} would do.</think>\n${FULL}`;
    expect(readJsonReply(raw, anything)).toEqual({ ok: true, value: JSON.parse(FULL), cutShort: false });
    // Cut off while still thinking: there is no answer at all.
    expect(readJsonReply('<think>I will answer {"items": []', anything)).toMatchObject({ ok: false });
    expect(stripReasoning("<think>a</think>b<think>c</think>d")).toBe("bd");
  });

  it("drops reasoning ended by a closing tag alone, as templates that open the block in the prompt send", () => {
    const raw = `Maybe {"items": [], "done": false} would do.\n</think>\n\n${FULL}`;
    expect(readJsonReply(raw, anything)).toEqual({ ok: true, value: JSON.parse(FULL), cutShort: false });
    expect(stripReasoning("The user asks who.\n</THINK>\nAda wrote it.")).toBe("\nAda wrote it.");
  });

  it("tries the next opening bracket when the JSON is not of the stage's shape", () => {
    const read = (value: unknown) => {
      if (!value || typeof value !== "object" || !("done" in value)) throw new Error("no done field");
      return value;
    };
    expect(readJsonReply(`Note {"x": 1} then ${FULL}`, read)).toMatchObject({ ok: true, cutShort: false });
    expect(readJsonReply('{"x": 1}', read)).toEqual({ ok: false, error: "no done field" });
  });
});

describe("the stages share the reply reader", () => {
  it("keywords: a cut-short reply is not used, a reasoning block is skipped", () => {
    const reply = '{"high_level_keywords": ["film"], "low_level_keywords": ["Big Stone Gap", "Adriana Tri';
    expect(parseKeywordsReply(reply)).toBeNull();
    const reasoned =
      '<think>{"low_level_keywords": ["wrong"]}</think>{"high_level_keywords": ["film"], "low_level_keywords": []}';
    expect(parseKeywordsReply(reasoned)).toEqual({ high: ["film"], low: [] });
  });

  it("Text2Cypher: a reasoning block is dropped before the query is looked for", () => {
    const reply = "<think>MATCH (n) DETACH DELETE n would be wrong.</think>\nMATCH (p:Person) RETURN p.name";
    expect(cleanGeneratedCypher(reply)).toEqual({ kind: "cypher", cypher: "MATCH (p:Person) RETURN p.name" });
  });
});

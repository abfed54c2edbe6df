import { afterEach, describe, expect, it, vi } from "vitest";
import { runQuery } from "../../src/query/query-engine.js";
import { buildFixture, type Fixture, MULTI_HOP, MULTI_HOP_KEYWORDS, StageChat } from "./query-fixture.js";

/** renderContext, counted: the prompt's context text is rendered only when an answer needs it. */
const rendered = vi.hoisted(() => ({ calls: 0 }));
vi.mock("../../src/query/context/context-format.js", async (original) => {
  const actual = await original<typeof import("../../src/query/context/context-format.js")>();
  return {
    ...actual,
    renderContext: (...args: Parameters<typeof actual.renderContext>) => {
      rendered.calls += 1;
      return actual.renderContext(...args);
    },
  };
});

const QUESTION = "Where does the director of the film Big Stone Gap live?";

let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
  rendered.calls = 0;
});

describe("the context's prompt text", () => {
  it("is not rendered for a context-only query, whose result does not hold it", async () => {
    fixture = await buildFixture(MULTI_HOP);
    for (const mode of ["naive", "mix"] as const) {
      const result = await runQuery(fixture.services, QUESTION, { mode, contextOnly: true });
      expect(result.context.chunks.length).toBeGreaterThan(0);
    }
    expect(rendered.calls).toBe(0);
  });

  it("is rendered once for a query that is answered, and the answer's prompt shows it", async () => {
    const chat = new StageChat({
      keywords: () => MULTI_HOP_KEYWORDS,
      answer: () => "Greenwich Village [1].",
    });
    fixture = await buildFixture(MULTI_HOP, { chat });
    const result = await runQuery(fixture.services, QUESTION, { mode: "mix" });
    expect(result.answer).toBe("Greenwich Village [1].");
    expect(rendered.calls).toBe(1);
    const prompt = chat.requests
      .filter((r) => r.stage === "answer")
      .flatMap((r) => r.messages.map((m) => m.content))
      .join("\n");
    expect(prompt).toContain("## Passages");
  });
});

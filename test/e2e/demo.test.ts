import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { main } from "../../src/cli/main.js";

const MODES = ["naive", "local", "global", "hybrid", "mix"] as const;
type Mode = (typeof MODES)[number];

/** The demo's output cut into question -> mode -> what that mode printed (answer and sources). */
function answersByQuestion(out: string): Map<string, Map<Mode, string>> {
  const byQuestion = new Map<string, Map<Mode, string>>();
  for (const block of out.split("\n=== ").slice(1)) {
    const [question = "", ...rest] = block.split("\n");
    const parts = rest.join("\n").split(/\n\[(naive|local|global|hybrid|mix)\] /);
    const byMode = new Map<Mode, string>();
    for (let i = 1; i < parts.length; i += 2) byMode.set(parts[i] as Mode, parts[i + 1] ?? "");
    byQuestion.set(question.trim(), byMode);
  }
  return byQuestion;
}

describe("kgrag demo", () => {
  const root = mkdtempSync(join(tmpdir(), "kgrag-demo-"));
  let out = "";
  let answers = new Map<string, Map<Mode, string>>();

  beforeAll(async () => {
    vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      out += String(chunk);
      return true;
    });
    vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    await main(["node", "kgrag", "demo", "--workspace", join(root, "ws"), "--questions", "9"]);
    vi.restoreAllMocks();
    answers = answersByQuestion(out);
  }, 120_000);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  /** What every mode answered to the question (without the source lines under it). */
  function answered(question: string): [Mode, string][] {
    const byMode = answers.get(question);
    expect(byMode, `the demo asked "${question}"`).toBeDefined();
    expect([...(byMode?.keys() ?? [])]).toEqual([...MODES]);
    return MODES.map((mode) => [mode, (byMode?.get(mode) ?? "").split("\n  [")[0] ?? ""]);
  }

  it("indexes the bundled samples and answers every question in every mode with passage references", () => {
    expect(process.exitCode ?? 0).toBe(0);
    expect(out).toMatch(/Indexed the samples: 12 documents/);
    expect(answers.size).toBe(9);
    expect(out).toMatch(/\[1\] .+ \(.+, chars \d+-\d+\)/);
    expect(out).not.toContain("Nothing in the indexed documents matches");
  });

  it.each([
    ["Where was the founder of the company that makes the Gullwing drone born?", ["Saltmere"]],
    ["听潮芯片是哪家公司研发的？这家公司的创始人出生在哪里？", ["青岚科技", "白湾镇"]],
    [
      "Which company supplies the lenses used in the Gullwing drone, and who founded it?",
      ["Lumora", "Mara Quell"],
    ],
    ["Which professor taught both Mara Quell and Lin Xiaozhou (林晓舟)?", ["Osric Venn"]],
    ["澄州和维森（Vessen）之间有什么联系？", ["友好城市"]],
    ["青岚科技投资了哪家公司？那家公司的主要产品是什么？", ["Tidewell Robotics"]],
  ])("answers %s in every mode, labelled extractive", (question, expected) => {
    for (const [mode, answer] of answered(question)) {
      expect(answer, mode).toMatch(/^Extractive answer \(offline, no LLM/);
      for (const text of expected) expect(answer, `${mode} names ${text}`).toContain(text);
    }
  });

  it("tells what happened at the 2021 expo", () => {
    for (const [mode, answer] of answered("What happened at the Harbor Light Expo in 2021?")) {
      expect(answer, mode).toMatch(/Gullwing|Halcyon|Tingchao|听潮芯片/);
    }
  });

  it.each(["What are the main themes of this collection?", "这些文档的主要主题是什么？"])(
    "answers the whole-corpus question %s from the broadest reports, and in local mode from its hubs",
    (question) => {
      for (const [mode, answer] of answered(question)) {
        if (mode === "global" || mode === "hybrid" || mode === "mix") {
          expect(answer, mode).toMatch(/^From the community reports/);
          expect(answer, mode).toMatch(/\(level 0\)|\[C:c0-/);
        } else {
          expect(answer, mode).toMatch(/^Extractive answer \(offline, no LLM/);
          expect(answer.split("\n").length, mode).toBeGreaterThan(2);
        }
      }
    },
  );
});

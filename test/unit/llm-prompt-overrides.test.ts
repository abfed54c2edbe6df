import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config.js";
import { createKgrag } from "../../src/kgrag.js";
import { builtInPromptNames, loadPrompt, renderPrompt, usePromptOverrides } from "../../src/llm/prompts.js";
import { packagePath } from "../../src/util/paths.js";
import { runMain } from "../support/cli-in-process.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "kgrag-prompts-"));
});
afterEach(() => {
  usePromptOverrides(undefined);
  rmSync(dir, { recursive: true, force: true });
});

describe("prompt overrides", () => {
  it("replace the built-in prompt of the same name, and only that one", () => {
    writeFileSync(join(dir, "keywords.md"), "Our own keywords prompt. {question} // {history}");
    usePromptOverrides(dir);
    expect(renderPrompt("keywords", { question: "Q?", history: "" })).toBe("Our own keywords prompt. Q? // ");
    expect(loadPrompt("answer")).toBe(readFileSync(packagePath("prompts", "answer.md"), "utf8"));
    usePromptOverrides(undefined);
    expect(loadPrompt("keywords")).toBe(readFileSync(packagePath("prompts", "keywords.md"), "utf8"));
  });

  it("refuse at start a missing or unknown placeholder, naming both", () => {
    writeFileSync(join(dir, "keywords.md"), "Keywords for {questoin} please");
    const check = () => usePromptOverrides(dir);
    expect(check).toThrow(ConfigError);
    expect(check).toThrow(/keywords\.md: missing placeholder .*\{question\}/);
    expect(check).toThrow(/keywords\.md: missing placeholder .*\{history\}/);
    expect(check).toThrow(/keywords\.md: unknown placeholder \{questoin\}/);
  });

  it("refuse a file no built-in prompt is named after", () => {
    writeFileSync(join(dir, "extraction.md"), "text");
    expect(() => usePromptOverrides(dir)).toThrow(/extraction\.md: no built-in prompt has this name/);
  });

  it("refuse a folder inside the prompt folder as a config error, not a crash", () => {
    mkdirSync(join(dir, "drafts"));
    const check = () => usePromptOverrides(dir);
    expect(check).toThrow(ConfigError);
    expect(check).toThrow(/drafts\/: a folder; prompt overrides are \.md files/);
  });

  it("stop createKgrag before the workspace opens, not at the first chunk", async () => {
    writeFileSync(join(dir, "extract.md"), "Extract from {text} only");
    const workspace = join(dir, "ws");
    await expect(createKgrag({ env: {}, config: { workspace, prompts: dir } })).rejects.toThrow(
      /extract\.md: missing placeholder/,
    );
    expect(existsSync(workspace)).toBe(false);
  });

  it("stop kgrag config with exit 2 when broken", async () => {
    writeFileSync(join(dir, "answer.md"), "no placeholders at all");
    const config = join(dir, "k.json");
    writeFileSync(config, JSON.stringify({ prompts: "." }));
    const result = await runMain(["config", "--config", config]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/answer\.md: missing placeholder/);
  });

  it("stop kgrag status with exit 2 when the folder is missing or broken, as config and query", async () => {
    const workspace = join(dir, "ws");
    const kgrag = await createKgrag({ env: {}, config: { workspace } });
    await kgrag.close();
    const config = join(dir, "k.json");
    writeFileSync(config, JSON.stringify({ workspace, prompts: "missing-prompts" }));
    for (const command of ["status", "config"]) {
      const result = await runMain([command, "--config", config]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/cannot read the prompt folder .*missing-prompts/);
    }
    mkdirSync(join(dir, "broken"));
    writeFileSync(join(dir, "broken", "answer.md"), "no placeholders at all");
    writeFileSync(config, JSON.stringify({ workspace, prompts: "broken" }));
    const broken = await runMain(["status", "--config", config]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/answer\.md: missing placeholder/);
  });
});

describe("kgrag prompts export", () => {
  it("writes every built-in prompt, which then passes as overrides unchanged", async () => {
    const out = join(dir, "exported");
    const result = await runMain(["prompts", "export", out]);
    expect(result.code).toBe(0);
    expect(readdirSync(out).sort()).toEqual(
      builtInPromptNames()
        .map((n) => `${n}.md`)
        .sort(),
    );
    expect(readFileSync(join(out, "extract.md"), "utf8")).toBe(
      readFileSync(packagePath("prompts", "extract.md"), "utf8"),
    );
    expect(() => usePromptOverrides(out)).not.toThrow();
    const again = await runMain(["prompts", "export", out]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already holds/);
  });
});

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createKgrag } from "../../src/kgrag.js";
import { entityKey } from "../../src/merge/keys.js";
import type { CommunityRecord } from "../../src/types.js";
import { llmEnv, promptPassage, startLifecycleServer } from "../support/lifecycle-corpus.js";
import type { ChatCall, ScriptedServer } from "../support/scripted-openai-server.js";

/** The scripted model finds every capitalised word of a passage, each related to every other. */
function extractEveryName(call: ChatCall) {
  const passage = promptPassage(call);
  const names = [...new Set(passage.match(/\b[A-Z][a-z]+\b/g) ?? [])];
  const entities = names.map((name) => ({
    name,
    type: "person",
    description: `${name} was at the meeting.`,
  }));
  const relationships = names.flatMap((source, i) =>
    names.slice(i + 1).map((target) => ({
      source,
      target,
      description: `${source} met ${target}.`,
      keywords: ["meeting"],
      strength: 5,
    })),
  );
  return { content: JSON.stringify({ entities, relationships }) };
}

const holding = (communities: CommunityRecord[], name: string) =>
  communities.find((c) => c.entityKeys.includes(entityKey(name)));

describe("community ids across index runs (LLM path, scripted server)", () => {
  let root: string;
  let server: ScriptedServer;

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), "kgrag-community-ids-"));
    server = await startLifecycleServer({ extract: extractEveryName });
  });

  afterEach(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("keeps a community's id when a new document adds a member; an unrelated community gets a new id", async () => {
    const folder = join(root, "corpus");
    mkdirSync(folder);
    writeFileSync(join(folder, "alphas.txt"), "Alpha, Beta, Gamma and Delta met.\n");
    writeFileSync(join(folder, "kilos.txt"), "Kilo, Lima and Mike met.\n");
    const kgrag = await createKgrag({ env: llmEnv(server.baseURL), config: { workspace: join(root, "ws") } });
    try {
      await kgrag.index([folder]);
      const first = await kgrag.services.store.listCommunities();
      expect(first).toHaveLength(2);
      const alphas = holding(first, "Alpha");

      writeFileSync(join(folder, "echo.txt"), "Alpha, Beta, Gamma, Delta and Echo met.\n");
      writeFileSync(join(folder, "xray.txt"), "Xray, Yankee and Zulu met.\n");
      const reportsBefore = server.count("report");
      await kgrag.index([folder]);
      const second = await kgrag.services.store.listCommunities();

      const grown = holding(second, "Echo");
      expect(grown?.id).toBe(alphas?.id);
      expect(grown?.entityKeys).toContain(entityKey("Delta"));
      expect(holding(second, "Kilo")).toEqual(holding(first, "Kilo"));
      const newcomer = holding(second, "Xray");
      expect(newcomer?.id).toMatch(/^c0-[0-9a-f]{12}$/);
      expect(first.map((c) => c.id)).not.toContain(newcomer?.id);
      // The grown community's report is written again, the new one's for the first time.
      expect(server.count("report") - reportsBefore).toBe(2);
      expect(grown?.reportHash).toBe(grown?.contentHash);
    } finally {
      await kgrag.close();
    }
  });
});

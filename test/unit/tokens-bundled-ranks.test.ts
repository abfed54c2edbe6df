import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { loadCounter } from "../../src/util/tokens.js";

const require = createRequire(import.meta.url);
const ENCODINGS = ["o200k_base", "cl100k_base"] as const;
const PLAIN = { disallowedSpecial: new Set<string>() };
// English, Chinese, rare characters and an emoji (pieces outside UTF-8 ranks), special-token text.
const TEXT =
  "Idris Vale, the founder of Tidewell Robotics, was born in 1984 in Saltmere.\n\n" +
  "青岚科技的听潮芯片在澄州生产，创始人林晓舟出生于白湾镇。鬰鬱鬲鬳魑魅魍魉🎏龘靐齉 <|endoftext|> it's 1234567";

/** The ranks saved as JSON the way scripts/bundle-cli.mjs saves them beside the bundled CLI. */
function saveRanksAsJson(dir: string): URL {
  for (const encoding of ENCODINGS) {
    const ranks = require(`gpt-tokenizer/bpeRanks/${encoding}`).default as unknown;
    writeFileSync(join(dir, `${encoding}.json`), JSON.stringify(ranks));
  }
  return pathToFileURL(`${dir}/`);
}

describe("the tokenizer built from the bundled CLI's JSON ranks", () => {
  const dir = mkdtempSync(join(tmpdir(), "kgrag-bpe-ranks-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("encodes, counts and decodes exactly as gpt-tokenizer's own module", () => {
    const ranksDir = saveRanksAsJson(dir);
    for (const encoding of ENCODINGS) {
      const fromJson = loadCounter(encoding, ranksDir);
      const shipped = loadCounter(encoding, pathToFileURL(join(dir, "absent/")));
      // Built from the JSON, not the package's module...
      expect(fromJson.encode).not.toBe(shipped.encode);
      // ...and the same tokens.
      const ids = shipped.encode(TEXT, PLAIN);
      expect(fromJson.encode(TEXT, PLAIN)).toEqual(ids);
      expect(fromJson.countTokens(TEXT, PLAIN)).toBe(ids.length);
      expect([...fromJson.encodeGenerator(TEXT, PLAIN)]).toEqual([...shipped.encodeGenerator(TEXT, PLAIN)]);
      expect(fromJson.decode(ids)).toBe(TEXT);
    }
  });

  it("falls back to gpt-tokenizer's module where no JSON ranks are saved (running from sources)", () => {
    const shipped = require("gpt-tokenizer/encoding/o200k_base") as { encode: unknown };
    expect(loadCounter("o200k_base", pathToFileURL(join(dir, "absent/"))).encode).toBe(shipped.encode);
  });
});

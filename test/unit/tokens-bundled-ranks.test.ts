import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Tiktoken, type TiktokenBPE } from "js-tiktoken/lite";
import { afterAll, describe, expect, it } from "vitest";
import { TokenBoundaries } from "../../src/ingest/token-boundaries.js";
import {
  type BpeRanks,
  BpeTable,
  buildBpeTable,
  readSplitPattern,
  splitPatternText,
} from "../../src/util/bpe-table.js";
import { loadCounter } from "../../src/util/tokens.js";

const require = createRequire(import.meta.url);
const ENCODINGS = ["o200k_base", "cl100k_base"] as const;
const PLAIN = { disallowedSpecial: new Set<string>() };
// English, Chinese, rare characters and an emoji (pieces outside UTF-8 ranks), special-token text,
// a lone surrogate, digits and whitespace runs.
const TEXT =
  "Idris Vale, the founder of Tidewell Robotics, was born in 1984 in Saltmere.\n\n" +
  "青岚科技的听潮芯片在澄州生产，创始人林晓舟出生于白湾镇。鬰鬱鬲鬳魑魅魍魉🎏龘靐齉 <|endoftext|> it's 1234567" +
  "\n\t  naïve café — «quoted» \ud800 x\r\n\r\n    indented; Ünïcödé ǅ ﬁ 𝔘𝔫𝔦 ١٢٣ ภาษาไทย";
/** Code points spread over the planes: pieces that only merge byte by byte. */
const SCATTERED = Array.from({ length: 3000 }, (_, i) =>
  String.fromCodePoint(((i * 7919) % 0x2ffff) + 1),
).join("");

function ranksOf(encoding: string): BpeRanks {
  return require(`gpt-tokenizer/bpeRanks/${encoding}`).default as BpeRanks;
}

/** gpt-tokenizer's pre-tokenizer patterns, which scripts/bundle-cli.mjs saves beside the tables. */
const SPLIT_PATTERNS = require("gpt-tokenizer/encodingParams/constants") as Record<string, RegExp>;
const splitPatternOf = (encoding: string) =>
  SPLIT_PATTERNS[
    encoding === "o200k_base" ? "O200K_TOKEN_SPLIT_REGEX" : "CL100K_TOKEN_SPLIT_REGEX"
  ] as RegExp;

/** The tables saved the way scripts/bundle-cli.mjs saves them beside the bundled CLI. */
function saveTables(dir: string): URL {
  for (const encoding of ENCODINGS) {
    writeFileSync(join(dir, `${encoding}.bpe`), buildBpeTable(ranksOf(encoding)));
    writeFileSync(join(dir, `${encoding}.split`), splitPatternText(splitPatternOf(encoding)));
  }
  return pathToFileURL(`${dir}/`);
}

describe("the tokenizer read from the bundled CLI's rank tables", () => {
  const dir = mkdtempSync(join(tmpdir(), "kgrag-bpe-ranks-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const ranksDir = saveTables(dir);

  it("encodes, counts and decodes exactly as gpt-tokenizer's own module", () => {
    for (const encoding of ENCODINGS) {
      const fromTable = loadCounter(encoding, ranksDir);
      const shipped = loadCounter(encoding, pathToFileURL(join(dir, "absent/")));
      // Read from the table, not the package's module...
      expect(fromTable.encode).not.toBe(shipped.encode);
      for (const text of [TEXT, SCATTERED]) {
        // ...and the same tokens.
        const ids = shipped.encode(text, PLAIN);
        expect(fromTable.encode(text, PLAIN)).toEqual(ids);
        expect(fromTable.countTokens(text, PLAIN)).toBe(ids.length);
        expect([...fromTable.encodeGenerator(text, PLAIN)]).toEqual([
          ...shipped.encodeGenerator(text, PLAIN),
        ]);
        expect(fromTable.decode(ids)).toBe(shipped.decode(ids));
      }
    }
  });

  it("merges long pieces (runs of one letter, hex, base64, CJK) exactly as gpt-tokenizer does", () => {
    const hex = Array.from({ length: 2000 }, (_, i) => "0123456789abcdef"[(i * 7919) % 16]).join("");
    const base64 = Array.from({ length: 3000 }, (_, i) =>
      String.fromCharCode(65 + ((i * 31) % 26) + ((i * 17) % 3 === 0 ? 32 : 0)),
    ).join("");
    const pieces = ["x".repeat(3000), "A".repeat(2500), hex, base64, "听".repeat(700), "ab".repeat(1500)];
    for (const encoding of ENCODINGS) {
      const fromTable = loadCounter(encoding, ranksDir);
      const shipped = loadCounter(encoding, pathToFileURL(join(dir, "absent/")));
      for (const text of pieces)
        expect(fromTable.encode(`Blob: ${text}.`, PLAIN)).toEqual(shipped.encode(`Blob: ${text}.`, PLAIN));
    }
  });

  it("encodes a leading byte-order mark as tiktoken does, and keeps it when decoding", () => {
    // gpt-tokenizer looks merged bytes up as text decoded with the mark dropped, so it differs here.
    const text = "\uFEFFA document that starts with a byte-order mark";
    const tiktoken = new Tiktoken(require("js-tiktoken/ranks/cl100k_base") as TiktokenBPE);
    const fromTable = loadCounter("cl100k_base", ranksDir);
    const ids = fromTable.encode(text, PLAIN);
    expect(ids).toEqual(tiktoken.encode(text, [], []));
    expect(fromTable.decode(ids)).toBe(text);
  });

  it("finds every rank by its bytes, and refuses what is not a table", () => {
    const ranks = ranksOf("cl100k_base");
    const table = new BpeTable(buildBpeTable(ranks));
    for (const rank of [0, 1, 255, 256, 1000, 50_000, ranks.length - 1]) {
      const bytes = table.bytesOf(rank);
      expect(table.rankOf(bytes, 0, bytes.length)).toBe(rank);
    }
    expect(table.rankOf(new TextEncoder().encode("no such token, surely"), 0, 21)).toBe(-1);
    expect(() => new BpeTable(new Uint8Array(64))).toThrow(/Not a byte-pair rank table/);
  });

  it("reads the pre-tokenizer pattern saved beside the table, not gpt-tokenizer's module", () => {
    for (const encoding of ENCODINGS) {
      const saved = readSplitPattern(splitPatternText(splitPatternOf(encoding)));
      expect(saved?.source).toBe(splitPatternOf(encoding).source);
      expect(saved?.flags).toBe(splitPatternOf(encoding).flags);
    }
    // A table saved with another pattern (one piece per character) is read with that pattern.
    const other = mkdtempSync(join(tmpdir(), "kgrag-bpe-split-"));
    try {
      writeFileSync(join(other, "o200k_base.bpe"), buildBpeTable(ranksOf("o200k_base")));
      writeFileSync(join(other, "o200k_base.split"), splitPatternText(/[\s\S]/gu));
      const perCharacter = loadCounter("o200k_base", pathToFileURL(`${other}/`));
      expect(perCharacter.countTokens("Hello world", PLAIN)).toBe(11);
      expect(loadCounter("o200k_base", ranksDir).countTokens("Hello world", PLAIN)).toBe(2);
      // An unreadable pattern file falls back to gpt-tokenizer's pattern.
      writeFileSync(join(other, "o200k_base.split"), "no flags line");
      expect(loadCounter("o200k_base", pathToFileURL(`${other}/`)).countTokens("Hello world", PLAIN)).toBe(2);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it("falls back to gpt-tokenizer's module where no table is saved (running from sources)", () => {
    const shipped = require("gpt-tokenizer/encoding/o200k_base") as { encode: unknown };
    expect(loadCounter("o200k_base", pathToFileURL(join(dir, "absent/"))).encode).toBe(shipped.encode);
  });
});

describe("chunk boundaries from the bundled table's piece offsets", () => {
  const dir = mkdtempSync(join(tmpdir(), "kgrag-bpe-pieces-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const ranksDir = saveTables(dir);
  // Long CJK runs and a long word: pieces longer than a window, cut inside.
  const MIXED = `${TEXT} ${"听潮芯片在澄州生产".repeat(40)} ${"x".repeat(300)} end\r\n${SCATTERED.slice(0, 400)}`;

  it("gives each piece's tokens and character offset as decoding does", () => {
    for (const encoding of ENCODINGS) {
      const fromTable = loadCounter(encoding, ranksDir);
      for (const text of [TEXT, SCATTERED, MIXED, "", "\uFEFFbom first"]) {
        const pieces = fromTable.encodePieces?.(text);
        if (!pieces) throw new Error("the table's counter encodes pieces");
        expect(pieces.ids).toEqual(fromTable.encode(text, PLAIN));
        const starts = [0];
        for (const piece of fromTable.encodeGenerator(text, PLAIN))
          starts.push(starts.at(-1)! + piece.length);
        expect(pieces.pieceStarts).toEqual(starts);
        pieces.pieceStarts.forEach((start, k) => {
          expect(pieces.pieceChars[k]).toBe(fromTable.decode(pieces.ids.slice(0, start)).length);
        });
      }
    }
  });

  it("decodes any run of tokens (a split character as U+FFFD, a leading BOM kept) as js-tiktoken does", () => {
    for (const encoding of ENCODINGS) {
      const table = loadCounter(encoding, ranksDir);
      const reference = new Tiktoken(require(`js-tiktoken/ranks/${encoding}`) as TiktokenBPE);
      const sentinel = reference.encode("a")[0]!;
      const ids = table.encode(`\uFEFF${MIXED}`, PLAIN);
      for (let start = 0; start < ids.length; start += 37) {
        const run = ids.slice(start, start + 1 + (start % 11));
        expect(table.decodeRun?.(run)).toBe(reference.decode([sentinel, ...run]).slice(1));
      }
    }
  });

  it("finds the same character offsets at every clean position, inside pieces too", () => {
    for (const encoding of ENCODINGS) {
      const pieces = loadCounter(encoding, ranksDir).encodePieces?.(MIXED);
      if (!pieces) throw new Error("the table's counter encodes pieces");
      const { ids, pieceStarts } = pieces;
      const withOffsets = new TokenBoundaries(encoding, MIXED, pieces);
      const byDecoding = new TokenBoundaries(encoding, MIXED, { ids, pieceStarts });
      const clean = ids.map((_, p) => p).filter((p) => byDecoding.isClean(p));
      expect(clean.length).toBeGreaterThan(pieceStarts.length);
      for (const position of clean) {
        const offset = withOffsets.charOffset(position);
        expect(offset).toBe(byDecoding.charOffset(position));
      }
    }
  });
});

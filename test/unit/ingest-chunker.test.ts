import { describe, expect, it } from "vitest";
import { chunkDocument } from "../../src/ingest/chunker.js";
import type { ChunkRecord, SourceDocument } from "../../src/types.js";
import { countTokens, encoder, encodeTokens, truncateToTokens } from "../../src/util/tokens.js";

const doc = (text: string, id = "doc-1"): SourceDocument => ({
  id,
  title: "t",
  path: null,
  text,
  metadata: {},
});
const opts = { size: 40, overlap: 8, encoding: "o200k_base" as const };

const english = Array.from(
  { length: 30 },
  (_, i) => `Sentence ${i}: the lighthouse keeper counted ${i * 7} ships passing the harbour wall.`,
).join(" ");
// Rare characters (and an emoji) that byte-level BPE splits across several tokens.
const chinese = "青岚科技的听潮芯片在澄州生产，创始人林晓舟出生于白湾镇。鬰鬱鬲鬳魑魅魍魉🎏龘靐齉。".repeat(
  12,
);

function expectExactOffsets(text: string, chunks: ChunkRecord[]) {
  for (const chunk of chunks) {
    expect(text.slice(chunk.start, chunk.end)).toBe(chunk.text);
    expect(chunk.text).not.toContain("\uFFFD");
  }
}

describe("encodeTokens", () => {
  it("gives exactly the tokens js-tiktoken decodes, for both encodings", () => {
    const mixed = `${english}\n\n  \t${chinese}\r\n<|endoftext|> it's 1234567 DON'T   stop\n`;
    for (const encoding of ["o200k_base", "cl100k_base"] as const) {
      expect(encodeTokens(mixed, encoding)).toEqual(encoder(encoding).encode(mixed, [], []));
    }
  });
});

describe("chunkDocument", () => {
  it("cuts English text into windows of at most `size` tokens with exact offsets", () => {
    const chunks = chunkDocument(doc(english), opts);
    expect(chunks.length).toBeGreaterThan(5);
    expectExactOffsets(english, chunks);
    for (const chunk of chunks) {
      expect(chunk.tokens).toBeLessThanOrEqual(opts.size);
      expect(countTokens(chunk.text)).toBeLessThanOrEqual(opts.size + 1);
    }
    expect(chunks.map((c) => c.index)).toEqual(chunks.map((_, i) => i));
  });

  it("never cuts inside a character, even where one character spans several tokens", () => {
    expect(countTokens("龘")).toBeGreaterThan(1);
    for (const size of [16, 17, 19, 23]) {
      const chunks = chunkDocument(doc(chinese), { ...opts, size, overlap: 5 });
      expectExactOffsets(chinese, chunks);
      for (const chunk of chunks) expect(chunk.tokens).toBeLessThanOrEqual(size);
    }
  });

  it("cuts between words, never inside one", () => {
    const chunks = chunkDocument(doc(english), opts);
    for (const chunk of chunks.slice(0, -1)) {
      expect(`${english[chunk.end - 1]}${english[chunk.end]}`).not.toMatch(/^[A-Za-z0-9]{2}$/);
    }
  });

  it("cuts inside a run longer than a window only between whole characters", () => {
    // No space or punctuation: one tokenizer piece of several hundred tokens.
    const run = "鬰鬱鬲鬳魑魅魍魉龘靐齉".repeat(30);
    const chunks = chunkDocument(doc(run), opts);
    expect(chunks.length).toBeGreaterThan(3);
    expectExactOffsets(run, chunks);
    for (const chunk of chunks) expect(countTokens(chunk.text)).toBeLessThanOrEqual(opts.size);
  });

  it("covers the whole text, each chunk starting inside the previous one by about the overlap", () => {
    for (const text of [english, chinese]) {
      const chunks = chunkDocument(doc(text), opts);
      expect(chunks[0]!.start).toBe(0);
      expect(chunks.at(-1)!.end).toBe(text.length);
      for (let i = 1; i < chunks.length; i += 1) {
        const previous = chunks[i - 1]!;
        const shared = text.slice(chunks[i]!.start, previous.end);
        expect(chunks[i]!.start).toBeGreaterThan(previous.start);
        expect(chunks[i]!.start).toBeLessThan(previous.end);
        // Snapping to a clean boundary moves an edge by at most a few tokens.
        expect(Math.abs(countTokens(shared) - opts.overlap)).toBeLessThanOrEqual(4);
      }
    }
  });

  it("leaves no gap and no shared text when the overlap is 0", () => {
    const chunks = chunkDocument(doc(english), { ...opts, overlap: 0 });
    expect(chunks.map((c) => c.text).join("")).toBe(english);
  });

  it("keeps ids of unchanged chunks when text elsewhere in the document is edited", () => {
    const before = chunkDocument(doc(english), { ...opts, overlap: 0 });
    const edited = `${english} An extra closing sentence about the harbour.`;
    const after = chunkDocument(doc(edited), { ...opts, overlap: 0 });
    const beforeIds = before.slice(0, -1).map((c) => c.id);
    expect(after.slice(0, beforeIds.length).map((c) => c.id)).toEqual(beforeIds);
    expect(after.at(-1)!.id).not.toBe(before.at(-1)!.id);
  });

  it("gives repeated passages and other documents distinct ids", () => {
    const repeated = "The same paragraph, word for word. ".repeat(40);
    const chunks = chunkDocument(doc(repeated), { ...opts, overlap: 0 });
    expect(new Set(chunks.map((c) => c.id)).size).toBe(chunks.length);
    const other = chunkDocument(doc(repeated, "doc-2"), { ...opts, overlap: 0 });
    expect(other[0]!.id).not.toBe(chunks[0]!.id);
  });

  it("treats special-token text in a document as plain text", () => {
    const text = "Logs contain <|endoftext|> markers sometimes.";
    const chunks = chunkDocument(doc(text), opts);
    expect(chunks.map((c) => c.text)).toEqual([text]);
  });

  it("keeps offsets exact around byte-order marks", () => {
    const text = "\uFEFFstart \uFEFF\uFEFF middle ".repeat(30);
    expectExactOffsets(text, chunkDocument(doc(text), { ...opts, size: 16, overlap: 3 }));
  });

  it("returns no chunks for an empty document", () => {
    expect(chunkDocument(doc(""), opts)).toEqual([]);
  });

  it("rejects an overlap that is not smaller than the size, saying what to change", () => {
    expect(() => chunkDocument(doc(english), { ...opts, overlap: 40 })).toThrow(
      /overlap \(40\).*smaller than the chunk size \(40\)/,
    );
  });
});

describe("truncateToTokens", () => {
  it("keeps the longest prefix of whole words that fits", () => {
    const cut = truncateToTokens(english, 25);
    expect(english.startsWith(cut)).toBe(true);
    expect(countTokens(cut)).toBeLessThanOrEqual(25);
    expect(countTokens(cut)).toBeGreaterThan(20);
    expect(`${english[cut.length - 1]}${english[cut.length]}`).not.toMatch(/^[A-Za-z0-9]{2}$/);
  });

  it("cuts a single run longer than the budget between whole characters", () => {
    const run = "鬰鬱鬲鬳魑魅魍魉龘靐齉".repeat(10);
    const cut = truncateToTokens(run, 7);
    expect(run.startsWith(cut)).toBe(true);
    expect(cut).not.toContain("\uFFFD");
    expect(countTokens(cut)).toBeLessThanOrEqual(7);
  });

  it("returns a text that fits unchanged", () => {
    expect(truncateToTokens("A short line.", 10)).toBe("A short line.");
  });
});

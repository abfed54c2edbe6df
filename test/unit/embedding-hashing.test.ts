import { describe, expect, it } from "vitest";
import { HashingEmbedder, lexicalWords } from "../../src/embedding/hashing-embedder.js";

const dot = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

describe("HashingEmbedder", () => {
  const embedder = new HashingEmbedder(256);

  it("names itself as the offline hashing embedder", () => {
    expect(embedder.kind).toBe("hashing");
    expect(embedder.model).toBe("hashing-v1");
    expect(new HashingEmbedder().dimension).toBe(512);
  });

  it("is deterministic across instances and L2-normalised", async () => {
    const text = "Marie Curie won two Nobel prizes.";
    const [a] = await embedder.embed([text]);
    const [b] = await new HashingEmbedder(256).embed([text]);
    expect(a).toEqual(b);
    expect(a).toHaveLength(256);
    expect(Math.sqrt(dot(a!, a!))).toBeCloseTo(1, 10);
  });

  it("ignores case and full-width forms", () => {
    expect(embedder.embedOne("ＧＲＡＰＨ Database")).toEqual(embedder.embedOne("graph database"));
  });

  it("puts English texts sharing words closer than unrelated ones", async () => {
    const [query, near, far] = await embedder.embed([
      "the cat sat on the mat",
      "a cat was sitting on the mat",
      "stock markets fell sharply in Tokyo",
    ]);
    expect(dot(query!, near!)).toBeGreaterThan(dot(query!, far!) + 0.3);
  });

  it("segments Chinese into words and ranks related Chinese text closer", async () => {
    expect(lexicalWords("北京大学位于北京市")).toContain("北京");
    const [query, near, far] = await embedder.embed([
      "北京大学位于北京市海淀区",
      "北京大学坐落在北京海淀",
      "今天的股票市场大幅下跌",
    ]);
    expect(dot(query!, near!)).toBeGreaterThan(dot(query!, far!) + 0.3);
  });

  it("maps text without words to the zero vector", () => {
    expect(embedder.embedOne(" ... ").every((x) => x === 0)).toBe(true);
  });

  it("rejects a nonsensical dimension", () => {
    expect(() => new HashingEmbedder(0)).toThrow(/dimension/);
  });
});

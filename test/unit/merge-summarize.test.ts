import { describe, expect, it, vi } from "vitest";
import { seededRandom } from "../../src/community/seeded-random.js";
import type { ChatModel, ChatRequest, ChatResponse } from "../../src/llm/chat-model.js";
import { centrality } from "../../src/merge/extractive-summarizer.js";
import { ExtractiveSummarizer, LlmDescriptionSummarizer } from "../../src/merge/summarize.js";
import { countTokens } from "../../src/util/tokens.js";

/** Answers each summary request with a label naming the call and how many fragments it saw. */
class CountingChat implements ChatModel {
  readonly model = "counting-double";
  readonly requests: ChatRequest[] = [];
  constructor(private readonly reply?: string) {}

  async chat(request: ChatRequest): Promise<ChatResponse> {
    this.requests.push(request);
    const fragments = promptOf(request).match(/^\d+\. /gm)?.length ?? 0;
    const text = this.reply ?? `summary ${this.requests.length} of ${fragments} fragments`;
    return { text, usage: { promptTokens: 0, completionTokens: 0 }, cached: false };
  }
}

const promptOf = (request: ChatRequest) => request.messages.map((m) => m.content).join("\n");
const subject = { kind: "entity" as const, name: "Lumora Optics" };
const fragments = Array.from(
  { length: 30 },
  (_, i) =>
    `Fragment ${i}: Lumora Optics shipped batch ${i} of Halcyon lenses to Carrow Bay in month ${i % 12}.`,
);

describe("LlmDescriptionSummarizer", () => {
  it("summarises fragments that fit the window in one 'summarize' call", async () => {
    const chat = new CountingChat();
    const summarizer = new LlmDescriptionSummarizer(chat, {
      summaryContextTokens: 12000,
      summaryMaxTokens: 600,
      language: "auto",
    });
    const summary = await summarizer.summarize(subject, fragments.slice(0, 5));
    expect(summary).toBe("summary 1 of 5 fragments");
    expect(chat.requests).toHaveLength(1);
    const [request] = chat.requests;
    expect(request!.stage).toBe("summarize");
    expect(promptOf(request!)).toContain("Lumora Optics");
    for (const fragment of fragments.slice(0, 5)) expect(promptOf(request!)).toContain(fragment);
  });

  it("map-reduces fragments that exceed the window: groups first, then their summaries", async () => {
    const chat = new CountingChat();
    const opts = { summaryContextTokens: 700, summaryMaxTokens: 60, language: "English" };
    const summary = await new LlmDescriptionSummarizer(chat, opts).summarize(subject, fragments);
    const mapCalls = chat.requests.slice(0, -1);
    expect(mapCalls.length).toBeGreaterThan(1);
    for (const fragment of fragments) {
      expect(mapCalls.filter((r) => promptOf(r).includes(fragment))).toHaveLength(1);
    }
    for (const request of chat.requests) {
      expect(countTokens(promptOf(request))).toBeLessThanOrEqual(
        opts.summaryContextTokens - opts.summaryMaxTokens,
      );
    }
    const reduce = promptOf(chat.requests.at(-1)!);
    for (let i = 1; i <= mapCalls.length; i += 1) expect(reduce).toContain(`summary ${i} of`);
    expect(reduce).toContain("English");
    expect(summary).toBe(`summary ${chat.requests.length} of ${mapCalls.length} fragments`);
  });

  it("refuses an empty answer instead of erasing the description", async () => {
    const summarizer = new LlmDescriptionSummarizer(new CountingChat("  "), {
      summaryContextTokens: 12000,
      summaryMaxTokens: 600,
      language: "auto",
    });
    await expect(summarizer.summarize(subject, fragments.slice(0, 3))).rejects.toThrow(/empty summary/);
  });
});

describe("ExtractiveSummarizer", () => {
  it("is labelled extractive and keeps every distinct sentence, in order, when they fit", async () => {
    const summarizer = new ExtractiveSummarizer({ summaryMaxTokens: 200 });
    expect(summarizer.kind).toBe("extractive");
    const summary = await summarizer.summarize(subject, [
      "Lumora Optics makes lenses. It is based in Vessen.",
      "lumora optics makes lenses.",
      "It employs 140 people.",
    ]);
    expect(summary).toBe("Lumora Optics makes lenses. It is based in Vessen. It employs 140 people.");
  });

  it("keeps the most central sentences within the token target, in first-seen order", async () => {
    const input = [
      "Lumora Optics makes Halcyon lenses in Vessen.",
      "The weather was cold that winter.",
      "Halcyon lenses from Lumora Optics are used on Gullwing drones.",
      "Lumora Optics ships Halcyon lenses to Tidewell Robotics.",
      "A cat slept on the roof.",
    ];
    const central = [input[0]!, input[2]!, input[3]!];
    const budget = central.reduce((sum, sentence) => sum + countTokens(sentence), 0) + 1;
    const summarizer = new ExtractiveSummarizer({ summaryMaxTokens: budget });
    expect(await summarizer.summarize(subject, input)).toBe(central.join(" "));
    const reversed = await summarizer.summarize(subject, [...input].reverse());
    expect(reversed).toBe([...central].reverse().join(" "));
  });

  it("handles Chinese sentences and joins them without spaces", async () => {
    const input = [
      "青岚科技位于澄州。青岚科技生产听潮芯片。",
      "今天天气很好。",
      "听潮芯片由青岚科技在澄州生产。",
    ];
    const budget = countTokens(input[0]!) + countTokens(input[2]!) + 1;
    const summary = await new ExtractiveSummarizer({ summaryMaxTokens: budget }).summarize(subject, input);
    expect(summary).toBe("青岚科技位于澄州。青岚科技生产听潮芯片。听潮芯片由青岚科技在澄州生产。");
  });

  it("puts a space between sentences of different scripts, even after Chinese punctuation", async () => {
    const input = ["澄州与洛川结为友好城市。", "Lumora Optics is based in Chengzhou.", "它生产镜头。"];
    const summary = await new ExtractiveSummarizer({ summaryMaxTokens: 1000 }).summarize(subject, input);
    expect(summary).toBe("澄州与洛川结为友好城市。 Lumora Optics is based in Chengzhou. 它生产镜头。");
  });

  it("leaves out near-duplicates of a sentence already chosen when over the target", async () => {
    const input = [
      "Lumora Optics makes Halcyon lenses in Vessen.",
      "Lumora Optics makes the Halcyon lenses in Vessen.",
      "Lumora Optics sells Halcyon lenses to drone makers.",
    ];
    const budget = countTokens(input[0]!) + countTokens(input[1]!) + countTokens(input[2]!) - 1;
    const summary = await new ExtractiveSummarizer({ summaryMaxTokens: budget }).summarize(subject, input);
    expect(summary.match(/makes/g)).toHaveLength(1);
    expect(summary).toContain("drone makers");
  });

  it("gives every description the summary a fresh process gives it, whatever was summarised before", async () => {
    // Fragments are remembered with their sentences across calls: shared fragments, in other
    // orders and beside other fragments, must still be cut, deduplicated and ranked per call.
    const shared = [
      "Lumora Optics makes Halcyon lenses in Vessen. It ships them to Tidewell Robotics.",
      "Halcyon lenses from Lumora Optics are used on Gullwing drones.",
      "lumora optics makes halcyon lenses in vessen.",
      "The weather was cold that winter.",
    ];
    const descriptions = [
      shared,
      [...shared].reverse(),
      [shared[1]!, "Tidewell Robotics builds Gullwing drones in Carrow Bay.", shared[0]!],
      [shared[2]!, shared[3]!, "Lumora Optics was founded in Vessen by Ada Marlow."],
    ];
    const budget = countTokens(shared[1]!) + 12;
    const summarizeAll = async (summarizer: ExtractiveSummarizer) => {
      const out: string[] = [];
      for (const fragmentList of descriptions) out.push(await summarizer.summarize(subject, fragmentList));
      return out;
    };
    const warm = new ExtractiveSummarizer({ summaryMaxTokens: budget });
    await summarizeAll(warm);
    const again = await summarizeAll(warm);
    // Each description summarised by a module of its own, with nothing remembered.
    const expected: string[] = [];
    for (const fragmentList of descriptions) {
      vi.resetModules();
      const fresh = await import("../../src/merge/extractive-summarizer.js");
      expected.push(
        await new fresh.ExtractiveSummarizer({ summaryMaxTokens: budget }).summarize(subject, fragmentList),
      );
    }
    expect(again).toEqual(expected);
    expect(new Set(expected).size).toBe(descriptions.length);
  });

  it("cuts a single over-long sentence to the target rather than returning nothing", async () => {
    const summarizer = new ExtractiveSummarizer({ summaryMaxTokens: 10 });
    const summary = await summarizer.summarize(subject, ["word ".repeat(100).trim()]);
    expect(summary.length).toBeGreaterThan(0);
    expect(countTokens(summary)).toBeLessThanOrEqual(10);
  });
});

describe("sentence centrality", () => {
  /** The pairwise loop the summarizer used before it counted shared words through word lists. */
  function pairwiseCentrality(sentences: { words: Set<string> }[]): number[] {
    const similarity = (a: Set<string>, b: Set<string>) => {
      if (a.size === 0 || b.size === 0) return 0;
      let shared = 0;
      for (const word of a) if (b.has(word)) shared += 1;
      return shared / Math.min(a.size, b.size);
    };
    const scores = sentences.map(() => 0);
    for (let i = 0; i < sentences.length; i += 1) {
      for (let j = i + 1; j < sentences.length; j += 1) {
        const s = similarity(sentences[i]!.words, sentences[j]!.words);
        scores[i]! += s;
        scores[j]! += s;
      }
    }
    return scores;
  }

  it("gives exactly the scores of comparing every pair, empty sentences included", () => {
    const random = seededRandom(9);
    const vocabulary = Array.from({ length: 40 }, (_, i) => `w${i}`);
    const sentences = Array.from({ length: 150 }, () => ({
      words: new Set(
        Array.from({ length: Math.floor(random() * 12) }, () => vocabulary[Math.floor(random() ** 2 * 40)]!),
      ),
    }));
    expect(sentences.some((s) => s.words.size === 0)).toBe(true);
    expect(centrality(sentences)).toEqual(pairwiseCentrality(sentences));
  });
});

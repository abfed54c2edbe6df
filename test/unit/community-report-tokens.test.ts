import { describe, expect, it } from "vitest";
import { type LineKind, TokenCounter } from "../../src/community/context-packer.js";
import { GraphIndex } from "../../src/community/graph-index.js";
import {
  buildReportContext,
  type ChildReport,
  reportTokenCounter,
} from "../../src/community/report-context.js";
import type { CommunityReport } from "../../src/types.js";
import { countTokens } from "../../src/util/tokens.js";
import { entity, relationship } from "../support/community-fake-store.js";

/** Names and descriptions that stress the tokenizers' pre-split at the id's edge. */
const NAMES = [
  "Ada Lovelace",
  "1990s",
  "'s Gravenhage",
  "李清照",
  "São Paulo",
  "|pipe",
  " spaced",
  "-dash",
  "x",
];
const TEXTS = [
  "A short description.",
  "Ends with a newline\n",
  "辛弃疾，字幼安，号稼轩。",
  "Numbers 12345 and 3.14 <SEP> a second fragment",
  "   leading spaces and 'quotes' and pipes | inside",
];

/**
 * Counting as buildReportContext first did: every line offered is counted, afresh, before it is
 * taken or turned away (no floor, no byte ceiling, no memo across communities).
 */
class EveryLineCounter extends TokenCounter {
  restCounted = 0;
  override restCount(_kind: LineKind, _key: string, rest: string): number {
    this.restCounted += 1;
    return countTokens(rest, this.encoding);
  }
  override lineFloor(): number {
    return 0;
  }
  override restCeiling(): number {
    return Number.POSITIVE_INFINITY;
  }
}

/** The run's shared counter, tallying the lines it had to count. */
class TallyCounter extends TokenCounter {
  restCounted = 0;
  override restCount(kind: LineKind, key: string, rest: string): number {
    this.restCounted += 1;
    return super.restCount(kind, key, rest);
  }
}

function report(title: string): CommunityReport {
  return {
    title,
    summary: `${title} summary`,
    rating: 5,
    ratingExplanation: "",
    findings: [{ summary: `${title} finding`, explanation: "explained [E:1]" }],
    markdown: `# ${title}`,
    method: "extractive",
  };
}

describe("report context token counting", () => {
  it("counts a table line as its id's tokens plus the rest's, in both encodings", () => {
    for (const encoding of ["o200k_base", "cl100k_base"] as const) {
      for (const id of ["E:1", "R:9", "E:10", "R:123", "E:1000", "R:99999"]) {
        for (const name of NAMES) {
          for (const text of TEXTS) {
            const rest = `|${name}|concept|${text}|${id.length}\n`;
            expect(countTokens(id + rest, encoding), `${id}${rest}`).toBe(
              countTokens(id, encoding) + countTokens(rest, encoding),
            );
          }
        }
      }
    }
  });

  it("builds the same contexts with one counter shared by a run as with whole lines counted anew", () => {
    const keys = NAMES.map((name, i) => `${i}-${name.trim().toLowerCase()}`);
    const entities = keys.map((key, i) => ({
      ...entity(key, TEXTS[i % TEXTS.length]!.repeat(1 + (i % 3))),
      name: NAMES[i]!,
    }));
    const relationships = keys.flatMap((a, i) =>
      keys.slice(i + 1).map((b, j) => relationship(a, b, 1 + ((i + j) % 4), TEXTS[(i + j) % TEXTS.length]!)),
    );
    const index = new GraphIndex(entities, relationships);
    const child: ChildReport = { id: "c1-a", entityKeys: keys.slice(0, 4), report: report("Child") };
    const communities = [
      { id: "c0-all", level: 0, entityKeys: keys, childReports: [child] },
      { id: "c1-a", level: 1, entityKeys: keys.slice(0, 4), childReports: [] },
      { id: "c1-b", level: 1, entityKeys: keys.slice(3), childReports: [] },
    ];
    for (const budget of [256, 300, 420, 8000]) {
      const shared = reportTokenCounter(budget);
      const everyLine = () => new EveryLineCounter("o200k_base", shared.maxDescriptionTokens);
      for (const { childReports, ...community } of communities) {
        const input = { community, index, childReports, budget };
        const fresh = buildReportContext({ ...input, tokens: everyLine() });
        expect(buildReportContext({ ...input, tokens: shared })).toEqual(fresh);
        expect(countTokens(fresh.text)).toBeLessThanOrEqual(budget);
      }
    }
  });

  it("counts no line of a context that fits by bytes, and turns away lines by their floor uncounted", () => {
    const keys = NAMES.map((name, i) => `${i}-${name.trim().toLowerCase()}`);
    const entities = keys.map((key, i) => ({ ...entity(key, TEXTS[i % TEXTS.length]!), name: NAMES[i]! }));
    const relationships = keys.flatMap((a, i) =>
      keys.slice(i + 1).map((b, j) => relationship(a, b, 1, TEXTS[(i + j) % TEXTS.length]!)),
    );
    const index = new GraphIndex(entities, relationships);
    const community = { id: "c0", level: 0, entityKeys: keys };
    const packed = (budget: number, tokens: TokenCounter) =>
      buildReportContext({ community, index, childReports: [], budget, tokens });

    const roomy = new TallyCounter("o200k_base", 1000);
    const all = packed(8000, roomy);
    expect(all.relationships).toHaveLength(relationships.length);
    expect(roomy.restCounted).toBe(0);
    expect(all).toEqual(packed(8000, new EveryLineCounter("o200k_base", 1000)));

    // Tight: lines are counted once the fit is in doubt, and far fewer than every line offered.
    const tight = new TallyCounter("o200k_base", 1000);
    const every = new EveryLineCounter("o200k_base", 1000);
    const few = packed(120, tight);
    expect(few).toEqual(packed(120, every));
    expect(few.omittedRelationships).toBeGreaterThan(relationships.length / 2);
    expect(tight.restCounted).toBeGreaterThan(0);
    expect(tight.restCounted).toBeLessThan(every.restCounted / 2);
  });
});

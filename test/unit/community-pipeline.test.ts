import { describe, expect, it } from "vitest";
import { communityRows } from "../../src/cli/actions/communities.js";
import { loadCommunityAliases } from "../../src/community/community-aliases.js";
import { EMBED_BATCH } from "../../src/community/embed-reports.js";
import { ExtractiveReportWriter } from "../../src/community/extractive-report-writer.js";
import { LlmReportWriter } from "../../src/community/llm-report-writer.js";
import type { ReportContext } from "../../src/community/report-context.js";
import type { ReportWriter } from "../../src/community/report-writer.js";
import type { Embedder } from "../../src/embedding/embedder.js";
import { createCommunities } from "../../src/pipeline/create-communities.js";
import { createCommunityReports } from "../../src/pipeline/create-community-reports.js";
import type { CommunityRecord } from "../../src/types.js";
import { silentProgress } from "../../src/util/progress.js";
import { ScriptedChat } from "../support/community-chat.js";
import {
  CommunityFakeStore,
  communityServices,
  entity,
  loadGraph,
  relationship,
} from "../support/community-fake-store.js";
import { blockModelGraph, joinedCliques } from "../support/community-graphs.js";

/** Wraps a writer to record the contexts it was given, in order. */
class RecordingWriter implements ReportWriter {
  readonly contexts: ReportContext[] = [];
  constructor(private readonly inner: ReportWriter = new ExtractiveReportWriter()) {}
  get kind() {
    return this.inner.kind;
  }
  async write(context: ReportContext) {
    this.contexts.push(context);
    return this.inner.write(context);
  }
}

/**
 * An extractive writer that holds one community's report until a report `releases` accepts is
 * asked for, or, failing that, until no other report has been asked for during 50 turns.
 */
class HoldingWriter implements ReportWriter {
  readonly kind = "extractive" as const;
  onEvent: (event: string) => void = () => {};
  releasedBy: string | undefined;
  private readonly inner = new ExtractiveReportWriter();
  private release: () => void = () => {};
  private readonly held: Promise<void>;
  private asked = 0;

  constructor(
    private readonly heldId: string,
    private readonly releases: (context: ReportContext) => boolean,
  ) {
    this.held = new Promise((resolve) => {
      this.release = resolve;
    });
  }

  async write(context: ReportContext) {
    this.asked += 1;
    this.onEvent(`start ${context.communityId}`);
    if (context.communityId === this.heldId) {
      void this.releaseWhenIdle();
      await this.held;
    } else if (this.releases(context)) {
      this.releaseNow("an unrelated report");
    }
    const report = await this.inner.write(context);
    this.onEvent(`end ${context.communityId}`);
    return report;
  }

  private async releaseWhenIdle() {
    let seen = -1;
    for (let idle = 0; idle < 50 && !this.releasedBy; idle = seen === this.asked ? idle + 1 : 0) {
      seen = this.asked;
      await new Promise((resolve) => setImmediate(resolve));
    }
    this.releaseNow("idle turns");
  }

  /** Lets the held report go on; the first reason is kept. */
  releaseNow(reason: string) {
    this.releasedBy ??= reason;
    this.release();
  }
}

const SETTINGS = { community: { maxClusterSize: 6, reportContextTokens: 256 } };

function setup() {
  const store = new CommunityFakeStore();
  loadGraph(store, blockModelGraph({ nodes: 60, edges: 140, blocks: 6, mixing: 0.85, seed: 4 }));
  return { store, services: communityServices(store, null, SETTINGS) };
}

async function indexCommunities(services: ReturnType<typeof setup>["services"], writer: ReportWriter) {
  const created = await createCommunities(services);
  const reports = await createCommunityReports(services, writer);
  return { created, reports };
}

describe("createCommunities + createCommunityReports", () => {
  it("stores a hierarchy in which every community gets a report and a vector", async () => {
    const { store, services } = setup();
    const { created, reports } = await indexCommunities(services, new ExtractiveReportWriter());
    expect(created.levels).toBeGreaterThan(1);
    expect(created.reused).toBe(0);
    expect(reports).toEqual({ written: store.communities.length, reused: 0 });
    for (const c of store.communities) {
      expect(c.report?.method).toBe("extractive");
      expect(c.reportHash).toBe(c.contentHash);
    }
    expect([...(store.vectors.get("communities")?.keys() ?? [])].sort()).toEqual(
      store.communities.map((c) => c.id).sort(),
    );
  });

  it("writes children before parents, and parents over budget use their children's reports", async () => {
    const { store, services } = setup();
    const writer = new RecordingWriter();
    await indexCommunities(services, writer);
    const order = writer.contexts.map((c) => c.communityId);
    for (const community of store.communities) {
      for (const child of community.childIds)
        expect(order.indexOf(child)).toBeLessThan(order.indexOf(community.id));
    }
    const substituted = writer.contexts.filter((c) => c.childReports.length > 0);
    expect(substituted.length).toBeGreaterThan(0);
    for (const context of substituted) expect(context.text).toContain(`[C:${context.childReports[0]?.id}]`);
  });

  it("starts a parent's report as soon as its own children's are done, not the whole level below", async () => {
    const { store, services } = setup();
    await createCommunities(services);
    const deepest = Math.max(...store.communities.map((c) => c.level));
    const [held, ...others] = store.communities.filter((c) => c.level === deepest);
    const ancestors = new Set<string>();
    for (let id = held?.parentId; id; id = store.communities.find((c) => c.id === id)?.parentId ?? null) {
      ancestors.add(id);
    }
    // A community above the held one's level that waits on none of it.
    const unrelated = (c: CommunityRecord) => c.level < deepest && !ancestors.has(c.id);
    expect(held && others.length > 0 && store.communities.some(unrelated)).toBe(true);
    const events: string[] = [];
    const writer = new HoldingWriter(held?.id ?? "", (context) => {
      const community = store.communities.find((c) => c.id === context.communityId);
      return community !== undefined && unrelated(community);
    });
    writer.onEvent = (event) => events.push(event);
    await createCommunityReports(services, writer);
    // Without dependencies the level barrier held every higher report until the held one ended.
    const heldEnd = events.indexOf(`end ${held?.id}`);
    const firstUnrelated = events.findIndex((e) => e.startsWith("start ") && e !== `start ${held?.id}`);
    expect(heldEnd).toBeGreaterThan(-1);
    expect(writer.releasedBy).toBe("an unrelated report");
    expect(firstUnrelated).toBeLessThan(heldEnd);
    for (const community of store.communities) {
      for (const child of community.childIds) {
        expect(events.indexOf(`end ${child}`)).toBeLessThan(events.indexOf(`start ${community.id}`));
      }
      expect(community.report).not.toBeNull();
    }
  });

  it("sends a full embedding request while later reports are written, and no more requests", async () => {
    const store = new CommunityFakeStore();
    loadGraph(store, blockModelGraph({ nodes: 240, edges: 560, blocks: 12, mixing: 0.85, seed: 4 }));
    const services = communityServices(store, null, SETTINGS);
    await createCommunities(services);
    const reports = store.communities.length;
    expect(reports).toBeGreaterThan(EMBED_BATCH);
    const top = store.communities.find((c) => c.level === 0 && c.childIds.length > 0);
    const writer = new HoldingWriter(top?.id ?? "", () => false);
    const events: string[] = [];
    writer.onEvent = (event) => events.push(event);
    const inner = services.embedder;
    const requests: number[] = [];
    services.embedder = Object.assign(Object.create(inner) as Embedder, {
      embed: (texts: string[]) => {
        requests.push(texts.length);
        events.push(`embed ${texts.length}`);
        writer.releaseNow("an embedding request");
        return inner.embed(texts);
      },
    });
    await createCommunityReports(services, writer);
    expect(writer.releasedBy).toBe("an embedding request");
    expect(events.indexOf(`embed ${EMBED_BATCH}`)).toBeLessThan(events.indexOf(`end ${top?.id}`));
    // As many requests as embedding every report after the last one: full ones, then the rest.
    expect(requests.length).toBe(Math.ceil(reports / EMBED_BATCH));
    expect(requests.slice(0, -1).every((n) => n === EMBED_BATCH)).toBe(true);
    const vectors = store.vectors.get("communities");
    for (const community of store.communities) {
      const [expected] = await inner.embed([community.report?.markdown ?? ""]);
      expect(vectors?.get(community.id)?.vector).toEqual(expected);
    }
  });

  it("rewrites no report and embeds nothing when the graph did not change", async () => {
    const { store, services } = setup();
    await indexCommunities(services, new ExtractiveReportWriter());
    const vectorsBefore = structuredClone(store.vectors.get("communities"));
    store.savedReports = [];
    const { created, reports } = await indexCommunities(services, new ExtractiveReportWriter());
    expect(created.reused).toBe(store.communities.length);
    expect(reports).toEqual({ written: 0, reused: store.communities.length });
    expect(store.savedReports).toEqual([]);
    expect(store.vectors.get("communities")).toEqual(vectorsBefore);
  });

  it("rewrites only the communities holding an entity whose description changed", async () => {
    const { store, services } = setup();
    await indexCommunities(services, new ExtractiveReportWriter());
    const deepest = [...store.communities].sort((a, b) => b.level - a.level)[0]!;
    const key = deepest.entityKeys[0]!;
    store.entities.set(key, entity(key, "A new description from a new document."));
    store.savedReports = [];
    const { reports } = await indexCommunities(services, new ExtractiveReportWriter());
    const holding = store.communities.filter((c) => c.entityKeys.includes(key)).map((c) => c.id);
    expect(holding.length).toBe(deepest.level + 1);
    expect([...store.savedReports].sort()).toEqual([...holding].sort());
    expect(reports.written).toBe(holding.length);
  });

  it("redoes offline reports once an LLM is available, but never downgrades LLM reports", async () => {
    const { store, services } = setup();
    await indexCommunities(services, new ExtractiveReportWriter());
    const chat = new ScriptedChat(
      () => '{"title":"T","summary":"S","rating":5,"rating_explanation":"","findings":[]}',
    );
    const upgraded = await createCommunityReports(services, new LlmReportWriter(chat));
    expect(upgraded.written).toBe(store.communities.length);
    expect(chat.stages().every((s) => s === "report")).toBe(true);
    const offlineAgain = await createCommunityReports(services, new ExtractiveReportWriter());
    expect(offlineAgain.written).toBe(0);
    expect(store.communities.every((c) => c.report?.method === "llm")).toBe(true);
  });

  it("keeps the id of a community that gained a member, and writes and embeds only its report again", async () => {
    const store = new CommunityFakeStore();
    loadGraph(store, joinedCliques(3, 5));
    const services = communityServices(store);
    await indexCommunities(services, new ExtractiveReportWriter());
    const before = structuredClone(store.communities);
    const vectorsBefore = structuredClone(store.vectors.get("communities"));
    loadGraph(store, [
      ["k0-1", "k0-new", 1],
      ["k0-2", "k0-new", 1],
    ]);
    store.savedReports = [];
    const { reports } = await indexCommunities(services, new ExtractiveReportWriter());

    const grown = store.communities.find((c) => c.entityKeys.includes("k0-new"))!;
    expect(grown.id).toBe(before.find((c) => c.entityKeys.includes("k0-1"))?.id);
    expect(store.savedReports).toEqual([grown.id]);
    expect(reports).toEqual({ written: 1, reused: before.length - 1 });
    expect(grown.reportHash).toBe(grown.contentHash);
    const others = (communities: CommunityRecord[]) => communities.filter((c) => c.id !== grown.id);
    expect(others(store.communities)).toEqual(others(before));
    const vectors = store.vectors.get("communities");
    expect(vectors?.get(grown.id)?.textHash).not.toBe(vectorsBefore?.get(grown.id)?.textHash);
    expect([...(vectors?.keys() ?? [])].sort()).toEqual(before.map((c) => c.id).sort());
  });

  it("re-indexing one document re-writes only the reports of the communities it touched", async () => {
    const rewrittenAfterOneDocument = async (warmStart: boolean) => {
      const store = new CommunityFakeStore();
      loadGraph(store, blockModelGraph({ nodes: 600, edges: 1800, blocks: 30, mixing: 0.7, seed: 12 }));
      const services = communityServices(store, null, { community: { maxClusterSize: 10, warmStart } });
      await indexCommunities(services, new ExtractiveReportWriter());
      // The document, re-indexed, describes n0005 anew and names a new entity beside it.
      store.entities.set("n0005", entity("n0005", "Described anew by the edited document."));
      loadGraph(store, [["n0005", "n0600", 3]]);
      const writer = new RecordingWriter();
      await indexCommunities(services, writer);
      const written = writer.contexts.map((c) => c.communityId).sort();
      const touched = store.communities
        .filter((c) => c.entityKeys.includes("n0005") || c.entityKeys.includes("n0600"))
        .map((c) => c.id)
        .sort();
      return { written, touched, total: store.communities.length };
    };
    const warm = await rewrittenAfterOneDocument(true);
    expect(warm.written).toEqual(warm.touched);
    expect(warm.written.length).toBeLessThanOrEqual(3);
    // Clustered from scratch, the same change re-writes a good part of the reports.
    const scratch = await rewrittenAfterOneDocument(false);
    expect(scratch.written.length).toBeGreaterThan(scratch.total / 4);
  });

  it("starts from the stored hierarchy, unless asked to cluster afresh", async () => {
    const store = new CommunityFakeStore();
    loadGraph(store, blockModelGraph({ nodes: 300, edges: 900, blocks: 12, mixing: 0.8, seed: 5 }));
    const withSeed = (seed: number) => communityServices(store, null, { community: { seed } });
    const members = () => store.communities.map((c) => c.entityKeys.join(","));
    await createCommunities(withSeed(1));
    const seededOne = members();
    // The graph did not change: a warm start keeps what is stored, whatever the seed.
    const warm = await createCommunities(withSeed(2));
    expect(members()).toEqual(seededOne);
    expect(warm.splits).toMatchObject({ warm: 0, fresh: 0, fellBack: 0 });
    const fresh = await createCommunities(withSeed(2), undefined, undefined, { fresh: true });
    expect(members()).not.toEqual(seededOne);
    expect(fresh.splits.kept).toBe(0);
  });

  it("says when a warm start gave way to a fresh clustering", async () => {
    const store = new CommunityFakeStore();
    const everyone = Array.from({ length: 12 }, (_, i) => `m${String(i).padStart(2, "0")}`);
    const pairs = everyone.flatMap((a, i) => everyone.slice(i + 1).map((b): [string, string] => [a, b]));
    loadGraph(
      store,
      pairs.map(([a, b]): [string, string, number] => [a, b, 1]),
    );
    const lines: string[] = [];
    const services = {
      ...communityServices(store, null, { community: { maxClusterSize: 20 } }),
      progress: { ...silentProgress, info: (line: string) => lines.push(line) },
    };
    await createCommunities(services);
    expect(store.communities).toHaveLength(1);
    // The clique's halves lose all links but one: starting from one community is a poor start.
    const half = (key: string) => everyone.indexOf(key) < 6;
    for (const [key, rel] of store.relationships) {
      if (half(rel.sourceKey) !== half(rel.targetKey) && key !== relationship("m00", "m06").key) {
        store.relationships.delete(key);
      }
    }
    const { splits } = await createCommunities(services);
    expect(splits.fellBack).toBe(1);
    expect(store.communities).toHaveLength(2);
    expect(lines.at(-1)).toMatch(/Warm start: 1 component\(s\) clustered afresh instead/);
  });

  it("remembers a merged-away id with the community that took its members", async () => {
    const store = new CommunityFakeStore();
    loadGraph(store, [...joinedCliques(1, 5, "a"), ...joinedCliques(1, 3, "b")]);
    const services = communityServices(store);
    await createCommunities(services);
    const [big, small] = store.communities;
    const everyone = [...(big?.entityKeys ?? []), ...(small?.entityKeys ?? [])];
    loadGraph(
      store,
      everyone.flatMap((a, i) => everyone.slice(i + 1).map((b): [string, string, number] => [a, b, 1])),
    );
    const { communities } = await createCommunities(services);
    expect(communities.map((c) => c.id)).toEqual([big?.id]);
    expect(await loadCommunityAliases(store)).toEqual([{ id: small?.id, successorId: big?.id }]);
  });

  it("drops the vectors of communities that no longer exist", async () => {
    const { store, services } = setup();
    await indexCommunities(services, new ExtractiveReportWriter());
    store.relationships.clear();
    await indexCommunities(services, new ExtractiveReportWriter());
    expect(store.communities).toEqual([]);
    expect(store.vectors.get("communities")?.size).toBe(0);
  });

  it("lists the hierarchy as rows for `kgrag communities --json`", async () => {
    const { store, services } = setup();
    await indexCommunities(services, new ExtractiveReportWriter());
    const rows = communityRows(store.communities, 1);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      const record = store.communities.find((c) => c.id === row.id)!;
      expect(row).toEqual({
        id: record.id,
        level: 1,
        parent: record.parentId,
        children: record.childIds,
        size: record.entityKeys.length,
        title: record.report?.title,
        rating: record.report?.rating,
      });
    }
  });
});

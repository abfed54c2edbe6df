import { expect, it } from "vitest";
import { ExtractiveReportWriter } from "../../src/community/extractive-report-writer.js";
import { ConfigSchema } from "../../src/config.js";
import { HashingEmbedder } from "../../src/embedding/hashing-embedder.js";
import { UsageTracker } from "../../src/llm/usage.js";
import { entityKey } from "../../src/merge/keys.js";
import { createCommunities } from "../../src/pipeline/create-communities.js";
import { createCommunityReports } from "../../src/pipeline/create-community-reports.js";
import { GraphReads } from "../../src/server/graph/graph-reads.js";
import type { KgragServices } from "../../src/services.js";
import type { GraphStore } from "../../src/storage/graph-store.js";
import type { CommunityRecord } from "../../src/types.js";
import { silentProgress } from "../../src/util/progress.js";
import { mergeChunk, type StoreOf, seedDocument } from "./storage-fixtures.js";

const ALPHAS = ["Alpha", "Beta", "Gamma", "Delta"];
const KILOS = ["Kilo", "Lima", "Mike"];

const everyPair = (names: string[]): [string, string][] =>
  names.flatMap((a, i) => names.slice(i + 1).map((b): [string, string] => [a, b]));

async function addDocument(store: GraphStore, docId: string, names: string[], pairs = everyPair(names)) {
  const [chunk] = await seedDocument(store, docId, [`${names.join(", ")} met.`]);
  await mergeChunk(store, chunk?.id ?? "", names, pairs);
}

function servicesOf(store: GraphStore): KgragServices {
  return {
    config: ConfigSchema.parse({}),
    store,
    embedder: new HashingEmbedder(32),
    chat: null,
    usage: new UsageTracker(),
    progress: silentProgress,
  };
}

/** Re-clusters and writes the missing reports, as an index run's last steps do. */
async function recluster(store: GraphStore): Promise<CommunityRecord[]> {
  const services = servicesOf(store);
  await createCommunities(services);
  await createCommunityReports(services, new ExtractiveReportWriter());
  return store.listCommunities();
}

const holding = (communities: CommunityRecord[], name: string) =>
  communities.find((c) => c.entityKeys.includes(entityKey(name)));

/** Community ids across re-clusterings (id-continuity.ts), through each adapter's reads and metadata. */
export function describeCommunityIdContinuity(storeOf: StoreOf): void {
  it("keeps a community's id when it gains a member and answers a merged-away id with its successor", async () => {
    const store = storeOf();
    await addDocument(store, "d1", ALPHAS);
    await addDocument(store, "d2", KILOS);
    const first = await recluster(store);
    const alphas = holding(first, "Alpha");
    const kilos = holding(first, "Kilo");
    expect(first).toHaveLength(2);

    // Echo joins the Alphas; an unrelated group appears.
    await addDocument(
      store,
      "d3",
      ["Alpha", "Beta", "Echo"],
      [
        ["Alpha", "Echo"],
        ["Beta", "Echo"],
      ],
    );
    await addDocument(store, "d4", ["Xray", "Yankee", "Zulu"]);
    const second = await recluster(store);
    const grown = holding(second, "Echo");
    expect(grown?.id).toBe(alphas?.id);
    expect(grown?.entityKeys).toEqual([...(alphas?.entityKeys ?? []), entityKey("Echo")].sort());
    // Its members changed, so its report was written again; the Kilos' was kept.
    expect(grown?.reportHash).toBe(grown?.contentHash);
    expect(grown?.contentHash).not.toBe(alphas?.contentHash);
    expect(holding(second, "Kilo")).toEqual(kilos);
    const newcomer = holding(second, "Xray");
    expect(newcomer?.id).toMatch(/^c0-[0-9a-f]{12}$/);
    expect(first.map((c) => c.id)).not.toContain(newcomer?.id);

    // A document relates all of them to each other: one community, under the larger side's id.
    await addDocument(store, "d5", [...ALPHAS, "Echo", ...KILOS]);
    const third = await recluster(store);
    expect(holding(third, "Kilo")?.id).toBe(alphas?.id);
    expect(third.map((c) => c.id).sort()).toEqual([alphas?.id, newcomer?.id].sort());

    const reads = new GraphReads(store);
    const moved = await reads.community(kilos?.id ?? "");
    expect(moved).toMatchObject({ movedFrom: kilos?.id, community: { id: alphas?.id } });
    expect(moved?.members).toContain("Kilo");
    expect(await reads.community(alphas?.id ?? "")).not.toHaveProperty("movedFrom");
    expect(await reads.community("c0-000000000000")).toBeUndefined();
  });
}

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createKgrag, type Kgrag } from "../../src/kgrag.js";
import { extractGraph } from "../../src/pipeline/extract-graph.js";
import { settleGraph } from "../../src/pipeline/index-workflow.js";
import { registerDocuments } from "../../src/pipeline/register-documents.js";
import type { GraphStore } from "../../src/storage/graph-store.js";
import type { SourceDocument } from "../../src/types.js";

const DOCUMENTS: SourceDocument[] = Array.from({ length: 6 }, (_, i) => ({
  id: `doc-${i}`,
  title: `Report ${i}`,
  path: null,
  metadata: {},
  text:
    `Ada Lovelace worked with Charles Babbage in London on the Analytical Engine ${i}. ` +
    `Babbage lectured in Turin, where Luigi Menabrea wrote about the engine. ` +
    `Mary Somerville introduced Lovelace to Babbage at a party in London.`,
}));

/**
 * The store seen as another kind, recording the order of its vector and community writes. With
 * `holdRelationshipVectors`, relationship vector writes wait until the communities are written (or
 * 3 s went by): a pipeline that waits for those vectors before clustering then records them first.
 * Every other call goes to the real store unchanged.
 */
function recordingStore(
  store: GraphStore,
  kind: GraphStore["kind"],
  events: string[],
  holdRelationshipVectors: boolean,
): GraphStore {
  let communitiesWritten: () => void = () => {};
  const communities = new Promise<void>((resolve) => {
    communitiesWritten = resolve;
    setTimeout(resolve, 3000).unref();
  });
  return new Proxy(store, {
    get(target, property) {
      if (property === "kind") return kind;
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (property === "upsertVectors") {
        return async (...args: Parameters<GraphStore["upsertVectors"]>) => {
          events.push(`vectors ${args[0]} start`);
          if (holdRelationshipVectors && args[0] === "relationships") await communities;
          await value.apply(target, args);
          events.push(`vectors ${args[0]} end`);
        };
      }
      if (property === "replaceCommunities") {
        return async (...args: Parameters<GraphStore["replaceCommunities"]>) => {
          events.push("communities start");
          await value.apply(target, args);
          events.push("communities end");
          communitiesWritten();
        };
      }
      return value.bind(target);
    },
  });
}

let dir: string | undefined;
let kg: Kgrag | undefined;
afterEach(async () => {
  await kg?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function settleAs(kind: GraphStore["kind"], holdRelationshipVectors: boolean): Promise<string[]> {
  dir = await mkdtemp(join(tmpdir(), "kgrag-settle-order-"));
  kg = await createKgrag({ env: {}, config: { workspace: dir } });
  await registerDocuments(kg.services, DOCUMENTS);
  await extractGraph(
    kg.services,
    kg.components.extractor,
    DOCUMENTS.map((d) => d.id),
  );
  const events: string[] = [];
  const services = {
    ...kg.services,
    store: recordingStore(kg.services.store, kind, events, holdRelationshipVectors),
  };
  await settleGraph(services, kg.components, true);
  return events;
}

describe("settleGraph: vectors beside communities", () => {
  it("on Neo4j writes chunk and entity vectors before the communities, relationship vectors beside them", async () => {
    const events = await settleAs("neo4j", true);
    const communitiesAt = events.indexOf("communities start");
    expect(events.slice(0, communitiesAt)).toContain("vectors entities end");
    expect(events.slice(0, communitiesAt)).toContain("vectors chunks end");
    expect(events.slice(communitiesAt).some((e) => /vectors (entities|chunks)/.test(e))).toBe(false);
    // The relationship vectors, held until the communities were written, did not hold them up.
    expect(events.indexOf("communities end")).toBeLessThan(events.indexOf("vectors relationships end"));
    expect(events.indexOf("vectors relationships start")).toBeGreaterThan(
      events.lastIndexOf("vectors entities end"),
    );
  });

  it("on the embedded store does not hold the communities for any vector", async () => {
    const events = await settleAs("sqlite", true);
    expect(events.indexOf("communities end")).toBeLessThan(events.indexOf("vectors relationships end"));
    expect(events).toContain("vectors entities end");
  });
});

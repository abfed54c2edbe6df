import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, type MockInstance, vi } from "vitest";
import { createKgrag, type Kgrag } from "../../src/kgrag.js";
import { UnknownDocumentError } from "../../src/pipeline/document-metadata.js";
import { Neo4jGraphStore } from "../../src/storage/neo4j/neo4j-store.js";
import type { SourceDocumentInput } from "../../src/types.js";
import { childEnv } from "../support/cli-child.js";
import { graphSnapshot } from "../support/graph-snapshot.js";
import { liveNeo4j, skipReason } from "../support/live-neo4j.js";

const docs = (porto: Record<string, string>, faro: Record<string, string>): SourceDocumentInput[] => [
  {
    id: "porto",
    title: "Porto",
    text: "Ines Varga repairs clocks in Porto.",
    metadata: porto,
  },
  { id: "faro", title: "Faro", text: "Tomas Reis sells boats in Faro.", metadata: faro },
];

/** Metadata-only updates on Neo4j, as test/unit/document-metadata-update.test.ts does them on SQLite. */
describe.skipIf(!liveNeo4j)(
  `metadata-only document updates on Neo4j (${liveNeo4j ? "live" : skipReason})`,
  () => {
    let root: string;
    let kg: Kgrag;
    let extract: MockInstance;

    beforeAll(async () => {
      if (!liveNeo4j) return;
      root = mkdtempSync(join(tmpdir(), "kgrag-neo4j-meta-"));
      kg = await createKgrag({
        env: {
          ...childEnv(),
          KGRAG_STORAGE: "neo4j",
          NEO4J_URI: liveNeo4j.uri,
          NEO4J_USERNAME: liveNeo4j.username,
          NEO4J_PASSWORD: liveNeo4j.password,
        },
        config: { workspace: join(root, "meta"), community: { enabled: false } },
      });
      await kg.index(docs({ team: "clocks" }, { team: "boats" }));
      extract = vi.spyOn(kg.components.extractor, "extract");
    }, 120_000);

    afterAll(async () => {
      if (!liveNeo4j) return;
      const { store } = kg.services;
      if (store instanceof Neo4jGraphStore) await store.deleteWorkspace();
      await kg.close();
      rmSync(root, { recursive: true, force: true });
    });

    const chunksOf = async (docId: string) =>
      new Set((await kg.services.store.listChunks(docId)).map((c) => c.id));
    const inScope = (metadata: Record<string, string>) => kg.services.store.chunkIdsInScope({ metadata });

    it("re-indexing with changed metadata updates the records in place; the filters see only the new values", async () => {
      const before = await graphSnapshot(kg.services.store);
      const summary = await kg.index(docs({ team: "repairs" }, { team: "boats" }));
      expect(extract).not.toHaveBeenCalled();
      expect(summary.metadataUpdated).toEqual(["porto"]);
      expect(summary.unchanged).toEqual(["faro"]);
      expect(summary.embedding.requests).toBe(0);
      expect(await graphSnapshot(kg.services.store)).toEqual(before);
      expect((await kg.services.store.getDocument("porto"))?.metadata).toEqual({ team: "repairs" });
      expect(await inScope({ team: "repairs" })).toEqual(await chunksOf("porto"));
      expect((await inScope({ team: "clocks" })).size).toBe(0);
      const scoped = await kg.query("Who repairs clocks?", {
        mode: "naive",
        contextOnly: true,
        metadata: { team: "repairs" },
      });
      expect(new Set(scoped.references.map((r) => r.docId))).toEqual(new Set(["porto"]));
    });

    it("kg.updateDocumentMetadata sets and removes keys in place; an unknown id changes nothing", async () => {
      const updated = await kg.updateDocumentMetadata("faro", { team: null, harbour: "south" });
      expect(updated.metadata).toEqual({ harbour: "south" });
      expect((await kg.services.store.getDocument("faro"))?.metadata).toEqual({ harbour: "south" });
      expect(await inScope({ harbour: "south" })).toEqual(await chunksOf("faro"));
      expect((await inScope({ team: "boats" })).size).toBe(0);
      await expect(kg.updateDocumentMetadata("nope", { team: "x" })).rejects.toThrow(UnknownDocumentError);
      expect(extract).not.toHaveBeenCalled();
      const recorded = (await kg.services.store.listHistory("faro")).filter((e) => e.kind === "document");
      expect(recorded).toMatchObject([
        {
          action: "update",
          oldDescription: JSON.stringify({ harbour: null, team: "boats" }),
          newDescription: JSON.stringify({ harbour: "south", team: null }),
          cause: expect.stringMatching(/^metadata set harbour; removed team by /),
        },
      ]);
    });
  },
);

import { afterEach, beforeEach, describe } from "vitest";
import type { GraphStore } from "../../src/storage/graph-store.js";
import { describeCommunityIdContinuity } from "./storage-contract-community-ids.js";
import { describeGraphReads, describeMerge, describeScopeAndDelete } from "./storage-contract-graph.js";
import { describeNeighbourhoodReads } from "./storage-contract-neighbourhood.js";
import {
  describeChunks,
  describeCommunitiesCacheHistory,
  describeMetaAndDocuments,
} from "./storage-contract-records.js";
import { describeRelationshipText } from "./storage-contract-relationship-text.js";
import { describeFullText, describeVectors } from "./storage-contract-search.js";

/**
 * The behaviour every GraphStore adapter must share. Each test gets a fresh, empty store from
 * `makeStore`; `cleanup` runs before the store is closed (e.g. to drop a Neo4j workspace).
 */
export function describeStorageContract(
  name: string,
  makeStore: () => Promise<GraphStore>,
  cleanup?: (store: GraphStore) => Promise<void>,
): void {
  describe(`GraphStore contract: ${name}`, () => {
    let store: GraphStore;

    beforeEach(async () => {
      store = await makeStore();
    });

    afterEach(async () => {
      if (cleanup) await cleanup(store);
      await store.close();
    });

    const context = () => store;
    describeMetaAndDocuments(context);
    describeChunks(context);
    describeMerge(context);
    describeGraphReads(context);
    describeNeighbourhoodReads(context);
    describeVectors(context);
    describeFullText(context);
    describeRelationshipText(context);
    describeScopeAndDelete(context);
    describeCommunitiesCacheHistory(context);
    describeCommunityIdContinuity(context);
  });
}

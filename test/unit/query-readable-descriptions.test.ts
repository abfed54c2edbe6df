import { afterEach, describe, expect, it } from "vitest";
import { DESCRIPTION_SEPARATOR, entityKey } from "../../src/merge/keys.js";
import { runQuery } from "../../src/query/query-engine.js";
import { changes } from "../support/storage-fixtures.js";
import { buildFixture, type Fixture, MULTI_HOP } from "./query-fixture.js";

const QUESTION = "Where does the director of the film Big Stone Gap live?";

let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

describe("a query result's readable descriptions", () => {
  it("show each stored fragment on its own line, and an edited description at the next query", async () => {
    fixture = await buildFixture(MULTI_HOP);
    const { store } = fixture.services;
    const key = entityKey("Adriana Trigiani");
    const descriptionOf = async () => {
      const result = await runQuery(fixture!.services, QUESTION, { mode: "mix", contextOnly: true });
      return result.context.entities.find((e) => e.name === "Adriana Trigiani")?.description;
    };
    const setDescription = async (description: string) => {
      const [record] = await store.getEntities([key]);
      if (!record) throw new Error("no entity");
      await store.applyGraphChanges(changes({ upsertEntities: [{ ...record, description }] }));
    };

    await setDescription(["A  novelist.", "Lives in\nGreenwich Village."].join(DESCRIPTION_SEPARATOR));
    expect(await descriptionOf()).toBe("A novelist.\nLives in Greenwich Village.");
    // The same stored text again reads the same; a changed one reads as changed.
    expect(await descriptionOf()).toBe("A novelist.\nLives in Greenwich Village.");
    await setDescription(["A novelist.", "Moved to Big Stone Gap."].join(DESCRIPTION_SEPARATOR));
    expect(await descriptionOf()).toBe("A novelist.\nMoved to Big Stone Gap.");
  });
});

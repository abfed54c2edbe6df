import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DESCRIPTION_SEPARATOR } from "../../src/merge/keys.js";
import type { Job } from "../../src/server/jobs/job-types.js";
import { parseApiKeys } from "../../src/server/server-config.js";
import type { SourceDocumentInput } from "../../src/types.js";
import {
  HARBOUR_DOCS,
  heldJobRunner,
  json,
  offlineWorkspace,
  type Running,
  readEvents,
  removeAll,
  startServer,
  tempDir,
} from "../support/server.js";

/** A firm under its full name and its initials, in two documents (the offline extractor keeps both). */
const NORTHWIND_DOCS: SourceDocumentInput[] = [
  {
    id: "northwind",
    title: "Northwind Trading Company",
    text:
      "The Northwind Trading Company was founded by Ada Quill in Bristol in 1820. " +
      "The Northwind Trading Company shipped tea from Canton.\n\n" +
      "Years later the Northwind Trading Company opened an office in Leeds.",
  },
  {
    id: "ntc",
    title: "NTC",
    text: "NTC merchants sailed from Bristol. Ada Quill ran NTC for thirty years.",
  },
];

type EntityView = { key: string; name: string; type: string; description: string; aliases: string[] };

const dirs: string[] = [];
let running: Running;

beforeAll(async () => {
  const root = await tempDir("entities-api");
  dirs.push(root);
  await offlineWorkspace(join(root, "northwind"), NORTHWIND_DOCS);
  running = await startServer({ workspaces: [join(root, "northwind")] });
}, 60_000);

afterAll(async () => {
  await running?.stop();
  await removeAll(dirs);
});

const send = (method: string, path: string, body?: unknown) =>
  fetch(`${running.url}${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
const post = (path: string, body: unknown) => send("POST", path, body);
const get = (path: string) => send("GET", path);
const q = (params: Record<string, string>) => new URLSearchParams(params).toString();

const library = () => running.server.context.registry.all[0]!.kgrag;

async function entityOf(response: Response): Promise<EntityView> {
  expect(response.status).toBe(200);
  return ((await response.json()) as { entity: EntityView }).entity;
}

async function finished(jobId: string): Promise<Job> {
  const events = await readEvents(await fetch(`${running.url}/api/v1/jobs/${jobId}/events`));
  return events.at(-1)?.data as Job;
}

describe("kgrag serve: entity curation", () => {
  it("publishes the curation routes in the OpenAPI document", async () => {
    const openapi = await json(await get("/openapi.json"));
    expect(Object.keys(openapi.paths as object)).toEqual(
      expect.arrayContaining([
        "/api/v1/entities/merge",
        "/api/v1/entities/rename",
        "/api/v1/entities/edit",
        "/api/v1/entities/split",
        "/api/v1/entities",
        "/api/v1/relationships",
        "/api/v1/entities/duplicates",
        "/api/v1/entities/history",
      ]),
    );
    const paths = openapi.paths as Record<string, Record<string, { requestBody?: unknown }>>;
    expect(paths["/api/v1/entities"]?.post?.requestBody).toBeDefined();
  });

  it("merges under a surviving name, finds the entity by its alias, and keeps the merge through a re-index job", async () => {
    const entity = await entityOf(
      await post("/api/v1/entities/merge", {
        names: ["NTC", "Northwind Trading Company"],
        into: "Northwind Trading Company",
        by: "carol",
      }),
    );
    expect(entity).toMatchObject({ key: "northwind trading company", name: "Northwind Trading Company" });
    expect(entity.aliases).toEqual(["NTC"]);
    const byAlias = await json(await get(`/api/v1/graph/entity?${q({ name: "NTC" })}`));
    expect((byAlias.entity as { name: string }).name).toBe("Northwind Trading Company");

    const reindex = await post("/api/v1/documents/ntc/reindex", {});
    expect(reindex.status).toBe(202);
    const job = await finished(((await reindex.json()) as { job: Job }).job.id);
    expect(job).toMatchObject({ status: "done", errors: [] });
    const all = await library().entities.list();
    expect(all.map((e) => e.key)).not.toContain("ntc");
    expect(all.find((e) => e.key === "northwind trading company")?.aliases).toEqual(["NTC"]);
    const history = (await json(await get(`/api/v1/entities/history?${q({ name: "NTC" })}`))).items as {
      cause: string;
      at: string;
    }[];
    expect(history.some((h) => /merge ntc into northwind trading company by carol/.test(h.cause))).toBe(true);
  }, 60_000);

  it("refuses bad input with the library's codes, changing nothing", async () => {
    const before = { entities: await library().entities.list(), rules: await library().entities.rules() };
    const refused = async (response: Response, status: number, code: string, message?: RegExp) => {
      expect(response.status).toBe(status);
      const { error } = (await response.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe(code);
      if (message) expect(error.message).toMatch(message);
    };
    await refused(await post("/api/v1/entities/merge", { names: ["Bristol"] }), 400, "bad_request", /names/);
    await refused(
      await post("/api/v1/entities/merge", { names: ["Bristol", "bristol"] }),
      400,
      "bad_request",
      /name one entity/,
    );
    await refused(
      await post("/api/v1/entities/merge", { names: ["Bristol", "Leeds"], into: "Ada Quill" }),
      400,
      "bad_request",
      /"Ada Quill" is not among the entities merged/,
    );
    await refused(
      await post("/api/v1/entities/edit", { entity: "Bristol", description: "" }),
      400,
      "bad_request",
      /description/,
    );
    await refused(
      await post("/api/v1/entities/merge", { names: ["Bristol", "Nobody Here"] }),
      404,
      "not_found",
      /Nobody Here/,
    );
    await refused(
      await post("/api/v1/entities/merge", { names: ["Bristol", "Leeds"], nmae: "x" }),
      400,
      "bad_request",
      /nmae/,
    );
    await refused(
      await post("/api/v1/entities/rename", { entity: "Bristol", name: "leeds" }),
      409,
      "name_taken",
      /Leeds/,
    );
    await refused(
      await post("/api/v1/entities/rename", { entity: "Ada Quill", name: "NTC" }),
      409,
      "name_taken",
    );
    await refused(
      await post("/api/v1/entities/rename", { entity: "Bristol", name: "  " }),
      400,
      "bad_request",
    );
    await refused(await post("/api/v1/entities/edit", { entity: "Bristol" }), 400, "bad_request", /type/);
    await refused(
      await post("/api/v1/entities/split", { entity: "Bristol", alias: "Leeds" }),
      400,
      "bad_request",
      /not an alias/,
    );
    await refused(
      await post("/api/v1/relationships", { source: "Bristol", target: "bristol", description: "Itself." }),
      400,
      "bad_request",
      /two different/,
    );
    await refused(
      await post("/api/v1/relationships", { source: "Bristol", target: "Leeds", description: " " }),
      400,
      "bad_request",
      /description/,
    );
    await refused(
      await send("DELETE", `/api/v1/relationships?${q({ source: "Leeds", target: "Canton" })}`),
      404,
      "not_found",
      /No relationship/,
    );
    await refused(await send("DELETE", `/api/v1/entities?${q({ name: "Atlantis" })}`), 404, "not_found");
    const notJson = await fetch(`${running.url}/api/v1/entities/rename`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    await refused(notJson, 400, "bad_json");
    await refused(
      await fetch(`${running.url}/api/v1/entities/rename`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-kgrag-workspace": "elsewhere" },
        body: JSON.stringify({ entity: "Bristol", name: "Bristol City" }),
      }),
      404,
      "workspace_not_found",
    );
    expect(await library().entities.list()).toEqual(before.entities);
    expect(await library().entities.rules()).toEqual(before.rules);
  });

  it("renames, edits and splits an alias back out", async () => {
    const renamed = await entityOf(
      await post("/api/v1/entities/rename", { entity: "Ada Quill", name: "Ada M. Quill" }),
    );
    expect(renamed).toMatchObject({ key: "ada quill", name: "Ada M. Quill" });
    // The graph views find a renamed entity under its new name.
    const shown = await json(await get(`/api/v1/graph/entity?${q({ name: "Ada M. Quill" })}`));
    expect((shown.entity as { name: string }).name).toBe("Ada M. Quill");

    const edited = await entityOf(
      await post("/api/v1/entities/edit", {
        entity: "Leeds",
        type: "City",
        description: "A city in Yorkshire.",
      }),
    );
    expect(edited).toMatchObject({ type: "city", description: "A city in Yorkshire." });

    const split = await entityOf(
      await post("/api/v1/entities/split", { entity: "Northwind Trading Company", alias: "NTC" }),
    );
    expect(split).toMatchObject({ key: "ntc", aliases: [] });
    const firm = (await library().entities.get("Northwind Trading Company")).aliases ?? [];
    expect(firm).not.toContain("NTC");
    const history = (await json(await get(`/api/v1/entities/history?${q({ name: "Leeds" })}`))).items as {
      cause: string;
    }[];
    expect(history.some((h) => /edit by api$/.test(h.cause))).toBe(true);
  });

  it("refuses a relationship strength outside 1-10 with a 400 naming the field, adding nothing", async () => {
    const link = { source: "Ada Quill", target: "Leeds", description: "Ada Quill opened the Leeds office." };
    for (const strength of [1e308, 11, 0]) {
      const refused = await post("/api/v1/relationships", { ...link, strength });
      expect(refused.status).toBe(400);
      const { error } = (await refused.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe("bad_request");
      expect(error.message).toMatch(/strength: strength must be from 1 to 10/);
    }
    expect(await library().entities.rules()).not.toContainEqual(
      expect.objectContaining({ kind: "add-relationship" }),
    );
  });

  it("adds a relationship with a description, deletes it, and deletes an entity", async () => {
    const added = await post("/api/v1/relationships", {
      source: "Ada M. Quill",
      target: "Leeds",
      description: "Ada Quill opened the Leeds office.",
      keywords: ["office"],
      strength: 3,
    });
    expect(added.status).toBe(201);
    const { relationship } = (await added.json()) as {
      relationship: { source: string; target: string; description: string; keywords: string[] };
    };
    expect(relationship).toMatchObject({
      description: "Ada Quill opened the Leeds office.",
      keywords: ["office"],
    });
    expect([relationship.source, relationship.target].sort()).toEqual(["Ada M. Quill", "Leeds"]);
    const between = () => get(`/api/v1/graph/relationship?${q({ source: "Ada M. Quill", target: "Leeds" })}`);
    expect((await json(await between())).relationship).toMatchObject({
      description: "Ada Quill opened the Leeds office.",
    });

    const unlinked = await send(
      "DELETE",
      `/api/v1/relationships?${q({ source: "Leeds", target: "Ada M. Quill" })}`,
    );
    expect(unlinked.status).toBe(200);
    expect((await between()).status).toBe(404);

    const deleted = await send("DELETE", `/api/v1/entities?${q({ name: "Canton" })}`);
    expect(deleted.status).toBe(200);
    expect(await json(deleted)).toEqual({ deleted: { key: "canton", name: "Canton" } });
    expect((await get(`/api/v1/graph/entity?${q({ name: "Canton" })}`)).status).toBe(404);
    expect((await library().entities.list()).map((e) => e.key)).not.toContain("canton");
  });

  it("makes an entity by hand, found by search and with its neighbourhood, and refuses a taken or empty name", async () => {
    const made = await post("/api/v1/entities", {
      name: "Canton Tea Board",
      type: "Organization",
      description: "The board that graded Canton tea for export.",
      by: "dana",
    });
    expect(made.status).toBe(201);
    const { entity } = (await made.json()) as { entity: EntityView & { passages: number } };
    expect(entity).toMatchObject({
      key: "canton tea board",
      name: "Canton Tea Board",
      type: "organization",
      description: "The board that graded Canton tea for export.",
      aliases: [],
      passages: 0,
    });
    const found = await json(await get(`/api/v1/graph/entities?${q({ q: "graded tea export" })}`));
    expect((found.items as { name: string }[]).map((i) => i.name)).toContain("Canton Tea Board");
    expect(
      (
        await post("/api/v1/relationships", {
          source: "Canton Tea Board",
          target: "Bristol",
          description: "It shipped to Bristol.",
        })
      ).status,
    ).toBe(201);
    const around = await json(await get(`/api/v1/graph/neighbourhood?${q({ name: "Canton Tea Board" })}`));
    expect(JSON.stringify(around)).toContain("Bristol");
    const history = await library().entities.history("Canton Tea Board");
    expect(history[0]).toMatchObject({ action: "create", cause: "create entity by dana" });

    const rules = await library().entities.rules();
    const taken = await post("/api/v1/entities", { name: "bristol", description: "A port." });
    expect(taken.status).toBe(409);
    expect(((await taken.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: "name_taken",
      message: expect.stringMatching(/"bristol" already names another entity \("Bristol"/),
    });
    const empty = await post("/api/v1/entities", { name: " ", description: "Nothing." });
    expect(empty.status).toBe(400);
    expect((await post("/api/v1/entities", { name: "Leeds Office" })).status).toBe(400);
    expect(await library().entities.rules()).toEqual(rules);
  });

  it("shows merged descriptions readable, one fragment a line, in every graph and curation view", async () => {
    const { store } = library().services;
    const merged = (await store.listEntities()).find((e) => e.description.includes(DESCRIPTION_SEPARATOR));
    expect(merged).toBeDefined();
    const lines = (stored: string) =>
      stored
        .split(DESCRIPTION_SEPARATOR)
        .map((f) => f.trim())
        .join("\n");
    const expected = lines(merged!.description);

    const shown = await json(await get(`/api/v1/graph/entity?${q({ name: merged!.name })}`));
    expect((shown.entity as EntityView).description).toBe(expected);
    const search = await json(await get(`/api/v1/graph/entities?${q({ prefix: merged!.key })}`));
    expect((search.items as EntityView[]).find((e) => e.name === merged!.name)?.description).toBe(expected);
    const renamed = await entityOf(
      await post("/api/v1/entities/rename", { entity: merged!.key, name: merged!.name }),
    );
    expect(renamed.description).toBe(expected);

    // A description given by hand for an extracted relationship is a second fragment.
    const [extracted] = await store.listRelationships();
    const [source, target] = await Promise.all(
      [extracted!.sourceKey, extracted!.targetKey].map((k) => library().entities.get(k)),
    );
    const ends = { source: source!.name, target: target!.name };
    const added = await post("/api/v1/relationships", { ...ends, description: "Told by hand." });
    const [edge] = await store.getRelationships([extracted!.key]);
    expect(edge?.description).toContain(DESCRIPTION_SEPARATOR);
    const readable = lines(edge!.description);
    expect(((await added.json()) as { relationship: { description: string } }).relationship.description).toBe(
      readable,
    );
    const between = await json(await get(`/api/v1/graph/relationship?${q(ends)}`));
    expect((between.relationship as { description: string }).description).toBe(readable);
    const around = await get(`/api/v1/graph/neighbourhood?${q({ name: source!.name })}`);
    expect(await around.text()).not.toContain(DESCRIPTION_SEPARATOR);
    const history = await get(`/api/v1/entities/history?${q({ name: merged!.name })}`);
    expect(await history.text()).not.toContain(DESCRIPTION_SEPARATOR);
    // The OpenAPI document says so where descriptions are shown.
    const paths = (await json(await get("/openapi.json"))).paths as Record<
      string,
      Record<string, { description?: string }>
    >;
    for (const path of ["/api/v1/graph/entity", "/api/v1/graph/relationship", "/api/v1/entities/history"]) {
      expect(paths[path]?.get?.description).toContain("one fragment a line");
    }
    expect(paths["/api/v1/query"]?.post?.description).toContain("one fragment a line");
  });

  it("lists duplicate candidates with their evidence", async () => {
    const response = await get("/api/v1/entities/duplicates?limit=5");
    expect(response.status).toBe(200);
    const body = (await response.json()) as { items: unknown[]; total: number };
    expect(body.items).toEqual(
      await library()
        .entities.duplicates()
        .then((all) => all.slice(0, 5)),
    );
    expect(body.total).toBe((await library().entities.duplicates()).length);
  });
});

describe("kgrag serve: curation with keys, workspaces and a running job", () => {
  const ADMIN = "admin-key-0000000001";
  const HARBOUR_ONLY = "harbour-key-00000001";
  let guarded: Running;
  let release: () => void = () => {};

  beforeAll(async () => {
    const root = await tempDir("entities-guarded");
    dirs.push(root);
    await offlineWorkspace(join(root, "atlas"), NORTHWIND_DOCS);
    await offlineWorkspace(join(root, "harbour"), HARBOUR_DOCS);
    // Jobs stay running until the test releases them: a curation request meets a job in progress.
    const held = heldJobRunner();
    release = held.release;
    const { runner } = held;
    guarded = await startServer({
      workspaces: [join(root, "atlas"), join(root, "harbour")],
      runner,
      server: { apiKeys: parseApiKeys(`${ADMIN},${HARBOUR_ONLY}=harbour`) },
    });
  }, 60_000);

  afterAll(async () => {
    release();
    await guarded?.stop();
  });

  const call = (path: string, body: unknown, key?: string, workspace?: string) =>
    fetch(`${guarded.url}${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(workspace ? { "x-kgrag-workspace": workspace } : {}),
      },
      body: JSON.stringify(body),
    });
  const harbour = () => guarded.server.context.registry.all.find((w) => w.id === "harbour")!.kgrag;
  const atlas = () => guarded.server.context.registry.all.find((w) => w.id === "atlas")!.kgrag;

  it("needs a key, and a key only curates its own workspaces, recorded as who made the edit", async () => {
    const rename = { entity: "Osric Venn", name: "Osric Venn the Elder" };
    expect((await call("/api/v1/entities/rename", rename)).status).toBe(401);
    const made = { name: "Harbour Guild", description: "Keepers of the harbour." };
    expect((await call("/api/v1/entities", made)).status).toBe(401);
    expect((await call("/api/v1/entities", made, HARBOUR_ONLY, "atlas")).status).toBe(403);
    expect((await call("/api/v1/entities/rename", rename, HARBOUR_ONLY, "atlas")).status).toBe(403);
    const atlasBefore = await atlas().entities.list();
    const done = await call("/api/v1/entities/rename", rename, HARBOUR_ONLY);
    expect(((await done.json()) as { entity: EntityView }).entity.name).toBe("Osric Venn the Elder");
    const history = await harbour().entities.history("Osric Venn the Elder");
    expect(history.some((h) => h.cause === "rename by api key 2")).toBe(true);
    expect(await atlas().entities.list()).toEqual(atlasBefore);
  });

  it("answers 409 while a job runs in the workspace, and curates again once it ended", async () => {
    const queued = await call(
      "/api/v1/documents/texts",
      { documents: [{ text: "Harbour Light was painted white by Osric Venn." }] },
      ADMIN,
      "harbour",
    );
    expect(queued.status).toBe(202);
    const { job } = (await queued.json()) as { job: Job };
    const before = await harbour().entities.rules();
    const busy = await call("/api/v1/entities/edit", { entity: "Vessen", type: "town" }, ADMIN, "harbour");
    expect(busy.status).toBe(409);
    const { error } = (await busy.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe("workspace_busy");
    expect(error.message).toContain(job.id);
    expect(await harbour().entities.rules()).toEqual(before);
    // The other workspace has no job: its curation goes on.
    expect(
      (await call("/api/v1/entities/edit", { entity: "Leeds", type: "city" }, ADMIN, "atlas")).status,
    ).toBe(200);

    release();
    const jobs = guarded.server.context.registry.all.find((w) => w.id === "harbour")!.jobs;
    await jobs.idle();
    const edited = await call("/api/v1/entities/edit", { entity: "Vessen", type: "town" }, ADMIN, "harbour");
    expect(edited.status).toBe(200);
    expect(((await edited.json()) as { entity: EntityView }).entity.type).toBe("town");
  });
});

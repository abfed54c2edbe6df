import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../src/server/jobs/job-types.js";
import { parseApiKeys } from "../../src/server/server-config.js";
import {
  HARBOUR_DOCS,
  heldJobRunner,
  json,
  offlineWorkspace,
  type Running,
  removeAll,
  startServer,
  tempDir,
} from "../support/server.js";

/** PATCH /api/v1/documents/:id: a document's metadata edited in place, with the write routes' rules. */
const ADMIN = "admin-key-0000000001";
const HARBOUR_ONLY = "harbour-key-00000001";
const dirs: string[] = [];
let running: Running;
let release: () => void = () => {};

beforeAll(async () => {
  const root = await tempDir("doc-meta");
  dirs.push(root);
  const withTeam = HARBOUR_DOCS.map((d) => ({ ...d, metadata: { team: "lights" } }));
  await offlineWorkspace(join(root, "atlas"), withTeam);
  await offlineWorkspace(join(root, "harbour"), withTeam);
  // Jobs stay running until the test releases them: an edit meets a job in progress.
  const held = heldJobRunner();
  release = held.release;
  const { runner } = held;
  running = await startServer({
    workspaces: [join(root, "atlas"), join(root, "harbour")],
    runner,
    server: { apiKeys: parseApiKeys(`${ADMIN},${HARBOUR_ONLY}=harbour`) },
  });
}, 60_000);

afterAll(async () => {
  release();
  await running?.stop();
  await removeAll(dirs);
});

const send = (method: string, path: string, body: unknown, key?: string, workspace?: string) =>
  fetch(`${running.url}${path}`, {
    method,
    headers: {
      "content-type": "application/json",
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(workspace ? { "x-kgrag-workspace": workspace } : {}),
    },
    body: JSON.stringify(body),
  });
const patch = (id: string, body: unknown, key = ADMIN, workspace = "harbour") =>
  send("PATCH", `/api/v1/documents/${id}`, body, key, workspace);
const kgragOf = (id: string) => running.server.context.registry.all.find((w) => w.id === id)!.kgrag;
const metadataOf = async (workspace: string) =>
  (await kgragOf(workspace).services.store.getDocument("harbour"))?.metadata;

describe("PATCH /api/v1/documents/:id", () => {
  it("needs a key, and a key only edits its own workspaces", async () => {
    expect((await patch("harbour", { metadata: { team: "x" } }, "")).status).toBe(401);
    expect((await patch("harbour", { metadata: { team: "x" } }, HARBOUR_ONLY, "atlas")).status).toBe(403);
    expect(await metadataOf("atlas")).toEqual({ team: "lights" });
  });

  it("sets and removes keys in place; the query filters see the new values", async () => {
    const response = await patch(
      "harbour",
      { metadata: { team: "beacons", year: 1890, old: null } },
      HARBOUR_ONLY,
    );
    expect(response.status).toBe(200);
    const { document } = (await json(response)) as { document: { id: string; metadata: object } };
    expect(document).toMatchObject({ id: "harbour", metadata: { team: "beacons", year: 1890 } });
    expect(await metadataOf("harbour")).toEqual({ team: "beacons", year: 1890 });
    const removed = await patch("harbour", { metadata: { year: null } });
    expect(((await json(removed)) as { document: { metadata: object } }).document.metadata).toEqual({
      team: "beacons",
    });
    // Both edits are in the workspace history, by the key that made them or the name given.
    const named = await patch("harbour", { metadata: { team: "lamps" }, by: "dora" }, HARBOUR_ONLY);
    expect(named.status).toBe(200);
    const history = await send("GET", "/api/v1/entities/history", undefined, ADMIN, "harbour");
    const { items } = (await json(history)) as { items: { kind: string; key: string; cause: string }[] };
    expect(items.filter((e) => e.kind === "document")).toEqual([
      expect.objectContaining({ key: "harbour", cause: "metadata set team, year by api key 2" }),
      expect.objectContaining({ key: "harbour", cause: "metadata removed year by api key 1" }),
      expect.objectContaining({ key: "harbour", cause: "metadata set team by dora" }),
    ]);
    const restored = await patch("harbour", { metadata: { team: "beacons" } });
    expect(restored.status).toBe(200);

    const query = (team: string) =>
      send(
        "POST",
        "/api/v1/query",
        { question: "Who built Harbour Light?", mode: "naive", contextOnly: true, metadata: { team } },
        ADMIN,
        "harbour",
      );
    const found = (await json(await query("beacons"))) as { references: { docId: string }[] };
    expect(found.references.map((r) => r.docId)).toContain("harbour");
    expect((await query("lights")).status).toBe(400);
    // The other workspace is untouched.
    expect(await metadataOf("atlas")).toEqual({ team: "lights" });
  });

  it("answers 404 for an unknown document and 400 for a bad body, changing nothing", async () => {
    const before = await metadataOf("harbour");
    const missing = await patch("nope", { metadata: { team: "x" } });
    expect(missing.status).toBe(404);
    expect(((await json(missing)) as { error: { code: string } }).error.code).toBe("not_found");
    for (const body of [
      { metadata: { team: ["x"] } },
      { metadata: { team: { a: 1 } } },
      { metadata: {} },
      { metadata: { source: "elsewhere" } },
      { metadata: { team: "x" }, title: "other" },
      { team: "x" },
    ]) {
      const response = await patch("harbour", body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(((await json(response)) as { error: { code: string } }).error.code).toBe("bad_request");
    }
    expect(await metadataOf("harbour")).toEqual(before);
  });

  it("answers 409 while a job runs in the workspace, and is in the OpenAPI document", async () => {
    const queued = await send(
      "POST",
      "/api/v1/documents/texts",
      { documents: [{ text: "Vessen is a town." }] },
      ADMIN,
      "harbour",
    );
    expect(queued.status).toBe(202);
    const { job } = (await json(queued)) as { job: Job };
    const before = await metadataOf("harbour");
    const busy = await patch("harbour", { metadata: { team: "x" } });
    expect(busy.status).toBe(409);
    const { error } = (await json(busy)) as { error: { code: string; message: string } };
    expect(error.code).toBe("workspace_busy");
    expect(error.message).toContain(job.id);
    expect(await metadataOf("harbour")).toEqual(before);
    release();
    await running.server.context.registry.all.find((w) => w.id === "harbour")!.jobs.idle();
    expect((await patch("harbour", { metadata: { team: "x" } })).status).toBe(200);

    const openapi = (await json(
      await fetch(`${running.url}/openapi.json`, { headers: { authorization: `Bearer ${ADMIN}` } }),
    )) as { paths: Record<string, Record<string, unknown>> };
    expect(openapi.paths["/api/v1/documents/{id}"]).toHaveProperty("patch");
  });
});

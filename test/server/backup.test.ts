import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createKgrag } from "../../src/kgrag.js";
import { parseApiKeys } from "../../src/server/server-config.js";
import { BackupError, restoreWorkspace } from "../../src/workspace/backup.js";
import { servedMarkerName } from "../../src/workspace/served-marker.js";
import { childEnv } from "../support/cli-child.js";
import {
  ATLAS_DOCS,
  HARBOUR_DOCS,
  json,
  offlineWorkspace,
  type Running,
  removeAll,
  startServer,
  tempDir,
} from "../support/server.js";

const ADMIN = "admin-key-123";
const HARBOUR_ONLY = "harbour-key-456";

const dirs: string[] = [];
let root: string;
let running: Running;

beforeAll(async () => {
  root = await tempDir("backup-api");
  dirs.push(root);
  await offlineWorkspace(join(root, "atlas"), ATLAS_DOCS);
  await offlineWorkspace(join(root, "harbour"), HARBOUR_DOCS);
  running = await startServer({
    workspaces: [join(root, "atlas"), join(root, "harbour")],
    server: { apiKeys: parseApiKeys(`${ADMIN},${HARBOUR_ONLY}=harbour`) },
  });
}, 60_000);

afterAll(async () => {
  await running?.stop();
  await removeAll(dirs);
});

/** The server's temporary backup folders. */
const downloads = () => readdirSync(tmpdir()).filter((name) => name.startsWith("kgrag-backup-download-"));

const download = (key?: string, workspace?: string) =>
  fetch(`${running.url}/api/v1/backup${workspace ? `?workspace=${workspace}` : ""}`, {
    headers: key ? { authorization: `Bearer ${key}` } : {},
  });

describe("kgrag serve: GET /api/v1/backup", () => {
  it("is published in the OpenAPI document", async () => {
    const openapi = await json(
      await fetch(`${running.url}/openapi.json`, { headers: { authorization: `Bearer ${ADMIN}` } }),
    );
    expect(Object.keys(openapi.paths as object)).toContain("/api/v1/backup");
  });

  it("needs a key that reaches the workspace", async () => {
    expect((await download()).status).toBe(401);
    expect((await download(HARBOUR_ONLY, "atlas")).status).toBe(403);
  });

  it("sends a backup file that kgrag restore turns back into the workspace, leaving no file behind", async () => {
    const tempBefore = downloads();
    // Written after the server opened the workspace: the backup reads the file as it is now.
    writeFileSync(
      join(root, "atlas", "kgrag.config.json"),
      JSON.stringify({ llm: { apiKey: "sk-atlas-secret", model: "m" } }),
    );
    const response = await download(ADMIN, "atlas");
    const body = Buffer.from(await response.arrayBuffer());
    expect(body.toString("latin1")).not.toContain("sk-atlas-secret");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-disposition")).toMatch(
      /^attachment; filename="atlas-\d{8}-\d{6}\.kgrag-backup"$/,
    );
    const file = join(root, "atlas.kgrag-backup");
    writeFileSync(file, body);
    const target = join(root, "atlas-restored");
    await restoreWorkspace(file, target);
    const copy = await createKgrag({ env: {}, config: { workspace: target } });
    try {
      expect((await copy.status()).documents.map((d) => d.id).sort()).toEqual(["lumen", "porto"]);
    } finally {
      await copy.close();
    }
    // The workspace's config file comes back without its secrets.
    expect(readFileSync(join(target, "kgrag.config.json"), "utf8")).not.toContain("sk-atlas-secret");
    expect(JSON.parse(readFileSync(join(target, "kgrag.config.json"), "utf8"))).toEqual({
      llm: { model: "m" },
    });
    // The server's copy is removed once sent (a moment after the client has read it all).
    await vi.waitFor(() => expect(downloads()).toEqual(tempBefore), { timeout: 10_000 });
  });
});

describe("kgrag serve --config FILE in the workspace: GET /api/v1/backup", () => {
  it("leaves out the secrets of the config file the server was started with", async () => {
    const workspace = join(root, "given-config");
    await offlineWorkspace(workspace, ATLAS_DOCS);
    mkdirSync(join(workspace, "conf"));
    const given = join(workspace, "conf", "serve.json");
    writeFileSync(
      given,
      JSON.stringify({ neo4j: { uri: "bolt://127.0.0.1:1", password: "neo-serve-secret" } }),
    );
    const withConfig = await startServer({ workspaces: [workspace], env: childEnv({ KGRAG_CONFIG: given }) });
    try {
      const response = await fetch(`${withConfig.url}/api/v1/backup`);
      expect(response.status).toBe(200);
      const body = Buffer.from(await response.arrayBuffer());
      expect(body.toString("latin1")).not.toContain("neo-serve-secret");
      const file = join(root, "given-config.kgrag-backup");
      writeFileSync(file, body);
      const target = join(root, "given-config-restored");
      await restoreWorkspace(file, target);
      expect(JSON.parse(readFileSync(join(target, "conf", "serve.json"), "utf8"))).toEqual({
        neo4j: { uri: "bolt://127.0.0.1:1" },
      });
    } finally {
      await withConfig.stop();
    }
  });
});

describe("kgrag restore over a served workspace", () => {
  it("refuses while the server runs, naming it, and ignores the mark a killed server left", async () => {
    const atlas = join(root, "atlas");
    const file = join(root, "served.kgrag-backup");
    writeFileSync(file, Buffer.from(await (await download(ADMIN, "atlas")).arrayBuffer()));
    const refused = restoreWorkspace(file, atlas, { force: true });
    await expect(refused).rejects.toBeInstanceOf(BackupError);
    await expect(refused).rejects.toThrow(
      new RegExp(
        `is served by kgrag serve \\(pid ${process.pid} on .*${running.url}\\): stop the server first`,
      ),
    );
    // The server still answers from its workspace, which the refused restore left in place.
    expect((await download(ADMIN, "atlas")).status).toBe(200);
    // A server killed without cleaning up leaves its mark behind: a process no longer running.
    const copy = join(root, "atlas-copy");
    await restoreWorkspace(file, copy);
    const gone = spawnSync(process.execPath, ["-e", ""]).pid;
    const mark = { pid: gone, host: hostname(), url: "http://127.0.0.1:1", since: new Date().toISOString() };
    writeFileSync(join(copy, servedMarkerName(gone)), JSON.stringify(mark));
    await restoreWorkspace(file, copy, { force: true });
    expect(existsSync(join(copy, servedMarkerName(gone)))).toBe(false);
  });
});

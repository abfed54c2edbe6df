import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  watch,
  writeFileSync,
} from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createKgrag, type Kgrag } from "../../src/kgrag.js";
import { SCHEMA_VERSION, SCHEMA_VERSION_KEY } from "../../src/storage/sqlite/schema.js";
import { processStartTime } from "../../src/util/process-alive.js";
import { BackupError, restoreWorkspace } from "../../src/workspace/backup.js";
import { WorkspaceBusyError, withWorkspaceLock } from "../../src/workspace/lock.js";
import { activeServers, markServed, servedMarkerName } from "../../src/workspace/served-marker.js";
import { runMain } from "../support/cli-in-process.js";

let root: string;
let source: string;
let kg: Kgrag;

const DOCS = Array.from({ length: 12 }, (_, i) => ({
  id: `doc-${i}`,
  title: `Town ${i}`,
  text: `Ines Varga${i} repairs clocks in Porto${i}. Tomas Reis${i} sells clocks in Lisbon${i}.`,
}));

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), "kgrag-backup-"));
  source = join(root, "source");
  mkdirSync(join(source, "server", "uploads"), { recursive: true });
  mkdirSync(join(source, "server", "job-inputs"), { recursive: true });
  writeFileSync(join(source, "kgrag.config.json"), JSON.stringify({ chunking: { size: 300 } }));
  writeFileSync(join(source, "server", "uploads", "notes.md"), "# Notes\n");
  writeFileSync(join(source, "server", "jobs.json"), "[]");
  writeFileSync(join(source, "server", "job-inputs", "job.json"), "{}");
  kg = await createKgrag({ env: {}, config: { workspace: source } });
  await kg.index(DOCS.slice(0, 2), { communities: false });
});

afterEach(async () => {
  await kg.close();
  rmSync(root, { recursive: true, force: true });
});

/** Every file under `dir`, relative, `/`-separated. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

describe("kg.backup and restoreWorkspace", () => {
  it("copies the workspace while it is being indexed, and restores a workspace that opens whole", async () => {
    const file = join(root, "ws.kgrag-backup");
    // The index run's writes go on between the backup's steps: the copy is one snapshot anyway.
    const indexing = kg.index(DOCS.slice(2), { communities: false });
    const summary = await kg.backup(file);
    await indexing;
    expect(summary.files).toEqual(["kgrag.config.json", "server/uploads/notes.md"]);
    expect(summary.schemaVersion).toBe(SCHEMA_VERSION);
    // One self-contained file: no journal beside it.
    expect(readdirSync(root).filter((name) => name.startsWith("ws.kgrag-backup"))).toEqual([
      "ws.kgrag-backup",
    ]);

    const target = join(root, "restored");
    const restored = await restoreWorkspace(file, target);
    expect(restored).toMatchObject({ workspace: target, schemaVersion: SCHEMA_VERSION });
    // The config file and the uploads come back; the server's job queue and the backup's own tables do not.
    expect(filesUnder(target)).toEqual(["kgrag.config.json", "kgrag.sqlite", "server/uploads/notes.md"]);
    expect(readFileSync(join(target, "kgrag.config.json"), "utf8")).toBe(
      JSON.stringify({ chunking: { size: 300 } }),
    );
    const db = new Database(join(target, "kgrag.sqlite"), { readonly: true });
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'kgrag_backup%'").all();
    db.close();
    expect(tables).toEqual([]);

    const copy = await createKgrag({ env: {}, config: { workspace: target } });
    try {
      const status = await copy.status();
      // A state the index run passed through: whole documents, each with its chunks and graph.
      expect(status.documents.length).toBeGreaterThanOrEqual(2);
      expect(status.documents.every((d) => DOCS.some((doc) => doc.id === d.id))).toBe(true);
      const answer = await copy.query("Who repairs clocks in Porto0?", { mode: "local" });
      expect(answer.references.length).toBeGreaterThan(0);
      // It is a workspace like any other: it takes more documents.
      await copy.index([{ id: "faro", title: "Faro", text: "Rosa Lima builds boats in Faro." }], {
        communities: false,
      });
      expect((await copy.entities.list("Rosa Lima")).length).toBe(1);
    } finally {
      await copy.close();
    }
  });

  it("refuses a folder that is not empty unless forced, and replaces it when forced", async () => {
    const file = join(root, "ws.kgrag-backup");
    await kg.backup(file);
    await expect(kg.backup(file)).rejects.toThrow(/exists; give --force/);
    const target = join(root, "busy");
    mkdirSync(target);
    writeFileSync(join(target, "keep.txt"), "mine");
    await expect(restoreWorkspace(file, target)).rejects.toThrow(/is not empty; give --force/);
    expect(filesUnder(target)).toEqual(["keep.txt"]);
    // --force replaces a kgrag workspace only: a project or home folder given by mistake is kept.
    await expect(restoreWorkspace(file, target, { force: true })).rejects.toThrow(
      /is not a kgrag workspace \(no kgrag\.sqlite in it\): --force replaces a workspace only/,
    );
    expect(filesUnder(target)).toEqual(["keep.txt"]);
    writeFileSync(join(target, "kgrag.sqlite"), "");
    await restoreWorkspace(file, target, { force: true });
    expect(filesUnder(target)).toEqual(["kgrag.config.json", "kgrag.sqlite", "server/uploads/notes.md"]);
    // A backup lying inside the workspace it would replace is refused, not deleted with it.
    const inside = join(target, "inside.kgrag-backup");
    writeFileSync(inside, readFileSync(file));
    await expect(restoreWorkspace(inside, target, { force: true })).rejects.toThrow(
      /inside.kgrag-backup lies inside .*busy, which the restore would replace: move the backup out/,
    );
    expect(existsSync(inside)).toBe(true);
    rmSync(inside);
    // Nothing of the restore is left beside it.
    expect(readdirSync(root).sort()).toEqual(["busy", "source", "ws.kgrag-backup"]);
  });

  it("holds the target's writer lock through a forced restore, and refuses a target being written", async () => {
    const file = join(root, "ws.kgrag-backup");
    await kg.backup(file);
    const target = join(root, "held");
    await restoreWorkspace(file, target);
    // The lock folder appears in the target while the restore runs (inotify records it however briefly).
    const seen: string[] = [];
    const watcher = watch(target, (_event, name) => name && seen.push(name));
    try {
      await restoreWorkspace(file, target, { force: true });
      await vi.waitFor(() => expect(seen).toContain("kgrag.lock"), { timeout: 5_000 });
    } finally {
      watcher.close();
    }
    expect(filesUnder(target)).toEqual(["kgrag.config.json", "kgrag.sqlite", "server/uploads/notes.md"]);
    await withWorkspaceLock(target, async () => {
      await expect(restoreWorkspace(file, target, { force: true })).rejects.toBeInstanceOf(
        WorkspaceBusyError,
      );
    });
    expect(filesUnder(target)).toEqual(["kgrag.config.json", "kgrag.sqlite", "server/uploads/notes.md"]);
  });

  it("leaves the config file's secrets out of the backup, at any depth, and says so", async () => {
    const config = {
      chunking: { size: 300 },
      llm: { apiKey: "sk-llm-secret", maxOutputTokens: 900 },
      embedding: { apiKey: "sk-embed-secret", apiKeyEnv: "EMBED_KEY" },
      neo4j: { password: "neo-secret" },
      extra: [{ accessToken: "tok-secret", name: "kept" }],
    };
    writeFileSync(join(source, "kgrag.config.json"), JSON.stringify(config));
    const file = join(root, "ws.kgrag-backup");
    const summary = await kg.backup(file);
    const leftOut = ["llm.apiKey", "embedding.apiKey", "neo4j.password", "extra.0.accessToken"];
    expect(summary.secretsLeftOut).toEqual(leftOut);
    const bytes = readFileSync(file).toString("latin1");
    for (const secret of ["sk-llm-secret", "sk-embed-secret", "neo-secret", "tok-secret"]) {
      expect(bytes).not.toContain(secret);
    }
    const db = new Database(file, { readonly: true });
    const fact = db.prepare("SELECT value FROM kgrag_backup WHERE key = 'secretsLeftOut'").pluck().get();
    db.close();
    expect(JSON.parse(String(fact))).toEqual(leftOut);
    const target = join(root, "restored");
    await restoreWorkspace(file, target);
    expect(JSON.parse(readFileSync(join(target, "kgrag.config.json"), "utf8"))).toEqual({
      chunking: { size: 300 },
      llm: { maxOutputTokens: 900 },
      embedding: { apiKeyEnv: "EMBED_KEY" },
      neo4j: {},
      extra: [{ name: "kept" }],
    });
  });

  it("leaves out the secrets of a config file given by path that lies in the workspace, whatever its name", async () => {
    mkdirSync(join(source, "conf"));
    const given = join(source, "conf", "prod.json");
    writeFileSync(
      given,
      JSON.stringify({
        chunking: { size: 300 },
        neo4j: { uri: "bolt://127.0.0.1:1", password: "neo-prod-secret" },
      }),
    );
    const withGiven = await createKgrag({ env: { KGRAG_CONFIG: given }, config: { workspace: source } });
    const file = join(root, "given.kgrag-backup");
    try {
      const summary = await withGiven.backup(file);
      expect(summary.files).toContain("conf/prod.json");
      expect(summary.secretsLeftOut).toEqual(["conf/prod.json: neo4j.password"]);
    } finally {
      await withGiven.close();
    }
    expect(readFileSync(file).toString("latin1")).not.toContain("neo-prod-secret");
    const target = join(root, "restored");
    await restoreWorkspace(file, target);
    expect(JSON.parse(readFileSync(join(target, "conf", "prod.json"), "utf8"))).toEqual({
      chunking: { size: 300 },
      neo4j: { uri: "bolt://127.0.0.1:1" },
    });
  });

  it("leaves backups out of a backup written inside its own workspace", async () => {
    writeFileSync(join(source, "old.kgrag-backup"), "an earlier backup");
    writeFileSync(join(source, "stale.kgrag-backup.partial-0a1b2c3d"), "an interrupted one");
    const inside = join(source, "ws.bak");
    const summary = await kg.backup(inside);
    expect(summary.files).toEqual(["kgrag.config.json", "server/uploads/notes.md"]);
    // Written again over itself: neither the old file nor the one being written is copied in.
    const again = await kg.backup(inside, { force: true });
    expect(again.files).toEqual(["kgrag.config.json", "server/uploads/notes.md"]);
  });

  it("gives back the space of the backup's files in the restored database", async () => {
    writeFileSync(join(source, "server", "uploads", "big.bin"), Buffer.alloc(512 * 1024, 7));
    const file = join(root, "ws.kgrag-backup");
    await kg.backup(file);
    const target = join(root, "restored");
    await restoreWorkspace(file, target);
    expect(readFileSync(join(target, "server", "uploads", "big.bin")).length).toBe(512 * 1024);
    const db = new Database(join(target, "kgrag.sqlite"), { readonly: true });
    const free = db.pragma("freelist_count", { simple: true });
    db.close();
    expect(free).toBe(0);
  });

  it("restores several files, read one row at a time rather than all loaded at once", async () => {
    const uploads = join(source, "server", "uploads");
    mkdirSync(join(uploads, "deep", "er"), { recursive: true });
    const written: Record<string, Buffer> = {
      "server/uploads/a.bin": Buffer.from([0, 1, 2, 255, 254]),
      "server/uploads/deep/er/b.txt": Buffer.from("nested\n"),
      "server/uploads/empty.txt": Buffer.alloc(0),
      "server/uploads/z.bin": Buffer.alloc(64 * 1024, 3),
    };
    for (const [path, content] of Object.entries(written)) writeFileSync(join(source, path), content);
    const file = join(root, "ws.kgrag-backup");
    await kg.backup(file);
    // better-sqlite3's statements share one prototype: a restore that loads every file row with
    // .all() holds all uploads in memory at once.
    const probe = new Database(":memory:");
    const statement = Object.getPrototypeOf(probe.prepare("SELECT 1")) as { all: () => unknown[] };
    probe.close();
    const all = vi.spyOn(statement, "all");
    const target = join(root, "restored");
    try {
      const restored = await restoreWorkspace(file, target);
      expect(restored.files).toEqual(
        ["kgrag.config.json", "server/uploads/notes.md", ...Object.keys(written)].sort(),
      );
      const fileRowsLoaded = all.mock.contexts.filter((context) =>
        String((context as { source?: unknown }).source).includes("kgrag_backup_files"),
      );
      expect(fileRowsLoaded).toEqual([]);
    } finally {
      all.mockRestore();
    }
    for (const [path, content] of Object.entries(written)) {
      expect(readFileSync(join(target, ...path.split("/")))).toEqual(content);
    }
    expect(readFileSync(join(target, "server", "uploads", "notes.md"), "utf8")).toBe("# Notes\n");
  });

  it("refuses a newer schema, a file that is no backup and a file outside the workspace, leaving the target as it was", async () => {
    const file = join(root, "ws.kgrag-backup");
    await kg.backup(file);
    const target = join(root, "target");
    mkdirSync(target);
    writeFileSync(join(target, "keep.txt"), "mine");
    writeFileSync(join(target, "kgrag.sqlite"), "");
    const edited = (name: string, sql: string) => {
      const copy = join(root, name);
      writeFileSync(copy, readFileSync(file));
      const db = new Database(copy);
      db.exec(sql);
      db.close();
      return copy;
    };
    const newer = edited(
      "newer.kgrag-backup",
      `UPDATE meta SET value = '${SCHEMA_VERSION + 1}' WHERE key = '${SCHEMA_VERSION_KEY}'`,
    );
    const escaping = edited(
      "escaping.kgrag-backup",
      "INSERT INTO kgrag_backup_files (path, content) VALUES ('../outside.txt', x'00')",
    );
    writeFileSync(join(root, "notes.txt"), "not a backup");
    const refusals: [string, RegExp][] = [
      [
        newer,
        new RegExp(
          `schema version ${SCHEMA_VERSION + 1}, newer than this kgrag supports \\(${SCHEMA_VERSION}\\): upgrade kgrag`,
        ),
      ],
      [escaping, /a file outside the workspace \("\.\.\/outside\.txt"\)/],
      [
        edited(
          "backslash.kgrag-backup",
          "INSERT INTO kgrag_backup_files VALUES ('up\\..\\..\\x.txt', x'00')",
        ),
        /a file outside the workspace \("up\\\\..\\\\..\\\\x\.txt"\)/,
      ],
      ...[
        "kgrag.sqlite-wal",
        "kgrag.sqlite-journal",
        "kgrag.lock/owner.json",
        "vectors/ann.bin",
        "kgrag.served.4242.json",
      ].map((path): [string, RegExp] => [
        edited(
          `${path.replace(/\W/g, "_")}.kgrag-backup`,
          `INSERT INTO kgrag_backup_files VALUES ('${path}', x'00')`,
        ),
        new RegExp(`holds "${path.replace(/\./g, "\\.")}", which no backup keeps`),
      ]),
      [join(root, "notes.txt"), /is not a kgrag backup/],
      [join(source, "kgrag.sqlite"), /is not a kgrag backup \(made by kgrag backup\)/],
      [join(root, "missing.kgrag-backup"), /No backup file/],
    ];
    for (const [backup, message] of refusals) {
      const refused = restoreWorkspace(backup, target, { force: true });
      await expect(refused).rejects.toThrow(message);
      await expect(refused).rejects.toBeInstanceOf(BackupError);
      expect(filesUnder(target)).toEqual(["keep.txt", "kgrag.sqlite"]);
    }
    expect(existsSync(join(root, "outside.txt"))).toBe(false);
    expect(readdirSync(root).filter((name) => name.startsWith("."))).toEqual([]);
  });
});

describe("restoreWorkspace over a workspace kgrag serve marks as served", () => {
  /** Writes the mark a server with this pid on this host (or `facts`' host) would keep in `workspace`. */
  function markAs(workspace: string, pid: number, facts: { host?: string; started?: string } = {}): string {
    const marker = join(workspace, servedMarkerName(pid));
    const by = {
      pid,
      host: hostname(),
      url: `http://127.0.0.1:${pid}`,
      since: new Date().toISOString(),
      ...facts,
    };
    writeFileSync(marker, JSON.stringify(by));
    return marker;
  }

  it("keeps refusing while a second server runs after the first stopped, and backs up no mark", async () => {
    const file = join(root, "ws.kgrag-backup");
    const target = join(root, "restored");
    const unmark = markServed([source], "http://127.0.0.1:1");
    try {
      expect((await kg.backup(file)).files).toEqual(["kgrag.config.json", "server/uploads/notes.md"]);
    } finally {
      unmark();
    }
    await restoreWorkspace(file, target);
    // Two servers of one workspace: this process and another running one (the test's parent).
    expect(process.ppid).toBeGreaterThan(1);
    const other = markAs(target, process.ppid);
    const stopFirst = markServed([target], "http://127.0.0.1:2");
    expect(activeServers(target).map((s) => s.pid)).toEqual(
      expect.arrayContaining([process.pid, process.ppid]),
    );
    stopFirst();
    expect(existsSync(join(target, servedMarkerName(process.pid)))).toBe(false);
    const refused = restoreWorkspace(file, target, { force: true });
    await expect(refused).rejects.toBeInstanceOf(BackupError);
    await expect(refused).rejects.toThrow(
      `is served by kgrag serve (pid ${process.ppid} on ${hostname()}, http://127.0.0.1:${process.ppid})`,
    );
    await expect(refused).rejects.toThrow(`Its marker is ${other}: if no server runs`);
    // Deleting the named file is the way out the message gives.
    rmSync(other);
    await restoreWorkspace(file, target, { force: true });
  });

  it("records the server's start time and ignores a mark whose pid another process has now", async () => {
    const unmark = markServed([source], "http://127.0.0.1:5");
    try {
      const started = processStartTime(process.pid);
      expect(started).toMatch(/^(proc|ps):\S/);
      expect(JSON.parse(readFileSync(join(source, servedMarkerName(process.pid)), "utf8"))).toMatchObject({
        started,
      });
      expect(activeServers(source).map((s) => s.pid)).toEqual([process.pid]);
    } finally {
      unmark();
    }
    const file = join(root, "ws.kgrag-backup");
    await kg.backup(file);
    const target = join(root, "restored");
    await restoreWorkspace(file, target);
    // This process's pid, but a start time of an earlier process that had it: that server is gone.
    markAs(target, process.pid, { started: "proc:1" });
    expect(activeServers(target)).toEqual([]);
    await restoreWorkspace(file, target, { force: true });
  });

  it("refuses over a mark from another host, naming the host and the file to delete when no server runs there", async () => {
    const file = join(root, "ws.kgrag-backup");
    await kg.backup(file);
    const target = join(root, "restored");
    await restoreWorkspace(file, target);
    // A pid that runs nowhere here: on another host it cannot be checked, so it is not taken as stale.
    const marker = markAs(target, 999_999_999, { host: "elsewhere.example", started: "proc:42" });
    expect(activeServers(target)).toMatchObject([{ host: "elsewhere.example", otherHost: true }]);
    const refused = restoreWorkspace(file, target, { force: true });
    await expect(refused).rejects.toBeInstanceOf(BackupError);
    await expect(refused).rejects.toThrow(
      `is marked as served by kgrag serve on another host, elsewhere.example (pid 999999999 on elsewhere.example`,
    );
    await expect(refused).rejects.toThrow(`If no server runs there, delete its marker ${marker}`);
    rmSync(marker);
    await restoreWorkspace(file, target, { force: true });
  });

  it("ignores a mark naming pid 0 or below, which no server can have", async () => {
    for (const pid of [0, -1, 1]) {
      mkdirSync(join(root, `ws${pid}`));
      markAs(join(root, `ws${pid}`), pid);
    }
    writeFileSync(join(source, servedMarkerName(7)), JSON.stringify({ pid: -1, host: hostname() }));
    for (const pid of [0, -1, 1]) expect(activeServers(join(root, `ws${pid}`))).toEqual([]);
    expect(activeServers(source)).toEqual([]);
  });

  it("writes its mark as a new file of its own, never through a link left at its name", () => {
    const elsewhere = join(root, "elsewhere.txt");
    writeFileSync(elsewhere, "not the server's");
    const marker = join(source, servedMarkerName(process.pid));
    symlinkSync(elsewhere, marker);
    const unmark = markServed([source], "http://127.0.0.1:3");
    try {
      expect(readFileSync(elsewhere, "utf8")).toBe("not the server's");
      expect(lstatSync(marker).isFile()).toBe(true);
      expect(lstatSync(marker).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(marker, "utf8"))).toMatchObject({ pid: process.pid });
    } finally {
      unmark();
    }
  });

  it("removes the marks it wrote and says which one failed when a mark cannot be written", () => {
    const missing = join(root, "missing");
    expect(() => markServed([source, missing], "http://127.0.0.1:4")).toThrow(
      `cannot write the served marker ${join(missing, servedMarkerName(process.pid))}`,
    );
    expect(existsSync(join(source, servedMarkerName(process.pid)))).toBe(false);
  });
});

describe("kgrag backup and kgrag restore", () => {
  it("back up and restore from the command line, exiting 2 with what to do on bad input", async () => {
    await kg.close();
    const file = join(root, "cli.kgrag-backup");
    const backup = await runMain(["backup", "--workspace", source, "--out", file, "--json"]);
    expect(backup.code, backup.stderr).toBe(0);
    expect(JSON.parse(backup.stdout)).toMatchObject({
      file,
      files: ["kgrag.config.json", "server/uploads/notes.md"],
    });
    const target = join(root, "cli-restored");
    const restore = await runMain(["restore", file, "--workspace", target]);
    expect(restore.code, restore.stderr).toBe(0);
    expect(restore.stdout).toContain(`into ${target}`);
    const status = await runMain(["status", "--workspace", target, "--json"]);
    expect(JSON.parse(status.stdout).documents).toHaveLength(2);

    const again = await runMain(["restore", file, "--workspace", target]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/is not empty; give --force/);
    // A --config file in the workspace, under another name, loses its secrets as kgrag.config.json does.
    writeFileSync(
      join(source, "prod.json"),
      JSON.stringify({ neo4j: { uri: "bolt://127.0.0.1:1", password: "neo-cli-secret" } }),
    );
    const withConfig = join(root, "config.kgrag-backup");
    const given = await runMain([
      "backup",
      "--workspace",
      source,
      "--config",
      join(source, "prod.json"),
      "--out",
      withConfig,
    ]);
    expect(given.code, given.stderr).toBe(0);
    expect(given.stdout).toContain("Left out of its config file: prod.json: neo4j.password");
    expect(readFileSync(withConfig).toString("latin1")).not.toContain("neo-cli-secret");
    const neo4j = await runMain(["backup", "--workspace", source, "--out", join(root, "n.kgrag-backup")], {
      KGRAG_STORAGE: "neo4j",
      NEO4J_URI: "bolt://127.0.0.1:1",
      NEO4J_PASSWORD: "unused",
    });
    expect(neo4j.code).toBe(2);
    expect(neo4j.stderr).toMatch(/stored in Neo4j.*neo4j-admin database dump/s);
    expect(existsSync(join(root, "n.kgrag-backup"))).toBe(false);
    kg = await createKgrag({ env: {}, config: { workspace: source } });
  });
});

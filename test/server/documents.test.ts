import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../src/server/jobs/job-types.js";
import {
  json,
  offlineWorkspace,
  type Running,
  readEvents,
  removeAll,
  startServer,
  tempDir,
} from "../support/server.js";

const dirs: string[] = [];
let running: Running;
let workspace: string;

beforeAll(async () => {
  workspace = await tempDir("docs");
  dirs.push(workspace);
  await offlineWorkspace(workspace, []);
  running = await startServer({
    workspaces: [workspace],
    server: { upload: { maxFileBytes: 4096, maxFiles: 2 } },
  });
}, 60_000);

afterAll(async () => {
  await running?.stop();
  await removeAll(dirs);
});

const BOUNDARY = "kgrag-test-boundary";

/** A multipart body written by hand, so file names reach the server exactly as given. */
/** Files as a multipart body, each under the field `files` unless it names another. */
function multipart(files: { name: string; text: string; field?: string }[]): {
  body: Buffer;
  headers: Record<string, string>;
} {
  const parts = files.map(
    (f) =>
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${f.field ?? "files"}"; filename="${f.name}"\r\n` +
      `Content-Type: text/plain\r\n\r\n${f.text}\r\n`,
  );
  return {
    body: Buffer.from(`${parts.join("")}--${BOUNDARY}--\r\n`),
    headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
  };
}

const upload = (files: { name: string; text: string; field?: string }[]) => {
  const { body, headers } = multipart(files);
  return fetch(`${running.url}/api/v1/documents`, { method: "POST", headers, body });
};

async function finished(jobId: string): Promise<Job> {
  const events = await readEvents(await fetch(`${running.url}/api/v1/jobs/${jobId}/events`));
  expect(events.at(-1)?.event).toBe("end");
  return events.at(-1)?.data as Job;
}

/**
 * A request written byte for byte on a socket (fetch would percent-encode it) by a client that
 * keeps its own side open: the answer once the server ended its side.
 */
function rawRequest(url: string, request: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ port: Number(port), host: hostname, allowHalfOpen: true }, () =>
      socket.write(Buffer.from(request, "utf8")),
    );
    let answer = "";
    socket.on("data", (data: Buffer) => {
      answer += data.toString();
    });
    socket.on("end", () => {
      resolve(answer);
      setTimeout(() => socket.destroy(), 2_000).unref();
    });
    socket.on("error", reject);
  });
}

/** Connections the server holds open now. */
function openConnections(): Promise<number> {
  return new Promise((resolve, reject) =>
    running.server.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );
}

async function documents(query = ""): Promise<{
  items: { id: string; title: string; status: string; metadata: Record<string, unknown> }[];
  total: number;
}> {
  return (await (await fetch(`${running.url}/api/v1/documents${query}`)).json()) as never;
}

describe("kgrag serve: documents and jobs", () => {
  it("indexes an uploaded file in a background job and streams its progress", async () => {
    const popular = async () =>
      (
        (await json(await fetch(`${running.url}/api/v1/graph/entities/popular`))).items as { name: string }[]
      ).map((e) => e.name);
    expect(await popular()).toEqual([]);
    const response = await upload([
      { name: "okafor.txt", text: "Mara Okafor founded Lumen Robotics in Lisbon." },
    ]);
    expect(response.status).toBe(202);
    const { job } = (await response.json()) as { job: Job };
    expect(job).toMatchObject({ kind: "index", files: ["okafor.txt"], progress: 0 });
    const events = await readEvents(await fetch(`${running.url}/api/v1/jobs/${job.id}/events`));
    const stages = new Set(events.map((e) => (e.data as Job).stage));
    expect(stages.has("extract")).toBe(true);
    const end = events.at(-1)!;
    expect(end.event).toBe("end");
    expect(end.data).toMatchObject({ status: "done", errors: [], progress: 1 });
    // The whole job's progress goes forward only, through values between its start and its end
    // (a step's done/total starts again at 0 with each step).
    const progress = events.map((e) => (e.data as Job).progress);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(progress.some((p) => p > 0.1 && p < 0.9)).toBe(true);
    // All the way only at the end: a job at its last step's last count still runs.
    const runningProgress = events.flatMap((e) =>
      (e.data as Job).status === "running" ? [e.data as Job] : [],
    );
    expect(runningProgress.some((j) => j.stage === "community reports" && j.done === j.total)).toBe(true);
    for (const j of runningProgress) expect(j.progress, `${j.stage} ${j.done}/${j.total}`).toBeLessThan(1);
    const list = await documents();
    expect(list.items).toEqual([expect.objectContaining({ title: "okafor.txt", status: "indexed" })]);
    // The file it came from by its upload name: the server's folders are not the client's business.
    expect(list.items[0]).toMatchObject({ metadata: { source: "okafor.txt", format: "text" } });
    expect(JSON.stringify(list)).not.toContain(workspace);
    // The graph views the server keeps are renewed by the job.
    expect(await popular()).toContain("Mara Okafor");
    const jobs = (await json(await fetch(`${running.url}/api/v1/jobs`))).items as Job[];
    expect(jobs[0]?.id).toBe(job.id);
    expect(await json(await fetch(`${running.url}/api/v1/jobs/${job.id}`))).toMatchObject({ status: "done" });
  }, 60_000);

  it("indexes raw texts with metadata, pages and filters the list, re-indexes and deletes", async () => {
    const response = await fetch(`${running.url}/api/v1/documents/texts`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        documents: [
          {
            id: "porto",
            title: "Porto",
            text: "The University of Porto trained Mara Okafor.",
            metadata: { kind: "school" },
          },
          { id: "lisbon", title: "Lisbon", text: "Lisbon is the capital of Portugal." },
        ],
      }),
    });
    expect(response.status).toBe(202);
    const textJob = ((await response.json()) as { job: Job }).job;
    expect(textJob.titles).toEqual({ porto: "Porto", lisbon: "Lisbon" });
    expect(await finished(textJob.id)).toMatchObject({ status: "done" });
    expect((await documents()).total).toBe(3);
    const page = await documents("?offset=1&limit=1");
    expect(page).toMatchObject({ total: 3, items: [expect.anything()] });
    expect((await documents("?q=porto")).items.map((d) => d.id)).toEqual(["porto"]);
    expect((await documents("?status=failed")).total).toBe(0);
    // The CLI's name for indexed is taken too; an unknown status is refused with the ones to use.
    expect((await documents("?status=processed")).items).toEqual((await documents("?status=indexed")).items);
    expect((await documents("?status=processed")).total).toBeGreaterThan(1);
    // Statuses and their synonyms alike in any case, spaces around ignored.
    for (const status of ["Indexed", " INDEXED ", "PROCESSED%20"])
      expect((await documents(`?status=${status.replaceAll(" ", "%20")}`)).items, status).toEqual(
        (await documents("?status=indexed")).items,
      );
    const badStatus = await fetch(`${running.url}/api/v1/documents?status=done`);
    expect(badStatus.status).toBe(400);
    expect(((await json(badStatus)).error as { message: string }).message).toBe(
      'Invalid querystring: status: "done" is not a status; use one of pending, indexed, failed, partial ' +
        "(processed is indexed)",
    );

    const reindex = await fetch(`${running.url}/api/v1/documents/porto/reindex`, { method: "POST" });
    expect(reindex.status).toBe(202);
    const reindexed = await finished(((await reindex.json()) as { job: Job }).job.id);
    expect(reindexed).toMatchObject({ status: "done", documents: ["porto"], titles: { porto: "Porto" } });
    expect((await documents("?q=porto")).items[0]).toMatchObject({ status: "indexed" });

    // Which asks are merged into a queued job is tested on the queue itself (server-job-queue).
    const del = await fetch(`${running.url}/api/v1/documents/lisbon`, { method: "DELETE" });
    const delJob = ((await del.json()) as { job: Job }).job;
    const delId = delJob.id;
    // The job names the document it deletes, which a client can no longer look up once it is gone.
    expect(delJob.titles).toEqual({ lisbon: "Lisbon" });
    expect(await finished(delId)).toMatchObject({ status: "done", titles: { lisbon: "Lisbon" } });
    expect((await documents()).items.map((d) => d.id)).not.toContain("lisbon");
    expect((await fetch(`${running.url}/api/v1/documents/lisbon`, { method: "DELETE" })).status).toBe(404);
    expect((await fetch(`${running.url}/api/v1/documents/lisbon/reindex`, { method: "POST" })).status).toBe(
      404,
    );
  }, 90_000);

  it("lists the newest documents first unless asked for the oldest, so a new one is on page 1", async () => {
    const addText = async (id: string, text: string) => {
      const response = await fetch(`${running.url}/api/v1/documents/texts`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ documents: [{ id, text }] }),
      });
      expect(await finished(((await response.json()) as { job: Job }).job.id)).toMatchObject({
        status: "done",
      });
    };
    await addText("older-note", "Wren Aldous kept the Saltmarsh ledger.");
    await addText("newer-note", "Cato Brisk rebuilt the Saltmarsh mill.");
    const newest = await documents("?limit=2");
    expect(newest.items.map((d) => d.id)).toEqual(["newer-note", "older-note"]);
    const oldest = await documents(`?sort=oldest&offset=${newest.total - 2}`);
    expect(oldest.items.map((d) => d.id)).toEqual(["older-note", "newer-note"]);
    expect((await fetch(`${running.url}/api/v1/documents?sort=title`)).status).toBe(400);
  }, 60_000);

  it("re-indexes one line of an uploaded JSONL file without bringing back a deleted sibling", async () => {
    const lines = [
      { id: "note-a", title: "Note A", text: "Ines Varga repairs clocks in Porto." },
      { id: "note-b", title: "Note B", text: "Tomas Reyes sells maps in Seville." },
    ];
    const response = await upload([
      { name: "notes.jsonl", text: lines.map((line) => JSON.stringify(line)).join("\n") },
    ]);
    const first = await finished(((await response.json()) as { job: Job }).job.id);
    // The job names the documents the file held, not one for the file itself.
    expect([...first.documents].sort()).toEqual(["note-a", "note-b"]);
    const deleting = await fetch(`${running.url}/api/v1/documents/note-a`, { method: "DELETE" });
    await finished(((await deleting.json()) as { job: Job }).job.id);
    const reindexing = await fetch(`${running.url}/api/v1/documents/note-b/reindex`, { method: "POST" });
    const reindexed = await finished(((await reindexing.json()) as { job: Job }).job.id);
    expect(reindexed).toMatchObject({ status: "done", documents: ["note-b"], errors: [] });
    const ids = (await documents("?q=note-")).items.map((d) => d.id);
    expect(ids).toEqual(["note-b"]);
    const noteB = (await documents("?q=note-b")).items[0];
    expect(noteB).toMatchObject({ title: "Note B", status: "indexed" });
    // The file no longer holds note-b: it is re-indexed from its stored text, and the job says so.
    writeFileSync(join(workspace, "server", "uploads", "notes.jsonl"), `${JSON.stringify(lines[0])}\n`);
    const again = await fetch(`${running.url}/api/v1/documents/note-b/reindex`, { method: "POST" });
    const fallback = await finished(((await again.json()) as { job: Job }).job.id);
    expect(fallback).toMatchObject({ status: "done", documents: ["note-b"] });
    expect(fallback.message).toMatch(
      /^.* notes\.jsonl no longer holds this document, so it was re-indexed from its stored text/,
    );
    // The server's folders are not shown to clients.
    expect(JSON.stringify(fallback)).not.toContain(workspace);
    expect((await documents("?q=note-")).items.map((d) => d.id)).toEqual(["note-b"]);
  }, 60_000);

  it("reports a JSONL upload's unreadable lines in its job, beside the lines it indexed", async () => {
    const text = [
      JSON.stringify({ id: "line-ok", text: "Ada Brun paints lighthouses in Brest." }),
      "{not json",
      JSON.stringify({ id: "line-blank", text: "  " }),
    ].join("\n");
    const response = await upload([{ name: "mixed.jsonl", text }]);
    const job = await finished(((await response.json()) as { job: Job }).job.id);
    expect(job.documents).toEqual(["line-ok"]);
    const reasons = job.errors.map((e) => `${e.file ?? ""} ${e.message}`);
    expect(reasons).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/mixed\.jsonl:2 .*JSON/),
        expect.stringMatching(/mixed\.jsonl:3 /),
      ]),
    );
    // Files by name only: the server's folders stay in its log.
    expect(JSON.stringify(job)).not.toContain(workspace);
    expect(job.errors.map((e) => e.file)).toContain("mixed.jsonl:2");
  }, 60_000);

  it("reports an empty upload as skipped with its reason, naming no document that does not exist", async () => {
    const response = await upload([{ name: "empty.txt", text: "" }]);
    expect(response.status).toBe(202);
    const job = await finished(((await response.json()) as { job: Job }).job.id);
    expect(job.status).toBe("done");
    expect(job.documents).toEqual([]);
    expect(job.errors).toEqual([expect.objectContaining({ message: expect.stringMatching(/empty/i) })]);
    expect(job.message).toMatch(/1 skipped|1 error/);
    // A file that made no document is not kept.
    expect(existsSync(join(workspace, "server", "uploads", "empty.txt"))).toBe(false);
  }, 60_000);

  it("removes an uploaded file with the last document that came from it", async () => {
    const uploads = join(workspace, "server", "uploads");
    const deleteDocument = async (id: string) => {
      const response = await fetch(`${running.url}/api/v1/documents/${id}`, { method: "DELETE" });
      const job = await finished(((await response.json()) as { job: Job }).job.id);
      expect(job).toMatchObject({ status: "done" });
      return job;
    };
    const lines = [
      { id: "pair-a", text: "Lena Holt keeps bees in Ghent." },
      { id: "pair-b", text: "Oren Sato builds kites in Osaka." },
    ];
    const response = await upload([
      { name: "pair.jsonl", text: lines.map((line) => JSON.stringify(line)).join("\n") },
      { name: "single.md", text: "# Single\n\nIvo Marr tunes pianos in Graz." },
    ]);
    const job = await finished(((await response.json()) as { job: Job }).job.id);
    expect(job.status).toBe("done");
    const single = job.documents.find((id) => !id.startsWith("pair-"));
    expect(single).toBeDefined();
    expect(existsSync(join(uploads, "single.md"))).toBe(true);
    // The delete job names an uploaded file's document by its title, not its hash id.
    expect((await deleteDocument(single as string)).titles).toEqual({ [single as string]: "Single" });
    expect(existsSync(join(uploads, "single.md"))).toBe(false);
    // A file with documents left stays.
    await deleteDocument("pair-a");
    expect(existsSync(join(uploads, "pair.jsonl"))).toBe(true);
    await deleteDocument("pair-b");
    expect(existsSync(join(uploads, "pair.jsonl"))).toBe(false);
    // Other uploads are left alone.
    expect(existsSync(join(uploads, "okafor.txt"))).toBe(true);
  }, 90_000);

  it("keeps a file uploaded again while the delete of its document waited in the queue", async () => {
    const uploads = join(workspace, "server", "uploads");
    const first = await upload([{ name: "again.md", text: "# Again\n\nTove Lind paints boats in Bergen." }]);
    const indexed = await finished(((await first.json()) as { job: Job }).job.id);
    expect(indexed.status).toBe("done");
    const id = indexed.documents[0] as string;
    // The queue held (as by a long job) while a DELETE and a new upload of the same name queue up.
    const jobs = running.server.context.registry.all[0]!.jobs;
    let release = () => {};
    const held = jobs.exclusive(() => new Promise<void>((resolve) => (release = resolve)));
    const deleting = await fetch(`${running.url}/api/v1/documents/${id}`, { method: "DELETE" });
    const deleteJob = ((await deleting.json()) as { job: Job }).job;
    const again = await upload([
      { name: "again.md", text: "# Again\n\nTove Lind paints ships in Bergen now." },
    ]);
    const indexJob = ((await again.json()) as { job: Job }).job;
    release();
    await held;
    expect(await finished(deleteJob.id)).toMatchObject({ status: "done", documents: [id] });
    // The delete left the new upload for its job, which indexed it.
    expect(await finished(indexJob.id)).toMatchObject({ status: "done", errors: [], documents: [id] });
    expect(existsSync(join(uploads, "again.md"))).toBe(true);
    expect((await documents("?q=again")).items).toEqual([
      expect.objectContaining({
        id,
        status: "indexed",
        metadata: expect.objectContaining({ source: "again.md" }),
      }),
    ]);
    // Its own delete then takes the file with it.
    const last = await fetch(`${running.url}/api/v1/documents/${id}`, { method: "DELETE" });
    expect(await finished(((await last.json()) as { job: Job }).job.id)).toMatchObject({ status: "done" });
    expect(existsSync(join(uploads, "again.md"))).toBe(false);
  }, 90_000);

  it("says what an upload takes and which file names were uploaded before, with their documents", async () => {
    const uploads = await json(await fetch(`${running.url}/api/v1/uploads`));
    expect(uploads).toMatchObject({ maxFileBytes: 4096, maxFiles: 2 });
    expect(uploads.extensions).toEqual(expect.arrayContaining([".txt", ".md", ".pdf", ".jsonl"]));
    const files = uploads.files as { name: string; documents: { id: string; title: string }[] }[];
    // An upload's document id comes from its stored path: the same name again replaces these.
    expect(files).toEqual(
      expect.arrayContaining([
        { name: "okafor.txt", documents: [{ id: expect.stringMatching(/^doc-/), title: "okafor.txt" }] },
        { name: "notes.jsonl", documents: [{ id: "note-b", title: "Note B" }] },
      ]),
    );
    // Texts came from no file; an empty file made no document.
    expect(files.map((f) => f.name)).not.toContain("empty.txt");
    expect(files.flatMap((f) => f.documents.map((d) => d.id))).not.toContain("porto");
  });

  it("finishes a job whose client went away", async () => {
    const response = await upload([
      { name: "gone.md", text: "# Gone\n\nOsric Venn built the Harbour Light." },
    ]);
    const { job } = (await response.json()) as { job: Job };
    const leaving = new AbortController();
    const events = await fetch(`${running.url}/api/v1/jobs/${job.id}/events`, { signal: leaving.signal });
    expect(events.status).toBe(200);
    leaving.abort();
    await running.server.context.registry.all[0]!.jobs.idle();
    expect(await json(await fetch(`${running.url}/api/v1/jobs/${job.id}`))).toMatchObject({ status: "done" });
    expect((await documents("?q=gone")).items).toEqual([expect.objectContaining({ status: "indexed" })]);
  }, 60_000);

  it("refuses a name beginning or ending with a space, keeping nothing, rather than trimming it", async () => {
    for (const name of [" spaced.txt", "spaced.txt ", "spaced .txt "]) {
      const response = await upload([{ name, text: "Ilse Marrow mapped the Corran delta." }]);
      expect(response.status, name).toBe(400);
      expect((await json(response)).error, name).toEqual({
        code: "bad_file_name",
        message: `File name ${JSON.stringify(name)} begins or ends with a space; rename the file without it`,
      });
    }
    const folder = running.server.context.registry.all[0]!.uploadFolder;
    const left = existsSync(folder) ? readdirSync(folder) : [];
    expect(left.filter((name) => name.includes("spaced"))).toEqual([]);
  });

  it("refuses file names that would leave the upload folder, and files of no supported type", async () => {
    for (const name of [
      "../escape.txt",
      "/etc/passwd.txt",
      "a/b.txt",
      "..\\\\win.txt",
      "nul\u0000byte.txt",
      "C:\\\\x.txt",
    ]) {
      const response = await upload([{ name, text: "text" }]);
      expect(response.status, name).toBe(400);
      expect((await json(response)).error, name).toMatchObject({ code: "bad_file_name" });
    }
    // A name that is only an extension is a blank name, not a file of an unknown type.
    for (const name of ["  .md", ".md", "   "]) {
      const response = await upload([{ name, text: "text" }]);
      expect(response.status, name).toBe(400);
      const { error } = await json(response);
      expect(error, name).toMatchObject({
        code: "bad_file_name",
        message: expect.stringMatching(/is blank/),
      });
      expect((error as { message: string }).message, name).not.toMatch(/supported type/);
    }
    const binary = await upload([{ name: "tool.exe", text: "MZ" }]);
    expect((await json(binary)).error).toMatchObject({ code: "unsupported_file_type" });
  });

  it("refuses a file under another field than `files` with a 400 naming the field, keeping nothing", async () => {
    const jobsNow = async () =>
      ((await json(await fetch(`${running.url}/api/v1/jobs`))).items as Job[]).length;
    const before = await jobsNow();
    const uploadsBefore = await json(await fetch(`${running.url}/api/v1/uploads`));
    for (const files of [
      [{ name: "other.txt", text: "Filed elsewhere.", field: "other" }],
      [
        { name: "first.txt", text: "Under the right field." },
        { name: "second.txt", text: "Under a wrong one.", field: "file" },
      ],
    ]) {
      const response = await upload(files);
      expect(response.status).toBe(400);
      expect((await json(response)).error).toEqual({
        code: "bad_request",
        message: expect.stringMatching(
          /^A file part is named "(other|file)"; send files in the multipart field `files`$/,
        ),
      });
    }
    expect(await jobsNow()).toBe(before);
    expect(await json(await fetch(`${running.url}/api/v1/uploads`))).toEqual(uploadsBefore);
    const folder = running.server.context.registry.all[0]!.uploadFolder;
    const left = existsSync(folder) ? readdirSync(folder) : [];
    expect(left.filter((name) => /other|first|second/.test(name))).toEqual([]);
  });

  it("refuses a name sent twice in one upload (the first file would be lost), keeping nothing", async () => {
    const jobsBefore = ((await json(await fetch(`${running.url}/api/v1/jobs`))).items as Job[]).length;
    const response = await upload([
      { name: "twice.txt", text: "Orrin Vale charted the north shore." },
      { name: "twice.txt", text: "Talv Mirel sailed to Pellwick." },
    ]);
    expect(response.status).toBe(400);
    expect((await json(response)).error).toEqual({
      code: "bad_file_name",
      message: expect.stringMatching(/^File name "twice.txt" is sent twice in this upload/),
    });
    expect(((await json(await fetch(`${running.url}/api/v1/jobs`))).items as Job[]).length).toBe(jobsBefore);
    const folder = running.server.context.registry.all[0]!.uploadFolder;
    const left = existsSync(folder) ? readdirSync(folder) : [];
    expect(left.filter((name) => name.startsWith("twice"))).toEqual([]);
  });

  it("refuses uploads past the size and count limits, keeping nothing of them", async () => {
    const before = (await json(await fetch(`${running.url}/api/v1/jobs`))).items as Job[];
    const big = await upload([{ name: "big.txt", text: "x".repeat(10_000) }]);
    expect(big.status).toBe(413);
    expect((await json(big)).error).toMatchObject({
      code: "file_too_large",
      message: expect.stringMatching(/limit of 4,096 bytes per file \(KGRAG_UPLOAD_MAX_MB\)/),
    });
    const many = await upload([
      { name: "a.txt", text: "a" },
      { name: "b.txt", text: "b" },
      { name: "c.txt", text: "c" },
    ]);
    expect(many.status).toBe(413);
    expect((await json(many)).error).toMatchObject({
      code: "too_many_files",
      message: expect.stringMatching(/More than 2 files .*KGRAG_UPLOAD_MAX_FILES/),
    });
    const after = (await json(await fetch(`${running.url}/api/v1/jobs`))).items as Job[];
    expect(after.length).toBe(before.length);
  });

  it("answers malformed bodies, wrong content types and unreadable URLs in the API's error shape", async () => {
    const errorOf = async (response: Response) => ({
      status: response.status,
      code: ((await json(response)).error as { code: string }).code,
    });
    const postTo = (path: string, contentType: string, body: string | Buffer) =>
      fetch(`${running.url}${path}`, { method: "POST", headers: { "content-type": contentType }, body });
    // The multipart parser's complaints are the client's fault: 400, not 500.
    expect(await errorOf(await postTo("/api/v1/documents", "multipart/form-data", "x"))).toEqual({
      status: 400,
      code: "bad_multipart",
    });
    const cut = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename="a.txt"\r\n\r\nhalf`;
    expect(
      await errorOf(await postTo("/api/v1/documents", `multipart/form-data; boundary=${BOUNDARY}`, cut)),
    ).toEqual({ status: 400, code: "bad_multipart" });
    // A JSON route refuses text and multipart bodies; the upload route refuses JSON.
    const question = JSON.stringify({ question: "Who founded Lumen Robotics?" });
    expect(await errorOf(await postTo("/api/v1/query", "text/plain", question))).toEqual({
      status: 415,
      code: "unsupported_media_type",
    });
    const { body, headers } = multipart([{ name: "a.txt", text: "a" }]);
    expect(await errorOf(await postTo("/api/v1/query", headers["content-type"] as string, body))).toEqual({
      status: 415,
      code: "unsupported_media_type",
    });
    // The Ollama routes read JSON whatever the content type (Ollama's clients send none, or a form's),
    // and answer in Ollama's error shape.
    const chat = await postTo("/api/chat", "text/plain", JSON.stringify({ messages: "Who?" }));
    expect(chat.status).toBe(400);
    expect(await json(chat)).toEqual({ error: expect.stringMatching(/^Invalid body: messages: /) });
    expect(await errorOf(await postTo("/api/v1/documents", "application/json", "{}"))).toEqual({
      status: 415,
      code: "unsupported_media_type",
    });
    // A route without a body takes a POST whatever its content type (fetch's default is text/plain).
    expect(await errorOf(await postTo("/api/v1/documents/no-such-doc/reindex", "text/plain", ""))).toEqual({
      status: 404,
      code: "not_found",
    });
    // A broken percent-escape, and raw UTF-8 bytes in the request line.
    expect(await errorOf(await fetch(`${running.url}/api/v1/jobs/%ZZ`))).toEqual({
      status: 400,
      code: "bad_request",
    });
    const connections = await openConnections();
    const raw = await rawRequest(running.url, "GET /api/v1/documents?q=星河 HTTP/1.1\r\nHost: x\r\n\r\n");
    // The server let go of the connection although the client kept its side open.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await openConnections()).toBe(connections);
    expect(raw).toMatch(/^HTTP\/1\.1 400/);
    expect(JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4))).toMatchObject({
      error: { code: "bad_request" },
    });
    const hugeHeader = await rawRequest(
      running.url,
      `GET /api/v1/documents HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
    );
    expect(hugeHeader).toMatch(/^HTTP\/1\.1 431/);
    // Nothing of the refused uploads was kept or queued.
    expect((await documents("?q=a.txt")).items).toEqual([]);
  });

  it("validates text bodies with clear 400s", async () => {
    const post = (body: unknown) =>
      fetch(`${running.url}/api/v1/documents/texts`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const empty = await post({ documents: [] });
    expect(empty.status).toBe(400);
    expect(((await json(empty)).error as { message: string }).message).toMatch(/documents/);
    const blank = await post({ documents: [{ text: " " }] });
    expect(blank.status).toBe(400);
    const twice = await post({
      documents: [
        { id: "d", text: "a" },
        { id: "d", text: "b" },
      ],
    });
    expect(((await json(twice)).error as { message: string }).message).toMatch(/given twice/);
    const notMultipart = await fetch(`${running.url}/api/v1/documents`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(notMultipart.status).toBe(415);
    expect((await fetch(`${running.url}/api/v1/jobs/nope`)).status).toBe(404);
  });
  it("names an untitled document's delete job by its file's name, never its folders, whatever the separators", async () => {
    const kgrag = running.server.context.registry.all[0]?.kgrag;
    if (!kgrag) throw new Error("no workspace");
    // Indexed on Windows: the path a POSIX basename would hand back whole.
    await kgrag.index([
      {
        id: "field-notes",
        title: "",
        text: "Ines Vale keeps bees in Braga.",
        path: "C:\\Users\\ines\\notes\\field.txt",
      },
    ]);
    const response = await fetch(`${running.url}/api/v1/documents/field-notes`, { method: "DELETE" });
    const job = ((await response.json()) as { job: Job }).job;
    expect(job.titles).toEqual({ "field-notes": "field.txt" });
    expect(await finished(job.id)).toMatchObject({ status: "done" });
  });
});

describe("kgrag serve: a restart", () => {
  it("runs again the job that was running when the server stopped, and the ones still queued", async () => {
    const dir = await tempDir("restart");
    dirs.push(dir);
    await offlineWorkspace(dir, []);
    // What a server leaves behind when it stops in the middle of a job (one from before jobs had
    // an overall progress).
    const serverFolder = join(dir, "server");
    mkdirSync(join(serverFolder, "job-inputs"), { recursive: true });
    const job = (id: string, status: Job["status"]): Omit<Job, "progress"> => ({
      id,
      kind: "index",
      status,
      stage: status === "running" ? "extract" : "queued",
      done: 0,
      total: 1,
      errors: [],
      documents: [id],
      createdAt: new Date().toISOString(),
    });
    writeFileSync(
      join(serverFolder, "jobs.json"),
      JSON.stringify([job("cut", "running"), job("waiting", "queued")]),
    );
    for (const id of ["cut", "waiting"]) {
      const spec = {
        kind: "index",
        files: [],
        texts: [{ id, title: id, text: `${id} is a document about Porto.` }],
      };
      writeFileSync(join(serverFolder, "job-inputs", `${id}.json`), JSON.stringify(spec));
    }
    const restarted = await startServer({ workspaces: [dir] });
    try {
      const served = restarted.server.context.registry.all[0]!;
      await served.jobs.idle();
      const jobs = served.jobs.list();
      expect(jobs.find((j) => j.id === "cut")).toMatchObject({ status: "interrupted" });
      expect(jobs.find((j) => j.id === "waiting")).toMatchObject({ status: "done" });
      const rerun = jobs.find((j) => j.id !== "cut" && j.id !== "waiting");
      expect(rerun).toMatchObject({ status: "done", documents: ["cut"] });
      const docs = (await (await fetch(`${restarted.url}/api/v1/documents`)).json()) as {
        items: { id: string; status: string }[];
      };
      expect(docs.items.map((d) => [d.id, d.status]).sort()).toEqual([
        ["cut", "indexed"],
        ["waiting", "indexed"],
      ]);
    } finally {
      await restarted.stop();
    }
  }, 90_000);
});

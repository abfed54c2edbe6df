import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import type { Browser, Dialog, Page, Request } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOADED_MACHINE_WAIT_MS, pollAsOnALoadedMachine } from "../support/browser-waits.js";
import { launchChromium } from "../support/chromium.js";
import { REPO_ROOT } from "../support/cli-child.js";
import { type ServeChild, startServe } from "../support/serve-child.js";
import { ATLAS_DOCS, offlineWorkspace } from "../support/server.js";
import { buildWebApp } from "../support/web-build.js";

pollAsOnALoadedMachine();

/** The localStorage key that asks the graph canvas for its test hook (web/src/graph/test-hook-flag.ts). */
const GRAPH_TEST_HOOK_STORAGE = "kgrag.graphTestHook";

/** A node label as the graph canvas reports it drawn (its `window.kgragGraph` hook). */
interface DrawnLabel {
  node: string;
  shown: boolean;
  x: number;
  y: number;
  side: string;
  box: { minX: number; maxX: number; minY: number; maxY: number };
}

const CORPUS = join(REPO_ROOT, "samples", "corpus");
/** Screenshots land here (git-ignored); the README's is copied from it by hand. */
const ARTIFACTS = process.env.KGRAG_BROWSER_ARTIFACTS ?? join(REPO_ROOT, ".tmp", "browser-artifacts");

describe("web app in Chromium against kgrag serve (offline workspace)", () => {
  let root: string;
  let server: ServeChild;
  let browser: Browser;
  let page: Page;
  const consoleErrors: string[] = [];
  const outsideRequests: string[] = [];

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "kgrag-web-"));
    mkdirSync(ARTIFACTS, { recursive: true });
    await buildWebApp();
    server = await startServe([join(root, "ws")]);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on("console", (message) => {
      if (message.type() === "error") consoleErrors.push(message.text());
    });
    page.on("pageerror", (error) => consoleErrors.push(error.message));
    // The app must not reach anything but its own server (no CDN fonts or scripts).
    page.on("request", (request) => {
      if (isNetworkUrl(request.url()) && !request.url().startsWith(server.url))
        outsideRequests.push(request.url());
    });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  async function shot(name: string): Promise<void> {
    await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
  }

  /**
   * Answers the requests `matcher` picks 1.5 s late (only the first of them with `firstOnly`);
   * `lateAnswer` settles once that answer has gone, or the page had aborted the request by then.
   */
  async function answerLate(
    matcher: (url: URL) => boolean,
    { firstOnly = false } = {},
  ): Promise<{ lateAnswer: Promise<void> }> {
    const late = deferred();
    let delayed = false;
    await page.route(matcher, async (route) => {
      if (firstOnly && delayed) return route.continue();
      delayed = true;
      await delay(1_500);
      // Aborted by the page by now, when it ignores stale answers by aborting them.
      await route.continue().catch(() => undefined);
      late.resolve();
    });
    return { lateAnswer: late.promise };
  }

  /**
   * Lists `job` as the only job and holds its progress stream open until `end()`, which stops
   * listing it and lets the stream answer with `ended` as its last event.
   */
  async function stubRunningJob(job: { id: string }, ended: object) {
    const released = deferred();
    const jobList = (url: URL) => url.pathname === "/api/v1/jobs";
    const jobEvents = (url: URL) => url.pathname === `/api/v1/jobs/${job.id}/events`;
    await page.route(jobList, (route) => route.fulfill({ json: { items: [job] } }));
    await page.route(jobEvents, async (route) => {
      await released.promise;
      await route.fulfill({
        contentType: "text/event-stream",
        body: `event: end\ndata: ${JSON.stringify(ended)}\n\n`,
      });
    });
    return {
      end: async () => {
        await page.unroute(jobList);
        released.resolve();
      },
      unrouteEvents: () => page.unroute(jobEvents),
    };
  }

  it("uploads files, follows the job to done and lists the documents", async () => {
    await page.goto(server.url);
    await page.getByRole("link", { name: "Documents" }).waitFor();
    const files = readdirSync(CORPUS).map((name) => join(CORPUS, name));
    await page.setInputFiles("[data-testid=file-input]", files);
    const job = page.locator("article.job").first();
    await job.waitFor();
    // Indexing the corpus is real work: at load 35 it has taken more than 150 s.
    await page.locator('article.job[data-status="done"]').first().waitFor({ timeout: 300_000 });
    expect(await job.locator(".stage").textContent()).not.toBe("");
    // The card says what the job does, its id only below.
    expect(await job.locator(".job-heading").textContent()).toMatch(
      new RegExp(`^Index ${files.length} files: \\S+, \\S+, \\S+ and ${files.length - 3} more$`),
    );
    expect(await job.locator(".job-id").textContent()).toMatch(/^[0-9a-f-]{36}$/);
    const rows = page.locator("table.documents tbody tr");
    await expect.poll(() => rows.count()).toBe(documentCount(files));
    // Chinese titles come back intact from upload to table.
    await expect(page.locator("table.documents").textContent()).resolves.toContain("青岚科技");
    await shot("documents");
  }, 360_000);

  it("fills a job's bar with the whole job's progress, with the live step beside it", async () => {
    // A job at its last phase, one report in ten: its step is 10% done, the job about 80%.
    const running = {
      id: "11111111-2222-3333-4444-555555555555",
      kind: "index",
      status: "running",
      stage: "community reports",
      done: 1,
      total: 10,
      progress: 0.82,
      errors: [],
      documents: [],
      files: ["notes.md"],
      createdAt: new Date().toISOString(),
    };
    // The job's stream stays open until the test is done with the card, then ends it.
    const stub = await stubRunningJob(running, { ...running, status: "done", progress: 1 });
    try {
      await page.getByRole("link", { name: "Ask" }).click();
      await page.getByRole("link", { name: "Documents" }).click();
      const card = page.locator(`article.job[data-job-id="${running.id}"]`);
      await card.waitFor();
      expect(await card.locator("progress").getAttribute("value")).toBe("82");
      // The step in words, and what its count counts.
      expect(await card.locator(".stage").textContent()).toBe("Writing community reports · 1 / 10 reports");
      expect(await card.locator(".job-heading").textContent()).toBe("Index 1 file: notes.md");
    } finally {
      await stub.end();
    }
    await page.locator(`article.job[data-job-id="${running.id}"]`).waitFor({ state: "detached" });
    await stub.unrouteEvents();
  }, 60_000);

  const beeNotes = (text = "Pell Arden keeps bees in Norwick.") => ({
    name: "bee-notes.txt",
    mimeType: "text/plain",
    buffer: Buffer.from(text),
  });
  const beeCards = (status: string) =>
    page.locator(`article.job[data-status="${status}"]`).filter({ hasText: "Index 1 file: bee-notes.txt" });

  it("uploads the files the server takes and lists the ones left out, with why", async () => {
    await page.setInputFiles("[data-testid=file-input]", [
      beeNotes(),
      { name: "tool.exe", mimeType: "application/octet-stream", buffer: Buffer.from("MZ") },
    ]);
    const notice = page.getByRole("status", { name: "Skipped files" });
    await notice.waitFor();
    const said = (await notice.textContent()) ?? "";
    expect(said).toMatch(/^Uploading 1 file; 1 file left out:/);
    expect(said).toMatch(/tool\.exe: \.exe files are not indexed \(supported: .*\.txt/);
    await beeCards("done").first().waitFor({ timeout: 60_000 });
    await page.locator("table.documents").getByText("bee-notes.txt").first().waitFor();
  }, 90_000);

  it("asks before a file replaces the document uploaded under its name", async () => {
    const questions: string[] = [];
    const answerNextDialog = (accept: boolean) =>
      page.once("dialog", (dialog) => {
        questions.push(dialog.message());
        void (accept ? dialog.accept() : dialog.dismiss());
      });
    answerNextDialog(false);
    await page.setInputFiles("[data-testid=file-input]", [beeNotes("Pell Arden keeps bees and goats.")]);
    const notice = page.getByRole("status", { name: "Skipped files" });
    await expect.poll(() => notice.textContent()).toMatch(/^Nothing was uploaded; 1 file left out:/);
    expect(await notice.textContent()).toContain("bee-notes.txt: uploaded before; not replaced");
    expect(questions).toHaveLength(1);
    expect(questions[0]).toMatch(
      /uploaded before; uploading again replaces the documents made from it:\n• bee-notes\.txt/,
    );
    expect(await beeCards("done").count()).toBe(1);
    // Agreed to, the file goes and replaces the document.
    answerNextDialog(true);
    await page.setInputFiles("[data-testid=file-input]", [beeNotes("Pell Arden keeps bees and goats.")]);
    await expect.poll(() => beeCards("done").count(), { timeout: 60_000 }).toBe(2);
    expect(questions).toHaveLength(2);
    expect(await notice.count()).toBe(0);
    // Replaced, not added beside it.
    const rows = page.locator("table.documents tbody tr", { hasText: "bee-notes.txt" });
    await expect.poll(() => rows.count()).toBe(1);
  }, 90_000);

  it("asks once and deletes once when Delete is double-clicked", async () => {
    const questions: string[] = [];
    const onDialog = (dialog: Dialog) => {
      questions.push(dialog.message());
      void dialog.accept();
    };
    const deletes: string[] = [];
    const onRequest = (request: Request) => {
      if (request.method() === "DELETE") deletes.push(request.url());
    };
    // The delete answers a second late, so nothing moves under the pointer between the two clicks
    // (a job card arriving above the table would take the second click off the button).
    const deleteRoute = (url: URL) => url.pathname.startsWith("/api/v1/documents/doc-");
    await page.route(deleteRoute, async (route) => {
      if (route.request().method() === "DELETE") await delay(1_000);
      await route.continue();
    });
    page.on("dialog", onDialog);
    page.on("request", onRequest);
    try {
      const row = page.locator("table.documents tbody tr", { hasText: "bee-notes.txt" });
      const button = row.getByRole("button", { name: "Delete" });
      await button.dblclick();
      // Disabled until its job ends, re-index too.
      await expect.poll(() => button.isDisabled()).toBe(true);
      expect(await row.getByRole("button", { name: "Re-index" }).isDisabled()).toBe(true);
      await row.waitFor({ state: "detached", timeout: 60_000 });
      expect(questions).toHaveLength(1);
      expect(deletes).toHaveLength(1);
      // The delete job's card names the document it deleted.
      expect(await page.locator("article.job", { hasText: "Delete bee-notes.txt" }).count()).toBe(1);
    } finally {
      page.off("dialog", onDialog);
      page.off("request", onRequest);
      await page.unroute(deleteRoute);
    }
  }, 90_000);

  it("keeps a document's actions disabled while a delete of it runs, after a visit elsewhere too", async () => {
    const row = page.locator("table.documents tbody tr").first();
    const docId = (await row.getAttribute("data-document-id")) ?? "";
    const deleting = {
      id: "66666666-7777-8888-9999-000000000000",
      kind: "delete",
      status: "running",
      stage: "embed entities",
      done: 0,
      total: 5,
      progress: 0.65,
      errors: [],
      documents: [docId],
      createdAt: new Date().toISOString(),
    };
    // It ends without deleting anything: a stand-in for the server's job.
    const stub = await stubRunningJob(deleting, { ...deleting, status: "failed", message: "stand-in" });
    const mine = page.locator(`tr[data-document-id="${docId}"]`);
    try {
      await page.getByRole("link", { name: "Ask" }).click();
      await page.getByRole("link", { name: "Documents" }).click();
      await page.locator(`article.job[data-job-id="${deleting.id}"]`).waitFor();
      await expect
        .poll(() => mine.getByRole("button", { name: "Delete" }).isDisabled(), { timeout: 20_000 })
        .toBe(true);
      expect(await mine.getByRole("button", { name: "Re-index" }).isDisabled()).toBe(true);
      // Leaving the view closes the job's progress stream (each visit opened another before).
      const streamClosed = page.waitForEvent("requestfailed", {
        predicate: (request) => request.url().includes(`/api/v1/jobs/${deleting.id}/events`),
        timeout: LOADED_MACHINE_WAIT_MS,
      });
      await page.getByRole("link", { name: "Ask" }).click();
      await streamClosed;
      await page.getByRole("link", { name: "Documents" }).click();
      await page.locator(`article.job[data-job-id="${deleting.id}"]`).waitFor();
    } finally {
      await stub.end();
    }
    // The job's end reaches the table through its event stream: a busy machine takes its time.
    await expect
      .poll(() => mine.getByRole("button", { name: "Delete" }).isDisabled(), { timeout: 20_000 })
      .toBe(false);
    await stub.unrouteEvents();
  }, 60_000);

  it("shows the rows of the latest filter, not those of a slower earlier one", async () => {
    const slowFilter = (url: URL) =>
      url.pathname === "/api/v1/documents" && url.searchParams.get("q") === "zz";
    const { lateAnswer } = await answerLate(slowFilter);
    const search = page.getByLabel("Filter documents");
    const rows = page.locator("table.documents tbody tr");
    try {
      // The "zz" request must have left before "vessen" is typed: two fills within one frame
      // render once, and then no request for "zz" is made at all (and no late answer comes).
      const zzSent = page.waitForRequest((request) => slowFilter(new URL(request.url())));
      await search.fill("zz");
      await zzSent;
      await search.fill("vessen");
      // The unfiltered rows are still there until the answer for "vessen" comes: wait for its rows.
      await expect.poll(async () => (await rows.first().textContent())?.toLowerCase()).toContain("vessen");
      await lateAnswer;
      await delay(300);
      // The answer for "zz" (no rows) came last and is not shown.
      expect(await rows.count()).toBeGreaterThan(0);
      expect((await rows.first().textContent())?.toLowerCase()).toContain("vessen");
    } finally {
      await page.unroute(slowFilter);
      await search.fill("");
    }
  }, 60_000);

  it("says when the filter leaves no document, with how many there are in all", async () => {
    const heading = page.getByRole("heading", { name: /^Documents \(/ });
    await expect.poll(() => heading.textContent()).toMatch(/^Documents \(\d+\)$/);
    const all = Number(/\((\d+)\)/.exec((await heading.textContent()) ?? "")?.[1]);
    expect(all).toBeGreaterThan(0);
    const search = page.getByLabel("Filter documents");
    try {
      await search.fill("no-such-document");
      const empty = page.getByText(/^No document matches/);
      await empty.waitFor();
      expect(await empty.textContent()).toBe(
        `No document matches “no-such-document” (of ${all} documents in all): change or clear the filter.`,
      );
      await expect.poll(() => heading.textContent()).toBe(`Documents (0 of ${all})`);
      expect(await page.getByText("No documents yet.").count()).toBe(0);
    } finally {
      await search.fill("");
    }
    await expect.poll(() => heading.textContent()).toBe(`Documents (${all})`);
  }, 60_000);

  it("names each row's Re-index and Delete buttons with its document", async () => {
    const row = page.locator("table.documents tbody tr", { hasText: "青岚科技" }).first();
    await row.waitFor();
    expect(await row.getByRole("button", { name: "Delete 青岚科技", exact: true }).count()).toBe(1);
    expect(await row.getByRole("button", { name: "Re-index 青岚科技", exact: true }).count()).toBe(1);
  });

  it("shows the next page of documents from its first row, not scrolled to its end", async () => {
    const documents = Array.from({ length: 120 }, (_, i) => ({
      id: `doc-page-${String(i).padStart(3, "0")}`,
      title: `Paged document ${i}`,
      status: "indexed",
      chunks: 1,
      metadata: {},
    }));
    const listed = (url: URL) => url.pathname === "/api/v1/documents";
    await page.route(listed, (route) => {
      const params = new URL(route.request().url()).searchParams;
      const offset = Number(params.get("offset") ?? 0);
      const limit = Number(params.get("limit") ?? 50);
      return route.fulfill({
        json: { items: documents.slice(offset, offset + limit), total: documents.length },
      });
    });
    try {
      await page.getByRole("button", { name: "Refresh", exact: true }).click();
      const next = page.getByRole("button", { name: "Next", exact: true });
      await next.scrollIntoViewIfNeeded();
      await next.click();
      const firstOfPage = page.locator("table.documents tbody tr", { hasText: "Paged document 50" });
      await firstOfPage.waitFor();
      const viewport = page.viewportSize();
      const inView = async () => {
        const box = await firstOfPage.boundingBox();
        return Boolean(box && viewport && box.y >= 0 && box.y + box.height <= viewport.height);
      };
      await expect.poll(inView).toBe(true);
    } finally {
      await page.unroute(listed);
      await page.getByRole("button", { name: "Previous", exact: true }).click();
      await page.getByRole("button", { name: "Refresh", exact: true }).click();
    }
  }, 60_000);

  it("shows the latest finished jobs above the table, the earlier ones behind a button, and puts a dismissed one away", async () => {
    const finished = Array.from({ length: 6 }, (_, i) => ({
      id: `aaaaaaaa-bbbb-cccc-dddd-00000000000${i}`,
      kind: "index",
      status: "done",
      stage: "done",
      done: 1,
      total: 1,
      progress: 1,
      errors: [],
      documents: [],
      files: [`notes-${i}.txt`],
      createdAt: new Date().toISOString(),
    }));
    const jobList = (url: URL) => url.pathname === "/api/v1/jobs";
    await page.route(jobList, (route) => route.fulfill({ json: { items: finished } }));
    const cards = page.locator("article.job");
    const shownIds = () => cards.evaluateAll((all) => all.map((card) => card.getAttribute("data-job-id")));
    const ids = finished.map((job) => job.id);
    try {
      await page.getByRole("link", { name: "Ask" }).click();
      await page.getByRole("link", { name: "Documents" }).click();
      await expect.poll(shownIds).toEqual(ids.slice(0, 3));
      // The table starts on the first screen, under the cards.
      const table = await page.locator("table.documents").boundingBox();
      expect(table?.y ?? Number.POSITIVE_INFINITY).toBeLessThan(900);
      await page.getByRole("button", { name: "Show 3 earlier jobs" }).click();
      await expect.poll(shownIds).toEqual(ids);
      await page.getByRole("button", { name: "Hide the earlier jobs" }).click();
      await expect.poll(shownIds).toEqual(ids.slice(0, 3));
      await cards.first().getByRole("button", { name: "Dismiss: Index 1 file: notes-0.txt" }).click();
      await expect.poll(shownIds).toEqual(ids.slice(1, 4));
      expect(await page.getByRole("button", { name: "Show 2 earlier jobs" }).count()).toBe(1);
      // Put away for good: a reload does not bring it back.
      await page.reload();
      await expect.poll(shownIds).toEqual(ids.slice(1, 4));
    } finally {
      await page.unroute(jobList);
      await page.evaluate("localStorage.removeItem('kgrag.dismissedJobs.ws')");
    }
  }, 60_000);

  it("streams an answer whose [n] citation opens the cited passage", async () => {
    await page.getByRole("link", { name: "Ask" }).click();
    await page
      .getByLabel("Question")
      .fill("Where was the founder of the company that makes the Gullwing drone born?");
    await page.getByRole("button", { name: "Ask", exact: true }).click();
    await page.locator(".answer-panel .metrics").waitFor({ timeout: 60_000 });
    const citation = page.locator(".answer .citation").first();
    await citation.waitFor();
    await shot("ask");
    await citation.click();
    const dialog = page.getByRole("dialog", { name: "Passage" });
    await dialog.locator(".passage-text").waitFor();
    const passage = await dialog.locator(".passage-text").textContent();
    expect(passage?.length ?? 0).toBeGreaterThan(20);
    // The passage's sentence that the answer's cited sentence says is marked, whole (the offline
    // answer quotes it), rather than every occurrence of the question's keywords.
    const marks = await dialog.locator(".passage-text mark").allTextContents();
    const answer = (await page.getByTestId("answer").first().textContent()) ?? "";
    expect(marks).toHaveLength(1);
    expect(marks[0]).toMatch(/[.!?]$/);
    expect(answer).toContain(marks[0]!.slice(0, -1));
    // The sources under the answer are the passages it cites, under their numbers, as the CLI lists them.
    const cited = [...answer.matchAll(/\[(\d+(?:,\s*\d+)*)\]/g)].flatMap((m) =>
      (m[1] ?? "").split(/,\s*/).map(Number),
    );
    const listed = await page
      .locator(".answer-panel .sources ol.references li")
      .evaluateAll((items) => items.map((item) => Number(item.getAttribute("value"))));
    expect(listed).toEqual([...new Set(cited)].sort((a, b) => a - b));
    // Fewer than it retrieved ("passages (18)"), which the passages tab lists.
    const passagesTab = (await page.getByRole("tab", { name: /^passages/ }).textContent()) ?? "";
    expect(listed.length).toBeLessThan(Number(/\((\d+)\)/.exec(passagesTab)?.[1]));
    expect(await page.locator(".answer-panel .sources-heading").textContent()).toBe("Sources");
    await shot("citation");
    // The passages tab (shown first, under the dialog) names each passage by its document's title,
    // as the sources do, not by its id alone.
    const titles = await page.locator(".answer-panel .sources ol.references li button").allTextContents();
    const labels = await page.locator(".answer-panel ol.context .passage-source strong").allTextContents();
    expect(labels.length).toBe(Number(/\((\d+)\)/.exec(passagesTab)?.[1]));
    for (const title of titles) expect(labels).toContain(title);
    // Focus is in the (modal) dialog and Tab keeps it there; closing gives it back to the citation.
    const focusInDialog = () =>
      page.evaluate<boolean>(
        `Boolean(document.activeElement?.closest('[role="dialog"][aria-modal="true"]'))`,
      );
    await expect.poll(focusInDialog).toBe(true);
    await page.keyboard.press("Tab");
    expect(await focusInDialog()).toBe(true);
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    await expect
      .poll(() => page.evaluate<boolean>(`document.activeElement?.classList.contains("citation")`))
      .toBe(true);
  }, 120_000);

  it("compares two modes side by side", async () => {
    await page.getByLabel("Question").fill("听潮芯片是哪家公司研发的？");
    await page.getByLabel("compare with").check();
    await page.getByLabel("Second mode").selectOption("local");
    await page.getByRole("button", { name: "Ask", exact: true }).click();
    await page.locator('.answer-panel[data-mode="local"] .metrics').waitFor({ timeout: 60_000 });
    await page.locator('.answer-panel[data-mode="mix"] .metrics').waitFor({ timeout: 60_000 });
    expect(await page.locator(".answer-panel").count()).toBe(2);
  }, 120_000);

  it("moves between a compared answer's context tabs with the arrow keys, each answer's tabs named apart", async () => {
    const tabs = page.getByRole("tablist", { name: "Context (local)" });
    expect(await page.getByRole("tablist", { name: "Context (mix)" }).count()).toBe(1);
    const selected = () => tabs.locator('[role="tab"][aria-selected="true"]').textContent();
    const focused = () => page.evaluate<string | undefined>(`document.activeElement?.textContent`);
    // One Tab stop: the selected tab (passages, by default).
    expect(await tabs.locator('[role="tab"][tabindex="0"]').count()).toBe(1);
    await tabs.locator('[role="tab"][aria-selected="true"]').focus();
    await page.keyboard.press("ArrowLeft");
    await expect.poll(selected).toMatch(/^reports/);
    await expect.poll(focused).toMatch(/^reports/);
    await page.keyboard.press("Home");
    await expect.poll(selected).toMatch(/^entities/);
    await page.keyboard.press("ArrowLeft");
    await expect.poll(selected).toMatch(/^passages/);
    await expect.poll(focused).toMatch(/^passages/);
    // The panel is named by its tab; the other answer's tabs did not move.
    const panel = page.locator('.answer-panel[data-mode="local"] [role="tabpanel"]');
    const labelledBy = (await panel.getAttribute("aria-labelledby")) ?? "";
    expect(await page.locator(`[id="${labelledBy}"]`).textContent()).toMatch(/^passages/);
    expect(
      await page
        .getByRole("tablist", { name: "Context (mix)" })
        .locator('[aria-selected="true"]')
        .textContent(),
    ).toMatch(/^passages/);
  }, 30_000);

  it("asks on Enter (Shift+Enter starts a new line) and keeps question, options and answer across views", async () => {
    const question = page.getByLabel("Question");
    await page.getByLabel("compare with").uncheck();
    await page.getByLabel("Mode", { exact: true }).selectOption("global");
    await page.getByText("Options", { exact: true }).click();
    await page.getByLabel("topK", { exact: true }).fill("7");
    await question.fill("What groups");
    await question.press("Shift+Enter");
    await question.pressSequentially("are there?");
    expect(await question.inputValue()).toBe("What groups\nare there?");
    expect(await page.locator('.answer-panel[data-mode="global"]').count()).toBe(0);
    await question.press("Enter");
    await page.locator('.answer-panel[data-mode="global"] .metrics').waitFor({ timeout: 60_000 });
    // Enter asked: it did not add a line.
    expect(await question.inputValue()).toBe("What groups\nare there?");
    const answer = await page.locator(".answer-panel .answer").textContent();
    expect(answer).toMatch(/\[C:c\d+-[0-9a-f]+\]/);
    const reportsTab = page.getByRole("tab", { name: /^reports/ });
    await reportsTab.click();
    // The reports' summaries name the reports they cite: no raw [C:id] is left in them.
    expect(await page.locator(".answer-panel ul.context").textContent()).not.toMatch(/\[[ERC]:/);
    await page.getByRole("link", { name: "Documents" }).click();
    await page.locator("table.documents tbody tr").first().waitFor();
    await page.getByRole("link", { name: "Ask" }).click();
    expect(await question.inputValue()).toBe("What groups\nare there?");
    expect(await page.getByLabel("Mode", { exact: true }).inputValue()).toBe("global");
    expect(await page.getByLabel("topK", { exact: true }).inputValue()).toBe("7");
    expect(await page.locator(".answer-panel .answer").textContent()).toBe(answer);
    // The context tab picked before leaving is still the one shown.
    expect(await reportsTab.getAttribute("aria-selected")).toBe("true");
  }, 120_000);

  it("opens the community report a [C:id] citation names, and goes back to the answer", async () => {
    const citation = page.locator(".answer .report-citation").first();
    const marker = (await citation.textContent()) ?? "";
    const id = /^\[C:(.+)\]$/.exec(marker)?.[1] ?? "";
    expect(id).not.toBe("");
    await citation.click();
    await page.waitForURL((url) => routeParams(url).get("community") === id);
    expect(routeParams(page.url()).get("workspace")).toBe("ws");
    const report = page.locator("article.report h2");
    await report.waitFor();
    const tree = page.getByRole("navigation", { name: "Community hierarchy" });
    expect(await tree.locator("button.link.active").textContent()).toBe(await report.textContent());
    await page.goBack();
    await page.locator(".answer .report-citation").first().waitFor();
  }, 60_000);

  it("says what stops a question, on Ask and on Enter alike, opening the options at fault", async () => {
    const sent: string[] = [];
    const onRequest = (request: Request) => {
      if (new URL(request.url()).pathname.startsWith("/api/v1/query")) sent.push(request.url());
    };
    page.on("request", onRequest);
    const question = page.getByLabel("Question");
    const options = page.locator("details.options");
    const problem = page.locator(".ask-form").getByRole("alert");
    const setClosedOption = async (label: string, value: string) => {
      if ((await options.getAttribute("open")) === null) await options.locator("summary").click();
      await page.getByLabel(label, { exact: true }).fill(value);
      await options.locator("summary").click();
      await expect.poll(() => options.getAttribute("open")).toBeNull();
    };
    const focusedId = () => page.evaluate<string | undefined>("document.activeElement?.id");
    try {
      await question.fill("");
      await page.getByRole("button", { name: "Ask", exact: true }).click();
      await expect.poll(() => problem.textContent()).toBe("Type a question first.");
      // An option below its minimum, in the closed options section: Ask opens it at the field.
      await question.fill("Who founded Tidewell Robotics?");
      await expect.poll(() => problem.count()).toBe(0);
      await setClosedOption("topK", "");
      await setClosedOption("totalTokens", "100");
      await page.getByRole("button", { name: "Ask", exact: true }).click();
      await expect.poll(() => options.getAttribute("open")).not.toBeNull();
      await expect
        .poll(() => problem.textContent())
        .toBe("totalTokens must be a whole number of at least 256, not 100.");
      await expect.poll(focusedId).toBe("ask-totalTokens");
      expect(await page.getByLabel("totalTokens", { exact: true }).getAttribute("aria-invalid")).toBe("true");
      // Enter checks the same way.
      await page.getByLabel("totalTokens", { exact: true }).fill("");
      await expect.poll(() => problem.count()).toBe(0);
      await setClosedOption("topK", "-5");
      await question.press("Enter");
      await expect.poll(() => options.getAttribute("open")).not.toBeNull();
      await expect
        .poll(() => problem.textContent())
        .toBe("topK must be a whole number of at least 1, not -5.");
      await expect.poll(focusedId).toBe("ask-topK");
      // Above the most the server takes: said here, not answered with the server's 400.
      await page.getByLabel("topK", { exact: true }).fill("99999999999");
      await question.press("Enter");
      await expect.poll(() => problem.textContent()).toBe("topK must be at most 10,000, not 99999999999.");
      await page.getByLabel("topK", { exact: true }).fill("");
      // Text the browser cannot read as a number leaves the input's value empty: it is reported
      // too, not sent as if the option were left empty.
      const chunkTopK = page.getByLabel("chunkTopK", { exact: true });
      await chunkTopK.pressSequentially("1e");
      expect(await chunkTopK.inputValue()).toBe("");
      await options.locator("summary").click();
      await question.press("Enter");
      await expect.poll(() => options.getAttribute("open")).not.toBeNull();
      await expect
        .poll(() => problem.textContent())
        .toBe("chunkTopK must be a whole number of at least 1; what is typed there is not a number.");
      await expect.poll(focusedId).toBe("ask-chunkTopK");
      expect(await chunkTopK.getAttribute("aria-invalid")).toBe("true");
      expect(sent).toEqual([]);
      await chunkTopK.fill("");
      await expect.poll(() => problem.count()).toBe(0);
      expect(await page.evaluate<boolean>(`document.getElementById("ask-chunkTopK").validity.badInput`)).toBe(
        false,
      );
    } finally {
      page.off("request", onRequest);
    }
  }, 60_000);

  it("opens the graph, shows an entity and expands a neighbour", async () => {
    // What the canvas says of its layout, at each change of the page once it draws nodes: tests
    // wait for "settled", which must not be said of nodes not laid out yet.
    await page.evaluate(`(() => {
      window.layoutSaid = [];
      new MutationObserver(() => {
        const canvas = document.querySelector("[data-testid=graph-canvas]");
        const count = document.querySelector(".graph-count")?.textContent ?? "";
        if (canvas && /[1-9]\\d* nodes/.test(count)) window.layoutSaid.push(canvas.dataset.layout);
      }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    })()`);
    await page.getByRole("link", { name: "Graph" }).click();
    const panel = page.getByRole("complementary", { name: "Entity details" });
    await panel.locator(".relationships li").first().waitFor({ timeout: 60_000 });
    const first = await panel.locator("h2").textContent();
    const before = await nodeCount(page);
    expect(before).toBeGreaterThan(1);
    // Coloured by community, the legend names communities by their reports' titles, not their ids.
    const titles = await page.evaluate<string[]>(
      `fetch("/api/v1/graph/communities").then((r) => r.json()).then((body) => body.items.map((c) => c.title))`,
    );
    const legend = page.getByRole("list", { name: "Legend" }).locator("li");
    await expect
      .poll(async () =>
        (await legend.allTextContents()).some((text) => titles.some((t) => text.startsWith(t))),
      )
      .toBe(true);
    for (const text of await legend.allTextContents()) expect(text).not.toMatch(/^c\d+-[0-9a-f]{12} /);
    // ForceAtlas2 runs in its worker for a bounded time, then the canvas reports the layout settled:
    // running from the first render that drew the nodes (the layout starts after it).
    await layoutSettled(page);
    const said = await page.evaluate<string[]>("window.layoutSaid");
    expect(said[0]).toBe("running");
    expect(said.at(-1)).toBe("settled");
    await shot("graph");
    // Expand the neighbour: the panel moves to it and its own neighbours join the graph.
    const neighbour = panel.locator(".relationships li button.link").first();
    const name = await neighbour.textContent();
    await neighbour.click();
    await panel.getByRole("heading", { name: name ?? "", exact: true, level: 2 }).waitFor();
    await panel.locator(".relationships li").first().waitFor();
    expect(name).not.toBe(first);
    expect(await nodeCount(page)).toBeGreaterThanOrEqual(before);
    // A source passage opens with the entity's mention marked.
    await panel.locator(".sources .passage-button").first().click();
    const dialog = page.getByRole("dialog", { name: "Passage" });
    await expect(dialog.locator("mark").first().textContent()).resolves.toBeTruthy();
    await shot("graph-passage");
    await dialog.getByRole("button", { name: "Close", exact: true }).click();
  }, 120_000);

  it("draws the legend above the graph, never over its nodes, at phone width too", async () => {
    for (const width of [1400, 375]) {
      await page.setViewportSize({ width, height: width > 1000 ? 900 : 740 });
      const legendAbove = async () => {
        const legend = await page.getByRole("list", { name: "Legend" }).boundingBox();
        const drawing = await page.locator("[data-testid=graph-canvas]").boundingBox();
        return Boolean(legend && drawing && legend.y + legend.height <= drawing.y + 1);
      };
      await expect.poll(legendAbove).toBe(true);
    }
    await page.setViewportSize({ width: 1400, height: 900 });
  });

  it("shows a description merged from several passages as one paragraph per passage", async () => {
    // The API sends it readable, one fragment a line; the panel shows each line as a paragraph.
    const merged = await page.evaluate<{ name: string; description: string } | undefined>(
      `fetch("/api/v1/graph/entities/popular?limit=200").then((r) => r.json()).then(async (body) => {
        const row = body.items.find((e) => e.description.includes("\\n"));
        if (!row) return undefined;
        const detail = await fetch("/api/v1/graph/entity?name=" + encodeURIComponent(row.name)).then((r) => r.json());
        return { name: row.name, description: detail.entity.description };
      })`,
    );
    expect(merged).toBeDefined();
    const { name, description } = merged as { name: string; description: string };
    await page.goto(`${server.url}/#/graph?workspace=ws&entity=${encodeURIComponent(name)}`);
    const panel = page.getByRole("complementary", { name: "Entity details" });
    await panel.getByRole("heading", { name, exact: true, level: 2 }).waitFor({ timeout: 30_000 });
    const parts = panel.locator(".description .description-part");
    // The heading can show before the entity's details have arrived: wait for the parts.
    await expect.poll(() => parts.allTextContents(), { timeout: 30_000 }).toEqual(description.split("\n"));
    expect(await panel.textContent()).not.toContain("<SEP>");
  }, 60_000);

  it("shows each source passage's mention within its few-line preview, deep in a passage and in Chinese too", async () => {
    const panel = page.getByRole("complementary", { name: "Entity details" });
    // Both are mentioned past the fourth line of every passage they come from.
    for (const name of ["Tingchao", "维森"]) {
      await page.goto(`${server.url}/#/graph?workspace=ws&entity=${encodeURIComponent(name)}`);
      await panel.getByRole("heading", { name, exact: true, level: 2 }).waitFor({ timeout: 30_000 });
      const previews = panel.locator(".sources .snippet");
      await previews.first().waitFor({ timeout: 30_000 });
      const seen = await previews.evaluateAll((spans) =>
        spans.map((span) => {
          const mark = span.querySelector("mark");
          if (!mark) return "no mark";
          const box = span.getBoundingClientRect();
          const marked = mark.getBoundingClientRect();
          return marked.top >= box.top && marked.bottom <= box.bottom + 1 ? mark.textContent : "hidden";
        }),
      );
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.every((text) => text?.toLowerCase() === name.toLowerCase())).toBe(true);
      await previews.first().scrollIntoViewIfNeeded();
      await shot(`graph-preview-${name === "维森" ? "zh" : "en"}`);
    }
  }, 60_000);

  it("keeps the keyboard in the entity panel: a pick by keyboard moves the focus to the entity's heading", async () => {
    const panel = page.getByRole("complementary", { name: "Entity details" });
    const focused = () =>
      page.evaluate<string>(
        `document.activeElement?.closest("aside h2") ? document.activeElement.textContent : document.activeElement?.tagName`,
      );
    await page.goto(`${server.url}/#/graph?workspace=ws&entity=${encodeURIComponent("澄州")}`);
    await panel.getByRole("heading", { name: "澄州", exact: true, level: 2 }).waitFor({ timeout: 30_000 });
    // A suggestion picked with Tab and Enter.
    await page.getByLabel("Search entities").fill("林晓舟");
    await page.locator(".suggestion").first().waitFor();
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await panel.getByRole("heading", { name: "林晓舟", exact: true, level: 2 }).waitFor({ timeout: 30_000 });
    await expect.poll(focused).toBe("林晓舟");
    // The arrows walk the suggestions: down to the second, back up to the first, then Enter.
    await page.getByLabel("Search entities").fill("Vessen");
    const suggestions = page.locator(".suggestion");
    await suggestions.nth(1).waitFor();
    const [first, second] = (await suggestions.allTextContents()).map((text) =>
      text.replace(/ \S+ · \d+$/, ""),
    );
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    const focusedText = await page.evaluate<string | undefined>(`document.activeElement?.textContent`);
    expect(focusedText?.startsWith(`${second} `)).toBe(true);
    await page.keyboard.press("ArrowUp");
    await page.keyboard.press("Enter");
    await panel.getByRole("heading", { name: first, exact: true, level: 2 }).waitFor({ timeout: 30_000 });
    await expect.poll(focused).toBe(first);
    // A relationship's other end, reached from there with Tab and opened with Enter.
    const neighbour = panel.locator(".relationships li button.link").first();
    await neighbour.waitFor({ timeout: 30_000 });
    const next = (await neighbour.textContent()) ?? "";
    await neighbour.focus();
    await page.keyboard.press("Enter");
    await panel.getByRole("heading", { name: next, exact: true, level: 2 }).waitFor({ timeout: 30_000 });
    await expect.poll(focused).toBe(next);
  }, 60_000);

  it("moves through the graph from the keyboard: Tab reaches it, arrows go between nodes, Enter opens one, Space expands it, each announced", async () => {
    const panel = page.getByRole("complementary", { name: "Entity details" });
    await page.goto(`${server.url}/#/graph?workspace=ws&entity=${encodeURIComponent("澄州")}`);
    await panel.getByRole("heading", { name: "澄州", exact: true, level: 2 }).waitFor({ timeout: 30_000 });
    await layoutSettled(page);
    const canvas = page.locator("[data-testid=graph-canvas]");
    const keyboardNode = () => canvas.getAttribute("data-keyboard-node");
    const announced = page.getByTestId("graph-announcement");
    // Tab from the toolbar's last control reaches the drawing, which starts on the entity open.
    await page.getByRole("button", { name: "Clear" }).focus();
    await page.keyboard.press("Tab");
    expect(await page.evaluate(`document.activeElement?.dataset.testid`)).toBe("graph-canvas");
    expect(await canvas.getAttribute("role")).toBe("application");
    await expect.poll(keyboardNode).toBe("澄州");
    // A ring marks the node on the drawing, and goes when the focus leaves it.
    const ring = page.locator(".keyboard-ring");
    await expect.poll(() => ring.isVisible()).toBe(true);
    expect(await announced.getAttribute("aria-live")).toBe("polite");
    await expect.poll(() => announced.textContent()).toMatch(/^澄州, \S+, \d+ relationships, open$/);
    // The arrows move to other nodes on screen, each announced by name.
    const visited = new Set<string>();
    for (const key of ["ArrowRight", "ArrowDown", "ArrowLeft", "ArrowUp", "ArrowRight", "ArrowDown"]) {
      await page.keyboard.press(key);
      const at = (await keyboardNode()) ?? "";
      visited.add(at);
      expect((await announced.textContent())?.startsWith(`${at}, `)).toBe(true);
    }
    visited.delete("澄州");
    expect(visited.size).toBeGreaterThan(0);
    // Page Down walks them by how connected they are, whatever their place.
    while ((await keyboardNode()) === "澄州") await page.keyboard.press("PageDown");
    const target = (await keyboardNode()) ?? "";
    await shot("graph-keyboard");
    // Enter opens its panel (a history entry), expanding nothing; the keyboard stays on the drawing.
    const before = await nodeCount(page);
    await page.keyboard.press("Enter");
    await panel.getByRole("heading", { name: target, exact: true, level: 2 }).waitFor({ timeout: 30_000 });
    expect(routeParams(page.url()).get("entity")).toBe(target);
    expect(await nodeCount(page)).toBe(before);
    expect(await page.evaluate(`document.activeElement?.dataset.testid`)).toBe("graph-canvas");
    await expect.poll(() => announced.textContent()).toMatch(/, open$/);
    // Space expands it: its neighbourhood is asked for.
    const expansion = page.waitForRequest(
      (request) =>
        new URL(request.url()).pathname === "/api/v1/graph/neighbourhood" &&
        new URL(request.url()).searchParams.get("name") === target,
    );
    await page.keyboard.press(" ");
    await expansion;
    await expect.poll(() => page.locator(".toolbar").textContent()).not.toContain("Loading");
    expect(await nodeCount(page)).toBeGreaterThanOrEqual(before);
    await page.getByRole("button", { name: "Clear" }).focus();
    await expect.poll(() => ring.isVisible()).toBe(false);
  }, 90_000);

  it("cuts a hub's long description to a few lines, its relationships in sight, with Show more and Show less from the keyboard", async () => {
    // A hub's description merged from forty passages.
    const long = Array.from(
      { length: 40 },
      (_, i) =>
        `Passage ${i + 1} says that 澄州 is a harbour city with shipyards, a university and chip makers.`,
    ).join("\n");
    const entityRoute = (url: URL) => url.pathname === "/api/v1/graph/entity";
    await page.route(entityRoute, async (route) => {
      const response = await route.fetch();
      const body = (await response.json()) as { entity: { description: string } };
      body.entity.description = long;
      await route.fulfill({ response, json: body });
    });
    try {
      await page.setViewportSize({ width: 1400, height: 900 });
      await page.goto(`${server.url}/#/graph?workspace=ws&entity=${encodeURIComponent("澄州")}`);
      const panel = page.getByRole("complementary", { name: "Entity details" });
      // Only the hash changed: the entity shown before (whose description may be cut too) stays
      // until the app takes it. Its panel is gone once the heading names 澄州.
      await panel.getByRole("heading", { name: "澄州", exact: true, level: 2 }).waitFor({ timeout: 30_000 });
      const more = panel.getByRole("button", { name: "Show more" });
      await more.waitFor({ timeout: 30_000 });
      expect(await more.getAttribute("aria-expanded")).toBe("false");
      // The relationships start within the first screen, without scrolling past the description.
      const relationships = panel.getByRole("heading", { name: /^Relationships/, level: 3 });
      const heading = await relationships.boundingBox();
      expect(heading && heading.y + heading.height <= 900).toBe(true);
      expect(await panel.evaluate((aside) => aside.scrollTop)).toBe(0);
      const description = panel.locator(".clamp-box");
      const cutHeight = (await description.boundingBox())?.height ?? 0;
      await shot("graph-description-cut");
      // Enter on the button shows the whole text; Space cuts it again.
      await more.focus();
      await page.keyboard.press("Enter");
      const less = panel.getByRole("button", { name: "Show less" });
      await less.waitFor();
      expect(await less.getAttribute("aria-expanded")).toBe("true");
      expect((await description.boundingBox())?.height ?? 0).toBeGreaterThan(cutHeight * 3);
      await expect(panel.getByText("Passage 40 says").isVisible()).resolves.toBe(true);
      await page.keyboard.press(" ");
      await more.waitFor();
      expect((await description.boundingBox())?.height).toBe(cutHeight);
    } finally {
      await page.unroute(entityRoute);
    }
    // A short description is shown whole, with no button.
    await page.goto(`${server.url}/#/graph?workspace=ws&entity=${encodeURIComponent("林晓舟")}`);
    const panel = page.getByRole("complementary", { name: "Entity details" });
    // Only the address's hash changed: until the app takes it, the panel still shows 澄州 (with
    // its relationships and button). The heading names the new entity once the old one is gone.
    await panel.getByRole("heading", { level: 2, name: "林晓舟" }).waitFor({ timeout: 30_000 });
    await panel.locator(".relationships li").first().waitFor({ timeout: 30_000 });
    expect(await panel.getByRole("button", { name: /^Show (more|less)$/ }).count()).toBe(0);
  }, 90_000);

  it("asks a large neighbourhood's relationships in proportion to its nodes, so none is drawn without its edges", async () => {
    const panel = page.getByRole("complementary", { name: "Entity details" });
    await page.goto(`${server.url}/#/graph?workspace=ws&entity=${encodeURIComponent("澄州")}`);
    await panel.getByRole("heading", { name: "澄州", exact: true, level: 2 }).waitFor({ timeout: 30_000 });
    await page.getByLabel("Max nodes").selectOption("2000");
    // The server answers the strongest relationships first, up to maxEdges: 1,500 strong ones
    // among 60 core nodes, then 599 weak ones, each the only edge of a leaf.
    const hood = largeNeighbourhood("澄州");
    const asked = (url: URL) => url.pathname === "/api/v1/graph/neighbourhood";
    await page.route(asked, (route) => {
      const maxEdges = Number(new URL(route.request().url()).searchParams.get("maxEdges"));
      const edges = hood.edges.slice(0, maxEdges);
      return route.fulfill({
        json: { nodes: hood.nodes, edges, truncated: edges.length < hood.edges.length },
      });
    });
    try {
      await panel.getByRole("button", { name: "Expand", exact: true }).click();
      await expect.poll(() => nodeCount(page), { timeout: 30_000 }).toBeGreaterThanOrEqual(hood.nodes.length);
      const edgesDrawn = Number(
        /(\d+) edges/.exec((await page.locator(".graph-count").textContent()) ?? "")?.[1],
      );
      expect(edgesDrawn).toBeGreaterThanOrEqual(hood.edges.length);
      expect(await page.getByText("The server capped this neighbourhood").count()).toBe(0);
    } finally {
      await page.unroute(asked);
      // The next tests start from the real neighbourhood, at the default size.
      await page.reload();
      await panel.getByRole("heading", { name: "澄州", exact: true, level: 2 }).waitFor({ timeout: 30_000 });
    }
  }, 60_000);

  it("keeps the entity shown in the address: a reload shows it again, Back the one before", async () => {
    const panel = page.getByRole("complementary", { name: "Entity details" });
    const heading = (name: string) => panel.getByRole("heading", { name, exact: true, level: 2 });
    const shown = (await panel.locator("h2").textContent()) ?? "";
    expect(routeParams(page.url()).get("entity")).toBe(shown);
    const neighbour = panel.locator(".relationships li button.link").first();
    await neighbour.waitFor({ timeout: 30_000 });
    const next = (await neighbour.textContent()) ?? "";
    await neighbour.click();
    await heading(next).waitFor();
    expect(routeParams(page.url()).get("entity")).toBe(next);
    await page.reload();
    await heading(next).waitFor({ timeout: 30_000 });
    await page.goBack();
    await heading(shown).waitFor({ timeout: 30_000 });
    expect(routeParams(page.url()).get("entity")).toBe(shown);
    expect(await page.getByRole("link", { name: "Graph" }).getAttribute("class")).toBe("active");
    await page.goForward();
    await heading(next).waitFor({ timeout: 30_000 });
    await panel.locator(".relationships li").first().waitFor();
  }, 90_000);

  it("clears the graph as a history entry: a reload stays empty, Back shows the entity again", async () => {
    const panel = page.getByRole("complementary", { name: "Entity details" });
    const shown = (await panel.locator("h2").textContent()) ?? "";
    expect(shown).not.toBe("");
    await page.getByRole("button", { name: "Clear", exact: true }).click();
    await page.waitForURL((url) => routeParams(url).get("entity") === "");
    expect(routeParams(page.url()).get("workspace")).toBe("ws");
    await expect.poll(() => nodeCount(page)).toBe(0);
    expect(await panel.count()).toBe(0);
    // No legend box over the empty graph.
    expect(await page.getByRole("list", { name: "Legend" }).count()).toBe(0);
    // Reloaded, the address still shows nothing: the best connected entities to pick from, none opened.
    await page.reload();
    await page.locator(".graph-view .chips button").first().waitFor({ timeout: 30_000 });
    await delay(500);
    expect(await panel.count()).toBe(0);
    expect(await nodeCount(page)).toBe(0);
    expect(routeParams(page.url()).get("entity")).toBe("");
    await page.goBack();
    await panel.getByRole("heading", { name: shown, exact: true, level: 2 }).waitFor({ timeout: 30_000 });
    expect(routeParams(page.url()).get("entity")).toBe(shown);
    expect(await nodeCount(page)).toBeGreaterThan(0);
  }, 90_000);

  it("followed from within the app to an entity that does not exist, shows no graph and says so", async () => {
    expect(await nodeCount(page)).toBeGreaterThan(0);
    const errorsBefore = consoleErrors.length;
    await page.evaluate(`location.hash = "#/graph?workspace=ws&entity=NoSuchEntity"`);
    await page
      .getByText(/NoSuchEntity/)
      .first()
      .waitFor({ timeout: 30_000 });
    await expect.poll(() => nodeCount(page)).toBe(0);
    expect(await page.getByRole("complementary", { name: "Entity details" }).count()).toBe(0);
    // The browser logs the server's 404 for the missing entity: that one is expected here. It
    // reaches the test through the console's channel, not with the page's text.
    await expect.poll(() => consoleErrors.length).toBeGreaterThan(errorsBefore);
    expect(consoleErrors.splice(errorsBefore)).toEqual([expect.stringMatching(/404/)]);
    await page.goBack();
    await expect.poll(() => nodeCount(page), { timeout: 30_000 }).toBeGreaterThan(0);
  }, 90_000);

  it("selects the entity expanded last when an earlier expansion answers after it", async () => {
    const panel = page.getByRole("complementary", { name: "Entity details" });
    await panel.locator(".relationships li button.link").nth(1).waitFor({ timeout: 60_000 });
    const [slowName, fastName] = await Promise.all([
      panel.locator(".relationships li button.link").nth(0).textContent(),
      panel.locator(".relationships li button.link").nth(1).textContent(),
    ]);
    expect(slowName).not.toBe(fastName);
    const slowHood = (url: URL) =>
      url.pathname === "/api/v1/graph/neighbourhood" && url.searchParams.get("name") === slowName;
    const { lateAnswer: slowDone } = await answerLate(slowHood);
    try {
      await panel.locator(".relationships li button.link").nth(0).click();
      await panel.locator(".relationships li button.link").nth(1).click();
      await panel.getByRole("heading", { name: fastName ?? "", exact: true, level: 2 }).waitFor();
      await slowDone;
      await delay(300);
      // The late answer grew the graph but did not take the panel back.
      expect(await panel.locator("h2").textContent()).toBe(fastName);
    } finally {
      await page.unroute(slowHood);
    }
  }, 60_000);

  it("renames an entity and merges a neighbour into it from the entity panel", async () => {
    const panel = page.getByRole("complementary", { name: "Entity details" });
    const current = (await panel.locator("h2").textContent()) ?? "";
    const neighbour = (await panel.locator(".relationships li button.link").first().textContent()) ?? "";
    expect(neighbour).not.toBe("");
    const renamed = `${current} (renamed)`;
    // The renamed entity's neighbourhood (drawn again after the rename) answers only once the edit
    // form is open again in its panel: the answer must not open the panel anew, closing the form.
    const released = deferred();
    const renamedHood = (url: URL) =>
      url.pathname === "/api/v1/graph/neighbourhood" && url.searchParams.get("name") === renamed;
    await page.route(renamedHood, async (route) => {
      await released.promise;
      await route.continue();
    });
    const curation = panel.locator("details.curation");
    try {
      await panel.getByText("Edit entity").click();
      await panel.getByLabel("New name").fill(renamed);
      await panel.getByRole("button", { name: "Rename", exact: true }).click();
      await panel.getByRole("heading", { name: renamed, exact: true, level: 2 }).waitFor();
      // The old name stays with the entity as an alias.
      await expect(panel.getByText(/^Also:/).textContent()).resolves.toContain(current);
      await panel.getByText("Edit entity").click();
      await expect.poll(() => curation.getAttribute("open")).not.toBeNull();
      const redrawn = page.waitForResponse((response) => renamedHood(new URL(response.url())));
      released.resolve();
      await redrawn;
      // "Loading…" goes in the render that takes the neighbourhood (and selects its entity).
      await expect.poll(() => page.locator(".toolbar").textContent()).not.toContain("Loading");
      expect(await curation.getAttribute("open")).not.toBeNull();
    } finally {
      released.resolve();
      await page.unroute(renamedHood);
    }
    await panel.getByLabel("Merge with").fill(neighbour);
    await panel.getByRole("button", { name: "Merge into this", exact: true }).click();
    await expect.poll(() => panel.getByText(/^Also:/).textContent()).toContain(neighbour);
    await panel.getByRole("heading", { name: renamed, exact: true, level: 2 }).waitFor();
    await shot("graph-curation");
  }, 120_000);

  it("shows an entity reached by an alias or in another case under its own name, its relationships by their other end", async () => {
    const panel = page.getByRole("complementary", { name: "Entity details" });
    const current = (await panel.locator("h2").textContent()) ?? "";
    const alias = current.replace(/ \(renamed\)$/, "");
    expect(alias).not.toBe(current);
    for (const asked of [alias, current.toLowerCase()]) {
      // The panel shown before names the same entity with the same relationships: the one read
      // below must be the one opened for `asked`, so the one before must have gone first.
      const before = await panel.elementHandle();
      await page.goto(`${server.url}/#/graph?workspace=ws&entity=${encodeURIComponent(asked)}`);
      await before?.waitForElementState("hidden", { timeout: 30_000 });
      await panel.getByRole("heading", { name: current, exact: true, level: 2 }).waitFor({ timeout: 30_000 });
      let others: string[] = [];
      await expect
        .poll(async () => {
          others = await panel.locator(".relationships li button.link").allTextContents();
          return others.length;
        })
        .toBeGreaterThan(0);
      // The entity itself is no relationship's other end (it was, for every relationship it starts).
      expect(others).not.toContain(current);
    }
  }, 90_000);

  it("shows the community tree, a report and its members on the graph", async () => {
    await page.getByRole("link", { name: "Communities" }).click();
    const tree = page.getByRole("navigation", { name: "Community hierarchy" });
    await tree.locator("button.link").first().click();
    const report = page.locator("article.report");
    await report.locator("h2").waitFor();
    expect(await report.locator(".chips button").count()).toBeGreaterThan(0);
    await page.locator(".community-detail [data-testid=graph-canvas]").waitFor({ timeout: 30_000 });
    await shot("communities");
    // The legend counts the members by colour and the faded neighbours apart: every node once.
    const entries = (selector: string) =>
      page
        .locator(`.community-detail .legend li${selector}`)
        .allTextContents()
        .then((texts) => texts.map((text) => Number(/\((\d+)\)$/.exec(text)?.[1] ?? Number.NaN)));
    const coloured = await entries(":not([data-faded])");
    const faded = await entries("[data-faded]");
    const nodes = await nodeCount(page);
    const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
    expect(sum(coloured) + sum(faded)).toBe(nodes);
    expect(sum(coloured)).toBeLessThanOrEqual(await report.locator(".chips button").count());
    if (sum(coloured) < nodes) {
      expect(faded).toHaveLength(1);
      expect(await page.locator(".community-detail .legend li[data-faded]").textContent()).toMatch(
        /^neighbours outside it \(\d+\)$/,
      );
    }
  }, 60_000);

  it("marks the view and the community shown as current, for screen readers", async () => {
    const tree = page.getByRole("navigation", { name: "Community hierarchy" });
    const picked = tree.locator("button.link.active");
    await picked.waitFor();
    expect(await picked.getAttribute("aria-current")).toBe("true");
    expect(await tree.locator("button.link[aria-current]").count()).toBe(1);
    expect(await page.getByRole("link", { name: "Communities" }).getAttribute("aria-current")).toBe("page");
    expect(await page.locator("header nav a[aria-current]").count()).toBe(1);
  });

  it("filters the community tree by title, Chinese too, keeping each match under its ancestors", async () => {
    const tree = page.getByRole("navigation", { name: "Community hierarchy" });
    const items = await page.evaluate<Array<{ id: string; title: string; parent?: string | null }>>(
      `fetch("/api/v1/graph/communities").then((r) => r.json()).then((body) => body.items)`,
    );
    const nested = items.find((item) => item.parent && /[\u4e00-\u9fff]/.test(item.title));
    expect(nested).toBeDefined();
    const { title, parent } = nested as { title: string; parent: string };
    const rows = tree.locator(".tree-row button.link");
    const filter = tree.getByLabel("Filter communities");
    try {
      await filter.fill(title);
      await expect.poll(() => rows.count()).toBeLessThan(items.length);
      const shown = await rows.allTextContents();
      expect(shown).toContain(title);
      expect(shown).toContain(items.find((item) => item.id === parent)?.title);
      const matches = items.filter((item) =>
        `${item.title}\n${item.id}`.toLowerCase().includes(title.toLowerCase()),
      );
      expect(await tree.locator("h2").textContent()).toBe(
        `Communities (${matches.length} of ${items.length})`,
      );
      await filter.fill("no such community title");
      await tree.getByText("No community title holds “no such community title”.").waitFor();
      expect(await rows.count()).toBe(0);
    } finally {
      await filter.fill("");
    }
    await expect.poll(() => rows.count()).toBe(items.length);
  }, 60_000);

  it("says how many of a large community's members its graph draws", async () => {
    const tree = page.getByRole("navigation", { name: "Community hierarchy" });
    const id = await page.evaluate<string>(
      `fetch("/api/v1/graph/communities").then((r) => r.json()).then((body) => body.items[0].id)`,
    );
    // The community answered with 30 members (real entities, so each one's neighbourhood is found).
    const names = await page.evaluate<string[]>(
      `fetch("/api/v1/graph/entities/popular?limit=30").then((r) => r.json()).then((body) => body.items.map((e) => e.name))`,
    );
    expect(names).toHaveLength(30);
    const detail = (url: URL) => url.pathname === `/api/v1/graph/communities/${encodeURIComponent(id)}`;
    await page.route(detail, async (route) => {
      const real = await (await route.fetch()).json();
      await route.fulfill({ json: { ...real, members: names } });
    });
    try {
      await page.getByRole("link", { name: "Ask" }).click();
      await page.goto(`${server.url}/#/communities?workspace=ws&community=${encodeURIComponent(id)}`);
      await page.locator(".community-detail [data-testid=graph-canvas]").waitFor({ timeout: 30_000 });
      await page.getByText("The graph draws the first 25 of the 30 members").waitFor({ timeout: 30_000 });
      expect(await page.locator("article.report .chips button").count()).toBe(30);
    } finally {
      await page.unroute(detail);
      await tree.locator("button.link").first().waitFor();
    }
  }, 60_000);

  it("shows a report's citations as the entities and relationships they name, opening them in the graph", async () => {
    // A report whose summary cites relationships (an offline report quotes them, [R:n]).
    const items = await page.evaluate<{ id: string }[]>(
      `fetch("/api/v1/graph/communities").then((r) => r.json()).then((body) => body.items)`,
    );
    const details = await page.evaluate<{ id: string; title: string; summary: string }[]>(
      `Promise.all(${JSON.stringify(items.map((i) => i.id))}.map((id) =>
        fetch("/api/v1/graph/communities/" + id).then((r) => r.json())
          .then((body) => ({ id, title: body.report.title || body.community.title, summary: body.report.summary }))))`,
    );
    const cited = details.find((d) => /\[R:\d+/.test(d.summary));
    expect(cited).toBeDefined();
    await page.goto(`${server.url}/#/communities?workspace=ws&community=${cited?.id}`);
    // Only the hash changed: the report shown before stays until the app takes the new address.
    await page.locator("article.report h2", { hasText: cited?.title }).waitFor();
    const summary = page.locator("article.report .report-summary");
    await summary.waitFor();
    const summaryText = (await summary.textContent()) ?? "";
    expect(summaryText).not.toMatch(/\[[ERC]:/);
    // A relationship reads "A — B" and opens A in the graph explorer.
    const relationship = summary.locator("a.report-ref").filter({ hasText: " — " }).first();
    const label = (await relationship.textContent()) ?? "";
    const [source = ""] = label.split(" — ");
    expect(source).not.toBe("");
    // The full report's text, its references list included, shows no raw marker either.
    await page.locator("article.report details summary").click();
    expect(await page.locator("article.report .report-text").textContent()).not.toMatch(/\[[ERC]:/);
    await relationship.click();
    await page.waitForURL((url) => routeParams(url).get("entity") === source);
    // The entity opens (under its name now, should an edit above have renamed it since the report).
    const panel = page.getByRole("complementary", { name: "Entity details" });
    await panel.locator(".relationships li").first().waitFor({ timeout: 30_000 });
    const opened = `${await panel.locator("h2").textContent()} ${await panel.getByText(/^Also:/).allTextContents()}`;
    expect(opened).toContain(source);
    await page.goBack();
    await summary.waitFor();
  }, 90_000);

  it("keeps each community's row on one line: the title cut short, its meta whole, the bullet beside it", async () => {
    // Narrowed, so that long titles no longer fit beside their meta ("L2 · 16 · ★8").
    const narrow = (width: string) =>
      page.evaluate(`document.querySelector(".community-tree").style.width = "${width}"`);
    await narrow("170px");
    try {
      const rows = await page.evaluate<
        {
          row: { x: number; y: number; height: number };
          meta: { height: number; bottom: number };
          line: number;
          cut: boolean;
          tooltip: boolean;
        }[]
      >(`[...document.querySelectorAll(".community-tree li")].map((item) => {
        const row = item.querySelector(":scope > .tree-row");
        const button = row.querySelector("button");
        const meta = row.querySelector(".tree-meta").getBoundingClientRect();
        const box = row.getBoundingClientRect();
        return {
          row: { x: item.getBoundingClientRect().x, y: box.y, height: box.height },
          meta: { height: meta.height, bottom: meta.bottom },
          line: parseFloat(getComputedStyle(button).lineHeight) || 20,
          cut: button.scrollWidth > button.clientWidth,
          tooltip: button.title === button.textContent,
        };
      })`);
      expect(rows.length).toBeGreaterThan(0);
      for (const { row, meta, line, tooltip } of rows) {
        expect(row.height).toBeLessThan(line * 1.6);
        expect(meta.height).toBeLessThan(line * 1.6);
        expect(meta.bottom).toBeLessThanOrEqual(row.y + row.height + 1);
        expect(tooltip).toBe(true);
      }
      const cut = rows.find((r) => r.cut);
      expect(cut).toBeDefined();
      if (!cut) return;
      // The marker is drawn left of the item, in the list's indent, beside the row.
      const clip = { x: cut.row.x - 16, y: cut.row.y, width: 16, height: cut.row.height };
      const png = (await page.screenshot({ clip, scale: "css" })).toString("base64");
      const darkRows = await page.evaluate<number[]>(`(async () => {
        const image = new Image();
        image.src = "data:image/png;base64,${png}";
        await image.decode();
        const canvas = document.createElement("canvas");
        canvas.width = image.width;
        canvas.height = image.height;
        const context = canvas.getContext("2d");
        context.drawImage(image, 0, 0);
        const { data } = context.getImageData(0, 0, image.width, image.height);
        const rows = [];
        for (let y = 0; y < image.height; y++)
          for (let x = 0; x < image.width; x++) {
            const i = (y * image.width + x) * 4;
            if (data[i] + data[i + 1] + data[i + 2] < 3 * 140) { rows.push(y); break; }
          }
        return rows;
      })()`);
      expect(darkRows.length).toBeGreaterThan(0);
    } finally {
      await narrow("");
    }
  }, 60_000);

  it("keeps the report of the community picked last when the one picked before answers late", async () => {
    const tree = page.getByRole("navigation", { name: "Community hierarchy" });
    const buttons = tree.locator("button.link");
    const titles = await buttons.allTextContents();
    // Two communities other than the one shown (picking that one again asks nothing).
    const shown = await page.locator("article.report h2").textContent();
    const first = titles.findIndex((title) => title !== shown);
    const second = titles.findIndex((title) => title !== shown && title !== titles[first]);
    expect(first).toBeGreaterThanOrEqual(0);
    expect(second).toBeGreaterThan(first);
    const reportRequest = (url: URL) => url.pathname.startsWith("/api/v1/graph/communities/");
    // The first report asked for answers 1.5 s late; the others at once.
    const { lateAnswer } = await answerLate(reportRequest, { firstOnly: true });
    try {
      await buttons.nth(first).click();
      await buttons.nth(second).click();
      const heading = page.locator("article.report h2");
      await expect.poll(() => heading.textContent()).toBe(titles[second]);
      await lateAnswer;
      await delay(300);
      expect(await heading.textContent()).toBe(titles[second]);
      expect(await buttons.nth(second).getAttribute("class")).toContain("active");
    } finally {
      await page.unroute(reportRequest);
    }
  }, 60_000);

  it("says when the address names a re-clustered community, and names the one that took its members instead", async () => {
    const items = await page.evaluate<{ id: string; title: string }[]>(
      `fetch("/api/v1/graph/communities").then((r) => r.json()).then((body) => body.items)`,
    );
    const successor = items[0];
    expect(successor).toBeDefined();
    const detail = await page.evaluate<{ report?: { title: string } | null }>(
      `fetch("/api/v1/graph/communities/${successor?.id}").then((r) => r.json())`,
    );
    const title = detail.report?.title || successor?.title;
    // The server answers a retired id with its successor and movedFrom (test/server/api.test.ts);
    // here one such answer stands in for an index run that re-clustered the communities.
    const retired = (url: URL) => url.pathname === "/api/v1/graph/communities/c0-retired";
    await page.route(retired, (route) => route.fulfill({ json: { ...detail, movedFrom: "c0-retired" } }));
    try {
      await page.goto(`${server.url}/#/communities?workspace=ws&community=c0-retired`);
      const notice = page.locator(".community-detail .notice");
      await notice.waitFor();
      expect(await notice.textContent()).toBe(
        `Community c0-retired was re-clustered; showing ${title}, which took its members.`,
      );
      await expect
        .poll(() => new URL(page.url()).hash)
        .toBe(`#/communities?workspace=ws&community=${successor?.id}`);
      await expect.poll(() => page.locator("article.report h2").textContent()).toBe(title);
      const tree = page.getByRole("navigation", { name: "Community hierarchy" });
      await expect
        .poll(() => tree.locator("button.link.active").getAttribute("title"))
        .toBe(successor?.title || successor?.id);
      // Picking another community reads it without the notice.
      const other = items.find((item) => item.id !== successor?.id);
      await tree
        .locator("button.link")
        .filter({ hasText: other?.title || other?.id })
        .first()
        .click();
      await expect.poll(() => new URL(page.url()).hash).toContain(`community=${other?.id}`);
      await page.locator("article.report h2").waitFor();
      // The address changes a render before the view reads it: the notice goes then.
      await expect.poll(() => notice.count()).toBe(0);
    } finally {
      await page.unroute(retired);
    }
  }, 60_000);

  it("finds an entity from the first letters of its name, and says when nothing matches", async () => {
    await page.getByRole("link", { name: "Graph" }).click();
    const search = page.getByLabel("Search entities");
    await search.fill("Gullw");
    const suggestion = page.locator(".suggestions .suggestion").first();
    await expect.poll(() => suggestion.textContent()).toMatch(/^Gullwing/);
    await search.fill("zzqx");
    await page.getByRole("status").filter({ hasText: "No entity matches" }).waitFor();
    await search.press("Escape");
    await search.fill("");
  }, 60_000);

  it("stacks its views at phone width instead of covering or pushing controls off screen", async () => {
    await page.setViewportSize({ width: 375, height: 740 });
    const listed = (url: URL) => url.pathname === "/api/v1/documents";
    try {
      const pageWidth = () => page.evaluate<number>("document.documentElement.scrollWidth");
      await page.getByRole("link", { name: "Graph" }).click();
      const panel = page.getByRole("complementary", { name: "Entity details" });
      await panel.locator("h2").waitFor({ timeout: 30_000 });
      const canvas = await page.locator("[data-testid=graph-canvas]").first().boundingBox();
      const side = await panel.boundingBox();
      expect(canvas && side && side.y >= canvas.y + canvas.height - 1).toBe(true);
      expect(canvas?.width ?? 0).toBeGreaterThan(300);
      expect(await pageWidth()).toBeLessThanOrEqual(375);
      await page.getByRole("link", { name: "Communities" }).click();
      const tree = page.getByRole("navigation", { name: "Community hierarchy" });
      await tree.locator("button.link").first().click();
      const report = await page.locator("article.report").boundingBox();
      expect(report?.width ?? 0).toBeGreaterThan(300);
      // A Chinese title (breakable between any two characters) beside long metadata keeps a
      // readable column: two lines, not a character or two a line.
      const title = "明远基金会与江南银行的合作（第9号）";
      const metadata = { source: "zh60.jsonl", format: "jsonl", line: 10, lang: "zh" };
      await page.route(listed, (route) =>
        route.fulfill({
          json: { items: [{ id: "zh9", title, status: "indexed", chunks: 1, metadata }], total: 1 },
        }),
      );
      await page.getByRole("link", { name: "Documents" }).click();
      const cell = page.locator("table.documents tbody tr", { hasText: title }).locator("td div").first();
      await cell.waitFor();
      expect(await pageWidth()).toBeLessThanOrEqual(375);
      const lines = await cell.evaluate((element) => {
        const range = element.ownerDocument.createRange();
        range.selectNodeContents(element);
        return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
      });
      expect(lines).toBeLessThanOrEqual(2);
      await shot("phone-documents");
    } finally {
      await page.unroute(listed);
      await page.setViewportSize({ width: 1400, height: 900 });
    }
  }, 60_000);

  it("says up front that the Neo4j view needs the Neo4j backend, on a SQLite workspace", async () => {
    await page.goto(`${server.url}/#/neo4j?workspace=ws`);
    const notice = page.getByRole("status").filter({ hasText: "need the Neo4j backend" });
    await notice.waitFor();
    expect(await notice.textContent()).toMatch(/^Workspace “ws” uses the embedded SQLite store/);
    // No console or chat that would only fail once used.
    expect(await page.getByLabel("Cypher query").count()).toBe(0);
    expect(await page.getByLabel("Chat message").count()).toBe(0);
  }, 60_000);

  it("draws the label of a node near the canvas's right edge on its left, whole, at desktop and phone width", async () => {
    await page.getByRole("link", { name: "Graph" }).click();
    const canvas = page.locator("[data-testid=graph-canvas]");
    await layoutSettled(page);
    // The canvas's test hook is for the browser tests only: a page that did not ask has none.
    expect(await page.evaluate("typeof window.kgragGraph")).toBe("undefined");
    await page.evaluate(`localStorage.setItem("${GRAPH_TEST_HOOK_STORAGE}", "1")`);
    // Asked for, it comes with the next canvas drawn.
    await page.getByRole("link", { name: "Documents" }).click();
    await page.getByRole("link", { name: "Graph" }).click();
    await layoutSettled(page);
    await page.waitForFunction("window.kgragGraph !== undefined");
    const labels = () => page.evaluate<DrawnLabel[]>("window.kgragGraph?.labels() ?? []");
    // Every label read below is as drawn in a frame whose labels all lie where placeLabels put them.
    const labelsPlaced = () => page.evaluate("window.kgragGraph.labelsPlaced()");
    try {
      for (const width of [1366, 390]) {
        await page.setViewportSize({ width, height: width > 1000 ? 900 : 740 });
        await labelsPlaced();
        const frame = await canvas.boundingBox();
        if (!frame) throw new Error("no canvas");
        const within = (label: DrawnLabel) =>
          label.x >= 0 && label.x <= frame.width && label.y >= 0 && label.y <= frame.height;
        // The node with the longest name is panned to a few pixels from the right edge (as a drag would)
        // and drawn as under the pointer, its label shown: that label has no room on its right.
        const [longest] = (await labels()).sort(
          (a, b) => b.box.maxX - b.box.minX - (a.box.maxX - a.box.minX),
        );
        if (!longest) throw new Error("no node drawn");
        const at = { x: frame.width - 15, y: frame.height / 2 };
        const node = JSON.stringify(longest.node);
        await page.evaluate(`window.kgragGraph.panNodeTo(${node}, ${at.x}, ${at.y})`);
        await page.evaluate(`window.kgragGraph.hover(${node})`);
        await labelsPlaced();
        const inside = (label: DrawnLabel) =>
          label.box.minX >= 0 &&
          label.box.maxX <= frame.width &&
          label.box.minY >= 0 &&
          label.box.maxY <= frame.height;
        // Every label drawn for a node within the canvas lies whole inside it, the edge node's on its left.
        const drawn = (await labels()).filter((label) => label.shown && within(label));
        expect({
          edgeNode: drawn.find((label) => label.node === longest.node && label.x > frame.width - 20)?.side,
          cut: drawn.filter((label) => !inside(label)).map((label) => label.node),
        }).toEqual({ edgeNode: "left", cut: [] });
        await shot(`graph-labels-${width}`);
      }
    } finally {
      await page.evaluate("window.kgragGraph?.hover()");
      await page.evaluate(`localStorage.removeItem("${GRAPH_TEST_HOOK_STORAGE}")`);
      await page.setViewportSize({ width: 1400, height: 900 });
    }
  }, 90_000);

  it("says at phone width that the legend has more entries than it shows, and shows them from the keyboard", async () => {
    await page.setViewportSize({ width: 390, height: 740 });
    // Each node in a community of its own: more legend entries than the band's few lines hold.
    const neighbourhood = (url: URL) => url.pathname === "/api/v1/graph/neighbourhood";
    await page.route(neighbourhood, async (route) => {
      const response = await route.fetch();
      const body = (await response.json()) as { nodes: { community?: unknown }[] };
      body.nodes = body.nodes.map((node, index) => ({ ...node, community: `community ${index} of many` }));
      await route.fulfill({ response, json: body });
    });
    try {
      await page.getByRole("link", { name: "Graph" }).click();
      // The address keeps the entity shown: a reload fetches its neighbourhood again, through the route.
      await page.reload();
      await layoutSettled(page);
      const legend = page.getByRole("list", { name: "Legend" });
      const cutOff = () =>
        // The entries below its bottom edge, where it clips them, wholly or in part.
        legend.evaluate((list) => {
          const bottom = list.getBoundingClientRect().bottom;
          return [...list.children].filter((entry) => entry.getBoundingClientRect().bottom > bottom + 1)
            .length;
        });
      // The button counts the entries cut off once the band is laid out: wait until it says so.
      const toggle = page.locator(".legend-toggle");
      let hidden = 0;
      await expect
        .poll(async () => {
          hidden = await cutOff();
          return (
            hidden > 0 && (await toggle.getAttribute("aria-label")) === `Show ${hidden} more legend entries`
          );
        })
        .toBe(true);
      await shot("phone-legend-collapsed");
      const more = page.getByRole("button", { name: `Show ${hidden} more legend entries` });
      await expect(more.textContent()).resolves.toBe(`+${hidden} more`);
      await more.focus();
      await page.keyboard.press("Enter");
      const fewer = page.getByRole("button", { name: "Show fewer legend entries" });
      await expect(fewer.getAttribute("aria-expanded")).resolves.toBe("true");
      // Expanded, every entry can be reached: the list scrolls only past half the screen.
      await expect
        .poll(() => legend.evaluate((list) => list.scrollHeight <= list.clientHeight + 1))
        .toBe(true);
      await shot("phone-legend-expanded");
      await page.keyboard.press("Enter");
      await expect(more.getAttribute("aria-expanded")).resolves.toBe("false");
    } finally {
      await page.unroute(neighbourhood);
      await page.setViewportSize({ width: 1400, height: 900 });
    }
  }, 60_000);

  it("made no request outside its server and logged no errors", () => {
    expect(outsideRequests).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });
});

/** Requests that leave the page (blob: and data: URLs, like the layout worker's, stay in it). */
function isNetworkUrl(url: string): boolean {
  return !/^(blob|data):/.test(url);
}

/** One document per file, and one per line of a JSONL file. */
function documentCount(files: string[]): number {
  return files
    .map((file) => (file.endsWith(".jsonl") ? readFileSync(file, "utf8").trim().split("\n").length : 1))
    .reduce((a, b) => a + b, 0);
}

/** The params of the app's hash route (`#/view?workspace=ws&entity=Ada`) in a page's address. */
function routeParams(url: string | URL): URLSearchParams {
  return new URLSearchParams(new URL(url).hash.split("?")[1] ?? "");
}

/** A promise and what settles it, for a test to hold a routed request until it is done. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

/** The node count the canvas prints ("12 nodes · 20 edges"). */
/**
 * A neighbourhood of `hub`, 60 core nodes and 599 leaves: 1,500 strong relationships among the
 * core, then one weak one per leaf to the hub, strongest first as the server sends them.
 */
function largeNeighbourhood(hub: string) {
  const node = (name: string) => ({ id: name, name, type: "concept", degree: 1, community: null });
  const core = Array.from({ length: 60 }, (_, i) => `core ${i}`);
  const leaves = Array.from({ length: 599 }, (_, i) => `leaf ${i}`);
  const strong = core.flatMap((a, i) => core.slice(i + 1).map((b) => [a, b] as const)).slice(0, 1_500);
  const edges = [
    ...strong.map(([source, target]) => ({ source, target, weight: 10 })),
    ...leaves.map((leaf) => ({ source: hub, target: leaf, weight: 1 })),
  ].map((edge, i) => ({ id: `edge ${i}`, ...edge }));
  return { nodes: [hub, ...core, ...leaves].map(node), edges };
}

/**
 * Waits for the graph on screen to have nodes and their layout to have stopped (an empty graph, as
 * the view first draws before its neighbourhood comes, has nothing to lay out and reads settled).
 */
async function layoutSettled(page: Page): Promise<void> {
  await expect.poll(() => nodeCount(page)).toBeGreaterThan(0);
  await page.locator('[data-testid=graph-canvas][data-layout="settled"]').waitFor({ timeout: 60_000 });
}

async function nodeCount(page: Page): Promise<number> {
  const text = (await page.locator(".graph-count").textContent()) ?? "";
  return Number(/(\d+) nodes/.exec(text)?.[1] ?? 0);
}

describe("web app in Chromium against kgrag serve with API keys", () => {
  let root: string;
  let server: ServeChild;
  let browser: Browser;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "kgrag-web-keys-"));
    server = await startServe([join(root, "ws")], { KGRAG_API_KEYS: "browser-key" });
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it("asks for the key, keeps it in localStorage and then loads the workspace", async () => {
    const page = await browser.newPage();
    await page.goto(server.url);
    await page.getByRole("alert").filter({ hasText: "This server needs an API key" }).waitFor();
    // The field asked for has the focus: the key can be typed (or pasted) at once.
    expect(await page.evaluate(`document.activeElement?.getAttribute("aria-label")`)).toBe("API key");
    await page.getByLabel("API key").fill("browser-key");
    await page.getByRole("button", { name: "Save key" }).click();
    await page.getByRole("heading", { name: /Documents \(0\)/ }).waitFor();
    expect(await page.evaluate("localStorage.getItem('kgrag.apiKey')")).toBe("browser-key");
    // A reload keeps the key: the app opens without asking again.
    await page.reload();
    await page.getByRole("heading", { name: /Documents \(0\)/ }).waitFor();
  }, 60_000);

  it("says the server refused a wrong key, in the server's words", async () => {
    const page = await browser.newPage();
    await page.goto(server.url);
    await page.getByLabel("API key").fill("not-the-key");
    await page.getByRole("button", { name: "Save key" }).click();
    const refused = page.getByRole("alert").filter({ hasText: "refused" });
    await refused.waitFor();
    expect(await refused.textContent()).toBe(
      "The server refused the API key: The API key is not valid. Enter another above.",
    );
    expect(await page.getByText("This server needs an API key").count()).toBe(0);
    // The right key then opens the workspace, and the refusal goes.
    await page.getByLabel("API key").fill("browser-key");
    await page.getByRole("button", { name: "Save key" }).click();
    await page.getByRole("heading", { name: /Documents \(0\)/ }).waitFor();
    await expect.poll(() => refused.count()).toBe(0);
    await page.close();
  }, 60_000);
});

describe("web app in Chromium against kgrag serve with two workspaces", () => {
  let root: string;
  let server: ServeChild;
  let browser: Browser;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "kgrag-web-two-"));
    server = await startServe([join(root, "wsA"), join(root, "wsB")]);
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it("opens the workspace an address names over the one saved, and names it in every address", async () => {
    const page = await browser.newPage();
    // A community of wsB only (no indexing needed): asked for in wsA, the server says not found.
    const community = "c0-0123456789ab";
    const report = (url: URL) => url.pathname === `/api/v1/graph/communities/${community}`;
    await page.route(report, (route) =>
      route.request().headers()["x-kgrag-workspace"] === "wsB"
        ? route.fulfill({
            json: {
              community: { id: community, level: 0, title: "Bees of wsB", size: 0 },
              report: null,
              members: [],
            },
          })
        : route.continue(),
    );
    await page.goto(server.url);
    await page.getByLabel("Workspace").selectOption("wsA");
    expect(await page.evaluate("localStorage.getItem('kgrag.workspace')")).toBe("wsA");
    // A link made in wsB, opened in this browser (which saved wsA).
    await page.goto("about:blank");
    await page.goto(`${server.url}/#/communities?workspace=wsB&community=${community}`);
    await page.getByRole("heading", { name: "Bees of wsB" }).waitFor();
    expect(await page.getByLabel("Workspace").inputValue()).toBe("wsB");
    expect(await page.getByText("not found").count()).toBe(0);
    // Links and the views they open keep naming it.
    await page.getByRole("link", { name: "Documents" }).click();
    await page.waitForURL((url) => new URL(url).hash.startsWith("#/documents"));
    expect(routeParams(page.url()).get("workspace")).toBe("wsB");
    // Picking another workspace is a new address, and Back returns to the one before.
    await page.getByLabel("Workspace").selectOption("wsA");
    await page.waitForURL((url) => routeParams(url).get("workspace") === "wsA");
    await page.goBack();
    await expect.poll(() => page.getByLabel("Workspace").inputValue()).toBe("wsB");
    // The workspace an address opened is saved (after the render that shows it) for a bare visit.
    await expect.poll(() => page.evaluate("localStorage.getItem('kgrag.workspace')")).toBe("wsB");
    // A bare address gets the workspace shown.
    await page.goto("about:blank");
    await page.goto(`${server.url}/#/graph`);
    await page.waitForURL((url) => routeParams(url).get("workspace") === "wsB");
    await page.close();
  }, 60_000);

  it("says when an address names a workspace this server does not offer", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/#/documents?workspace=wsZ`);
    const notice = page.getByRole("alert").filter({ hasText: "wsZ" });
    await notice.waitFor();
    expect(await notice.locator("p.error").textContent()).toBe("This server does not offer workspace “wsZ”.");
    // The ones it does are offered, none shown in its place.
    expect(await notice.getByRole("link").allTextContents()).toEqual(["wsA", "wsB"]);
    expect(await page.getByRole("heading", { name: /Documents/ }).count()).toBe(0);
    await page.close();
  }, 60_000);
});

describe("web app in Chromium against kgrag serve with a key limited to one workspace", () => {
  const KEY = "wsa-only-key-0123456789";
  const ADMIN = "admin-key-0123456789";
  let root: string;
  let server: ServeChild;
  let browser: Browser;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "kgrag-web-scoped-"));
    // wsA holds Mara Okafor; wsB, which the key may not use, is empty.
    await offlineWorkspace(join(root, "wsA"), ATLAS_DOCS);
    server = await startServe([join(root, "wsA"), join(root, "wsB")], {
      KGRAG_API_KEYS: `${KEY}=wsA,${ADMIN}`,
    });
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it("opens nothing of another workspace from an address naming it: says the key cannot open it and offers the ones it can", async () => {
    const page = await browser.newPage();
    await page.goto(server.url);
    await page.evaluate(`localStorage.setItem("kgrag.apiKey", ${JSON.stringify(KEY)})`);
    const asked: { path: string; workspace?: string }[] = [];
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith("/api/v1/") && url.pathname !== "/api/v1/workspaces")
        asked.push({ path: url.pathname, workspace: request.headers()["x-kgrag-workspace"] });
    });
    // A link made in wsB, about an entity wsA happens to hold too.
    await page.goto("about:blank");
    await page.goto(`${server.url}/#/graph?workspace=wsB&entity=${encodeURIComponent("Mara Okafor")}`);
    const notice = page.getByRole("alert").filter({ hasText: "wsB" });
    await notice.waitFor();
    expect(await notice.locator("p.error").textContent()).toBe("This API key cannot open workspace “wsB”.");
    expect(await notice.getByRole("link").allTextContents()).toEqual(["wsA"]);
    // Nothing of wsA stands in for wsB: no entity shown, no request for wsA's data.
    await delay(1_000);
    expect(await page.getByRole("heading", { name: "Mara Okafor" }).count()).toBe(0);
    expect(asked.filter((request) => request.workspace !== "wsB")).toEqual([]);
    // The offered link opens wsA's graph, without the other workspace's entity.
    await notice.getByRole("link", { name: "wsA" }).click();
    await page.waitForURL((url) => routeParams(url).get("workspace") === "wsA");
    expect(new URL(page.url()).hash.startsWith("#/graph")).toBe(true);
    expect(routeParams(page.url()).get("entity")).toBeNull();
    await expect.poll(() => notice.count()).toBe(0);
    await page
      .getByPlaceholder(/entity/i)
      .first()
      .waitFor();
    await page.close();
  }, 60_000);

  it("closes a passage opened in one workspace when the address moves to another", async () => {
    const page = await browser.newPage();
    await page.goto(server.url);
    await page.evaluate(`localStorage.setItem("kgrag.apiKey", ${JSON.stringify(ADMIN)})`);
    await page.goto("about:blank");
    await page.goto(`${server.url}/#/graph?workspace=wsA&entity=${encodeURIComponent("Mara Okafor")}`);
    const panel = page.getByRole("complementary", { name: "Entity details" });
    await panel.locator(".sources .passage-button").first().click({ timeout: 30_000 });
    const dialog = page.getByRole("dialog", { name: "Passage" });
    await dialog.waitFor();
    // Back (or a link) to wsB while the passage of wsA is open: wsB is shown without it.
    await page.evaluate(`location.hash = "#/graph?workspace=wsB"`);
    await expect.poll(() => page.getByLabel("Workspace").inputValue()).toBe("wsB");
    await expect.poll(() => dialog.count()).toBe(0);
    // Back in wsA, it does not open again by itself.
    await page.goBack();
    await expect.poll(() => page.getByLabel("Workspace").inputValue()).toBe("wsA");
    await panel.getByRole("heading", { name: "Mara Okafor", level: 2 }).waitFor({ timeout: 30_000 });
    expect(await dialog.count()).toBe(0);
    await page.close();
  }, 60_000);
});

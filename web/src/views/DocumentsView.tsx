import { Fragment } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { api, type DocumentRow, type Job } from "../api";
import { useApp } from "../app-context";
import { errorText } from "../components/errors";
import { JobCard } from "../components/JobCard";
import { loadDismissed, saveDismissed } from "../components/job-dismissals";
import { isFinished, jobsShown } from "../components/job-list";
import { MetadataEditor } from "../components/MetadataEditor";
import { inBatches, planUpload, replaceQuestion, type SkippedFile } from "../components/upload-plan";

const PAGE_SIZE = 50;
const STATUSES = ["", "pending", "indexed", "partial", "failed"];

/** Documents: drop files to index them, follow each job live, list, delete and re-index documents. */
export function DocumentsView() {
  const workspaceId = useApp().workspace?.id ?? "";
  const [jobs, setJobs] = useState<Job[]>([]);
  /** Finished job cards put away by the reader, and whether the earlier finished ones are open. */
  const [dismissed, setDismissed] = useState(() => loadDismissed(workspaceId));
  const [showEarlier, setShowEarlier] = useState(false);
  const [documents, setDocuments] = useState<DocumentRow[]>([]);
  const [total, setTotal] = useState(0);
  /**
   * All the documents whatever the filter (an empty filtered page says how many there are), with
   * the filter the rows shown came from: set with them, so the words never mix two answers.
   */
  const [listed, setListed] = useState<{ all: number; filter: DocumentFilter }>({
    all: 0,
    filter: { search: "", status: "" },
  });
  const [offset, setOffset] = useState(0);
  const [status, setStatus] = useState("");
  const [search, setSearch] = useState("");
  const [failure, setFailure] = useState<string>();
  const [dragging, setDragging] = useState(false);
  const [reload, setReload] = useState(0);
  /** The last upload's files left out, and how many went. */
  const [uploadNote, setUploadNote] = useState<{ sent: number; skipped: SkippedFile[] }>();
  const followed = useRef(new Set<string>());
  /** Titles of the documents listed so far: a delete job's card still names its document after. */
  const titles = useRef(new Map<string, string>());
  /** Documents with a delete or re-index under way (a ref too: two clicks come before a render). */
  const busy = useRef(new Set<string>());
  const [busyDocs, setBusyDocs] = useState<ReadonlySet<string>>(new Set());
  /** The document whose metadata editor is open, if any. */
  const [editing, setEditing] = useState<string>();
  const fileInput = useRef<HTMLInputElement>(null);
  const tableSection = useRef<HTMLElement>(null);

  /**
   * Shows another page from its first row: the pager is under the table, and the page scrolled
   * down to it would otherwise show the new page's last rows.
   */
  const turnPage = (to: number) => {
    setOffset(to);
    const section = tableSection.current;
    if (section && section.getBoundingClientRect().top < 0) section.scrollIntoView({ block: "start" });
  };

  // The page for the latest filter only: a new one (each letter typed) aborts the request before,
  // whose answer could otherwise arrive last and show an older filter's rows.
  useEffect(() => {
    const request = new AbortController();
    const { signal } = request;
    const filter = { search: search.trim(), status };
    Promise.all([
      api.documents({ offset, limit: PAGE_SIZE, status, q: filter.search }, signal),
      isFiltered(filter) ? api.documents({ limit: 1 }, signal).then((all) => all.total) : undefined,
    ])
      .then(([page, all]) => {
        if (signal.aborted) return;
        for (const doc of page.items) if (doc.title) titles.current.set(doc.id, doc.title);
        setDocuments(page.items);
        setTotal(page.total);
        setListed({ all: all ?? page.total, filter });
        // A reload that worked clears what an earlier one (the server away) reported.
        setFailure(undefined);
      })
      .catch((error: unknown) => {
        if (!signal.aborted) setFailure(errorText(error));
      });
    return () => request.abort();
  }, [offset, status, search, reload]);

  // The job cards as the server has them now (a card left "running" by a lost connection too),
  // following the ones still going; a document a delete or re-index still works on keeps its
  // actions disabled, after a visit to another view too.
  useEffect(() => {
    const request = new AbortController();
    api
      .jobs(request.signal)
      .then((items) => {
        if (request.signal.aborted) return;
        setJobs(items.slice(0, 10));
        for (const job of items) {
          if (job.status !== "queued" && job.status !== "running") continue;
          const docs = job.kind === "index" ? [] : job.documents;
          for (const id of docs) setBusy(id, true);
          follow(job, () => {
            for (const id of docs) setBusy(id, false);
          });
        }
      })
      .catch(() => undefined);
    return () => request.abort();
  }, [reload]);
  /** Aborted when the view goes away: the progress streams it follows close with it. */
  const streams = useRef(new AbortController());
  useEffect(() => {
    const controller = streams.current;
    return () => {
      controller.abort();
      followed.current.clear();
    };
  }, []);

  const dismiss = (job: Job) => {
    const next = new Set(dismissed).add(job.id);
    setDismissed(next);
    saveDismissed(workspaceId, next, jobs);
  };
  const cards = jobsShown(jobs, dismissed);

  function putJob(job: Job) {
    setJobs((current) => [job, ...current.filter((j) => j.id !== job.id)].slice(0, 10));
  }

  /** Streams a job's progress into its card, then refreshes the table; `onEnd` once it ended. */
  function follow(job: Job, onEnd?: () => void) {
    putJob(job);
    if (followed.current.has(job.id)) return;
    followed.current.add(job.id);
    // Each visit would otherwise open one more stream per running job, until the browser's six
    // connections per host are taken and the app stalls.
    const { signal } = streams.current;
    api
      .followJob(
        job.id,
        (update) => setJobs((current) => current.map((j) => (j.id === update.id ? update : j))),
        signal,
      )
      .catch((error: unknown) => {
        if (!signal.aborted) setFailure(errorText(error));
      })
      .finally(() => {
        followed.current.delete(job.id);
        if (signal.aborted) return;
        onEnd?.();
        setReload((n) => n + 1);
      });
  }

  function setBusy(docId: string, on: boolean) {
    if (on) busy.current.add(docId);
    else busy.current.delete(docId);
    setBusyDocs(new Set(busy.current));
  }

  /**
   * Starts a delete or re-index of one document; its actions stay disabled until that job ends, so
   * a double click neither asks twice nor queues a second job.
   */
  async function act(docId: string, start: () => Promise<Job>) {
    setFailure(undefined);
    setBusy(docId, true);
    try {
      follow(await start(), () => setBusy(docId, false));
    } catch (error) {
      setBusy(docId, false);
      setFailure(errorText(error));
    }
  }
  /** Shows the row as the server has it after an edit, and closes its editor. */
  const metadataSaved = (row: DocumentRow) => {
    setDocuments((current) => current.map((doc) => (doc.id === row.id ? row : doc)));
    setEditing(undefined);
  };
  const reindex = (doc: DocumentRow) => {
    if (!busy.current.has(doc.id)) void act(doc.id, () => api.reindexDocument(doc.id));
  };
  const remove = (doc: DocumentRow) => {
    // Checked before asking: a second click of a double click comes once the first is answered.
    if (busy.current.has(doc.id)) return;
    if (confirm(`Delete ${doc.title || doc.id} and its graph contributions?`))
      void act(doc.id, () => api.deleteDocument(doc.id));
  };

  /**
   * Sends the files the server takes, in as many uploads as its per-upload limit needs, after
   * asking before any replaces documents uploaded under the same name; lists the ones left out.
   */
  async function upload(files: File[]) {
    setFailure(undefined);
    setUploadNote(undefined);
    try {
      const rules = await api.uploads();
      const plan = planUpload(files, rules);
      const skipped = [...plan.skipped];
      let send = plan.send;
      if (plan.replacing.length > 0 && !confirm(replaceQuestion(plan.replacing))) {
        const kept = new Set(plan.replacing.map(({ file }) => file));
        send = send.filter((file) => !kept.has(file));
        for (const file of kept) skipped.push({ name: file.name, reason: "uploaded before; not replaced" });
      }
      if (skipped.length > 0) setUploadNote({ sent: send.length, skipped });
      for (const batch of inBatches(send, rules.maxFiles)) follow(await api.uploadFiles(batch));
    } catch (error) {
      setFailure(errorText(error));
    }
  }
  const uploadChosen = (files: FileList | null | undefined) => {
    const list = files ? [...files] : [];
    if (list.length > 0) void upload(list);
  };

  return (
    <div class="documents-view">
      <section
        class={`dropzone${dragging ? " dragging" : ""}`}
        aria-label="Upload documents"
        onDragOver={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(event) => {
          event.preventDefault();
          setDragging(false);
          uploadChosen(event.dataTransfer?.files);
        }}
      >
        <p>Drop files here to index them (text, Markdown, HTML, PDF, DOCX, JSONL…)</p>
        <button type="button" onClick={() => fileInput.current?.click()}>
          Choose files
        </button>
        <input
          ref={fileInput}
          type="file"
          multiple
          hidden
          data-testid="file-input"
          onChange={(event) => {
            const input = event.target as HTMLInputElement;
            uploadChosen(input.files);
            input.value = "";
          }}
        />
      </section>
      {failure && <p class="error">{failure}</p>}
      {uploadNote && <SkippedFiles {...uploadNote} />}
      {(cards.shown.length > 0 || cards.earlier.length > 0) && (
        <section class="jobs" aria-label="Jobs">
          {[...cards.shown, ...(showEarlier ? cards.earlier : [])].map((job) => (
            <JobCard
              key={job.id}
              job={job}
              titleOf={(id) => titles.current.get(id)}
              onDismiss={isFinished(job) ? () => dismiss(job) : undefined}
            />
          ))}
          {cards.earlier.length > 0 && (
            <button type="button" class="link earlier-jobs" onClick={() => setShowEarlier(!showEarlier)}>
              {showEarlier
                ? "Hide the earlier jobs"
                : `Show ${cards.earlier.length} earlier job${cards.earlier.length === 1 ? "" : "s"}`}
            </button>
          )}
        </section>
      )}
      <section aria-label="Documents" ref={tableSection}>
        <div class="toolbar">
          <h2>
            Documents ({total}
            {isFiltered(listed.filter) ? ` of ${listed.all}` : ""})
          </h2>
          <input
            type="search"
            placeholder="Filter by title or id"
            aria-label="Filter documents"
            value={search}
            onInput={(event) => {
              setOffset(0);
              setSearch((event.target as HTMLInputElement).value);
            }}
          />
          <select
            aria-label="Status"
            value={status}
            onChange={(event) => {
              setOffset(0);
              setStatus((event.target as HTMLSelectElement).value);
            }}
          >
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s || "any status"}
              </option>
            ))}
          </select>
          <button type="button" onClick={() => setReload((n) => n + 1)}>
            Refresh
          </button>
        </div>
        <table class="documents">
          <thead>
            <tr>
              <th>Title</th>
              <th>Status</th>
              <th>Chunks</th>
              <th>Metadata</th>
              <th>Updated</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {/* Keyed per document: matched by place, an open editor was made anew, losing what was typed, when rows moved. */}
            {documents.map((doc) => (
              <Fragment key={doc.id}>
                <tr data-document-id={doc.id}>
                  <td class="doc-title">
                    <div>{doc.title || doc.id}</div>
                    <div class="muted small">{doc.id}</div>
                  </td>
                  <td>
                    <span class={`status status-${doc.status}`}>{doc.status}</span>
                    {doc.error && <div class="error small">{doc.error}</div>}
                  </td>
                  <td>{doc.chunks}</td>
                  <td class="small">
                    {Object.entries(doc.metadata)
                      .map(([key, value]) => `${key}=${String(value)}`)
                      .join(", ")}{" "}
                    <button
                      type="button"
                      class="link"
                      aria-label={`Edit metadata of ${doc.title || doc.id}`}
                      aria-expanded={editing === doc.id}
                      onClick={() => setEditing(editing === doc.id ? undefined : doc.id)}
                    >
                      Edit
                    </button>
                  </td>
                  <td class="small">{doc.updatedAt ? new Date(doc.updatedAt).toLocaleString() : ""}</td>
                  <td class="actions">
                    {/* Named with the document: a screen reader's list of buttons says which one each is. */}
                    <button
                      type="button"
                      aria-label={`Re-index ${doc.title || doc.id}`}
                      disabled={busyDocs.has(doc.id)}
                      onClick={() => reindex(doc)}
                    >
                      Re-index
                    </button>
                    <button
                      type="button"
                      class="danger"
                      aria-label={`Delete ${doc.title || doc.id}`}
                      disabled={busyDocs.has(doc.id)}
                      onClick={() => remove(doc)}
                    >
                      Delete
                    </button>
                  </td>
                </tr>
                {editing === doc.id && (
                  <tr class="metadata-row">
                    <td colSpan={6}>
                      <MetadataEditor
                        doc={doc}
                        onSaved={metadataSaved}
                        onClose={() => setEditing(undefined)}
                      />
                    </td>
                  </tr>
                )}
              </Fragment>
            ))}
          </tbody>
        </table>
        {documents.length === 0 && <p class="muted">{emptyTableText(listed.filter, listed.all)}</p>}
        {total > PAGE_SIZE && (
          <div class="pager">
            <button
              type="button"
              disabled={offset === 0}
              onClick={() => turnPage(Math.max(0, offset - PAGE_SIZE))}
            >
              Previous
            </button>
            <span>
              {offset + 1}–{Math.min(total, offset + PAGE_SIZE)} of {total}
            </span>
            <button
              type="button"
              disabled={offset + PAGE_SIZE >= total}
              onClick={() => turnPage(offset + PAGE_SIZE)}
            >
              Next
            </button>
          </div>
        )}
      </section>
    </div>
  );
}

/** The table's filter: text in the title or id, and a status ("" for any). */
interface DocumentFilter {
  search: string;
  status: string;
}

function isFiltered(filter: DocumentFilter): boolean {
  return filter.search !== "" || filter.status !== "";
}

/** Why the table is empty: no document at all, or none the filter lets through (of how many). */
function emptyTableText(filter: DocumentFilter, allTotal: number): string {
  if (allTotal === 0) return "No documents yet.";
  if (!isFiltered(filter)) return "No documents on this page.";
  const what = [
    filter.search ? `matches “${filter.search}”` : "",
    filter.status ? `is ${filter.status}` : "",
  ].filter(Boolean);
  const all = `${allTotal} document${allTotal === 1 ? "" : "s"}`;
  return `No document ${what.join(" and ")} (of ${all} in all): change or clear the filter.`;
}

/** The files an upload left out, each with why. */
function SkippedFiles({ sent, skipped }: { sent: number; skipped: SkippedFile[] }) {
  const files = (n: number) => `${n} file${n === 1 ? "" : "s"}`;
  return (
    <section class="upload-notice" role="status" aria-label="Skipped files">
      <p>
        {sent === 0 ? "Nothing was uploaded" : `Uploading ${files(sent)}`}; {files(skipped.length)} left out:
      </p>
      <ul class="small">
        {skipped.map((file, i) => (
          <li key={`${i}:${file.name}`}>
            <strong>{file.name}</strong>: {file.reason}
          </li>
        ))}
      </ul>
    </section>
  );
}

import type { Job } from "../api";

/** One job: its kind, stage, a progress bar and its per-document errors. */
export function JobCard({ job }: { job: Job }) {
  const percent = job.total > 0 ? Math.round((100 * job.done) / job.total) : job.status === "done" ? 100 : 0;
  return (
    <article class={`job job-${job.status}`} data-job-id={job.id} data-status={job.status}>
      <header>
        <strong>{job.kind}</strong> <span class={`status status-${job.status}`}>{job.status}</span>
        <span class="muted small">
          {" "}
          {job.documents.length > 0 ? job.documents.slice(0, 3).join(", ") : job.id}
        </span>
      </header>
      <progress max={100} value={percent} aria-label={`Job ${job.id} progress`} />
      <p class="small stage">
        {job.stage}
        {job.total > 0 ? ` · ${job.done}/${job.total}` : ""}
        {job.message ? ` · ${job.message}` : ""}
      </p>
      {job.errors.length > 0 && (
        <ul class="error small">
          {job.errors.map((error, i) => (
            <li key={i}>
              {error.file || error.documentId ? `${error.file ?? error.documentId}: ` : ""}
              {error.message}
            </li>
          ))}
        </ul>
      )}
    </article>
  );
}

import type { Job } from "../api";
import { jobHeading, jobPercent, stepText } from "./job-text";

/**
 * One job: what it does (its id secondary), its status, the whole job's progress with the live
 * step and message, and its per-document errors.
 */
export function JobCard({
  job,
  titleOf,
  onDismiss,
}: {
  job: Job;
  titleOf?: (id: string) => string | undefined;
  /** Puts the card away (finished jobs): a button on the card when given. */
  onDismiss?: () => void;
}) {
  const heading = jobHeading(job, titleOf);
  return (
    <article class={`job job-${job.status}`} data-job-id={job.id} data-status={job.status}>
      <header>
        <strong class="job-heading">{heading}</strong>{" "}
        <span class={`status status-${job.status}`}>{job.status}</span>
        {onDismiss && (
          <button
            type="button"
            class="dismiss"
            aria-label={`Dismiss: ${heading}`}
            title="Dismiss"
            onClick={onDismiss}
          >
            ×
          </button>
        )}
        <div class="muted small job-id">{job.id}</div>
      </header>
      <progress max={100} value={jobPercent(job)} aria-label={`${heading}: progress`} />
      <p class="small stage">
        {stepText(job)}
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

import { hostname } from "node:os";

/** Who holds a workspace's writer lock or lease, as both stores record it. */
export interface WriterHolder {
  pid: number;
  host: string;
  /** When it was taken, as an ISO time. */
  since: string;
}

/**
 * "another kgrag process (pid 12, on host, since ...)", or, when the holder is this very process
 * (two createKgrag instances on one workspace), "another kgrag instance in this process (...)":
 * pointing at its own pid would send the reader looking for a process that is not there.
 */
export function describeWriterHolder(holder: WriterHolder | undefined): string {
  if (!holder) return "another kgrag process";
  if (holder.pid === process.pid && holder.host === hostname()) {
    return (
      `another kgrag instance in this same process (since ${holder.since}: ` +
      "a second createKgrag on this workspace; close the other one, or use one instance for both)"
    );
  }
  return `another kgrag process (pid ${holder.pid} on ${holder.host}, since ${holder.since})`;
}

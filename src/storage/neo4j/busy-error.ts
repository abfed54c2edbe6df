import { describeWriterHolder } from "../../util/writer-holder.js";

/** The writer who holds a Neo4j workspace's lease. */
export interface LeaseHolder {
  owner: string;
  pid: number;
  host: string;
  since: number;
}

/**
 * Another process writes this Neo4j workspace. Apart from the lease, which loads the Neo4j driver,
 * so that the package entry can export it to embedded-store callers at no cost.
 */
export class Neo4jWorkspaceBusyError extends Error {
  constructor(workspace: string, holder: LeaseHolder) {
    super(
      `Workspace ${workspace} on Neo4j is being written by ${describeWriterHolder({
        ...holder,
        since: new Date(holder.since).toISOString(),
      })}. Wait for it to finish and run the command again.`,
    );
    this.name = "Neo4jWorkspaceBusyError";
  }
}

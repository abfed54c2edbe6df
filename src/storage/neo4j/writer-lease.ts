import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { isRunning } from "../../util/process-alive.js";
import { type LeaseHolder, Neo4jWorkspaceBusyError } from "./busy-error.js";
import { int, type Neo4jConnection } from "./connection.js";
import { asNumber } from "./read-rows.js";
import type { PlainRecord } from "./record-mapping.js";

/** A lease not renewed for this long is free for the next writer (its holder is gone). */
const LEASE_TTL_MS = 30_000;
const RENEW_EVERY_MS = 5_000;

/**
 * The Neo4j counterpart of the embedded store's lock file: one writer per workspace, across every
 * process and host that shares the database. Merges are planned from mentions read before their
 * write transaction, so two interleaved indexers could fold stale mentions; the lease keeps them
 * apart. It is a node renewed while held; a holder that died on this host is taken over at once,
 * and one that stopped renewing elsewhere after LEASE_TTL_MS.
 */
export async function withWriterLease<T>(db: Neo4jConnection, work: () => Promise<T>): Promise<T> {
  const owner = `${hostname()}:${process.pid}:${randomUUID()}`;
  await acquire(db, owner);
  const renewal = setInterval(() => {
    renew(db, owner).catch(() => {
      // A failed renewal is retried on the next tick; the lease outlives several misses.
    });
  }, RENEW_EVERY_MS);
  renewal.unref();
  try {
    return await work();
  } finally {
    clearInterval(renewal);
    await db.write((tx) => tx.run("store/writer-lease-release", { owner }), false);
  }
}

async function acquire(db: Neo4jConnection, owner: string): Promise<void> {
  const first = await tryAcquire(db, owner, null);
  if (first.acquired) return;
  const holder = first.holder;
  if (holder.host === hostname() && !isRunning(holder.pid)) {
    const retaken = await tryAcquire(db, owner, holder.owner);
    if (retaken.acquired) return;
    throw new Neo4jWorkspaceBusyError(db.workspace, retaken.holder);
  }
  throw new Neo4jWorkspaceBusyError(db.workspace, holder);
}

async function tryAcquire(
  db: Neo4jConnection,
  owner: string,
  previous: string | null,
): Promise<{ acquired: boolean; holder: LeaseHolder }> {
  const [row] = await db.write(
    (tx) =>
      tx.run("store/writer-lease-acquire", {
        owner,
        pid: int(process.pid),
        host: hostname(),
        ttlMs: int(LEASE_TTL_MS),
        previous,
      }),
    false,
  );
  return { acquired: row?.acquired === true, holder: holderOf(row) };
}

async function renew(db: Neo4jConnection, owner: string): Promise<void> {
  await db.write((tx) => tx.run("store/writer-lease-renew", { owner, ttlMs: int(LEASE_TTL_MS) }), false);
}

function holderOf(row: PlainRecord | undefined): LeaseHolder {
  return {
    owner: String(row?.owner ?? ""),
    pid: asNumber(row?.pid ?? 0, "lease pid"),
    host: String(row?.host ?? ""),
    since: asNumber(row?.since ?? 0, "lease start"),
  };
}

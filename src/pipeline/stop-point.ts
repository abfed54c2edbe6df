import { setImmediate as nextTurn } from "node:timers/promises";

/**
 * Whether the run was asked to stop, checked at a safe point (between documents, chunks, batches,
 * reports). It first gives pending events a turn: the offline pipeline is otherwise one long chain
 * of promises over a synchronous store, and a Ctrl-C handler would not run before the end.
 */
export async function stopRequested(signal: AbortSignal | undefined): Promise<boolean> {
  if (!signal) return false;
  await nextTurn();
  return signal.aborted;
}

/** A safe point that ends the run (throwing the signal's reason) when it was asked to stop. */
export async function stopPoint(signal: AbortSignal | undefined): Promise<void> {
  if (await stopRequested(signal)) signal?.throwIfAborted();
}

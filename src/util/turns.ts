import { setImmediate as nextTurn } from "node:timers/promises";

/** How long a chain of promises may keep the event loop before it gives other events a turn. */
const SLICE_MS = 10;
let lastTurn = performance.now();

/**
 * Gives pending events a turn when the process has not had one for a slice. A loop of promises
 * over synchronous work (offline reports, a synchronous store) otherwise runs as microtasks only,
 * and replies of the built-ins' worker thread, which arrive as events, would wait until it ends,
 * leaving that thread idle.
 */
export async function shareTurn(): Promise<void> {
  if (performance.now() - lastTurn < SLICE_MS) return;
  await nextTurn();
  lastTurn = performance.now();
}

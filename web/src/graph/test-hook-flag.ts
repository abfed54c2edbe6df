/**
 * The localStorage key that asks the graph canvas for its test hook (`window.kgragGraph`): the
 * browser tests set it; without it the hook is neither loaded nor installed.
 */
export const GRAPH_TEST_HOOK_STORAGE = "kgrag.graphTestHook";

/** Whether this browser asked for the graph's test hook (read when a canvas mounts). */
export function graphTestHookWanted(): boolean {
  try {
    return localStorage.getItem(GRAPH_TEST_HOOK_STORAGE) === "1";
  } catch {
    // Storage refused (a privacy mode): no hook, as for every user.
    return false;
  }
}

/** Exit code of a run stopped by SIGINT or SIGTERM (128 + 2, as shells report it). */
export const INTERRUPTED_EXIT_CODE = 130;

const SIGNALS = ["SIGINT", "SIGTERM"] as const;

/** The run that the next signal stops gracefully, if one is under way, and what stopping it means. */
let stoppable: { controller: AbortController; stopping: string } | null = null;

/** What a stopped index run does; runStoppable's callers with other work say their own. */
const STOPPING_AFTER_BATCH = "stopping after the current batch";

/**
 * SIGINT/SIGTERM handling of the CLI process. The first signal during a stoppable run (indexing)
 * aborts it: the run stops at its next safe point, reports and releases the workspace. Any other
 * signal (a second Ctrl-C, or one outside such a run) exits at once with 130; the store is
 * transactional and the lock is removed on exit, so that is crash-safe too. Handling the signals
 * ourselves also keeps proper-lockfile's signal-exit from re-raising them. Returns the uninstaller.
 */
export function handleInterrupts(): () => void {
  const handlers = SIGNALS.map((name) => [name, () => onSignal(name)] as const);
  for (const [name, handler] of handlers) process.on(name, handler);
  return () => {
    for (const [name, handler] of handlers) process.off(name, handler);
  };
}

function onSignal(name: (typeof SIGNALS)[number]): void {
  if (stoppable && !stoppable.controller.signal.aborted) {
    stoppable.controller.abort(new Error(`interrupted by ${name}`));
    process.stderr.write(`\nkgrag: ${name}: ${stoppable.stopping} (send it again to quit at once).\n`);
    return;
  }
  process.stderr.write(`\nkgrag: ${name}: quitting now; the next run resumes.\n`);
  process.exit(INTERRUPTED_EXIT_CODE);
}

/**
 * Runs `work` with a signal that the first SIGINT/SIGTERM aborts (once handleInterrupts is on);
 * `stopping` is what the message on that signal says is happening.
 */
export async function runStoppable<T>(
  work: (signal: AbortSignal) => Promise<T>,
  stopping = STOPPING_AFTER_BATCH,
): Promise<T> {
  const run = { controller: new AbortController(), stopping };
  stoppable = run;
  try {
    return await work(run.controller.signal);
  } finally {
    if (stoppable === run) stoppable = null;
  }
}

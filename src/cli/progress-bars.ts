import { createRequire } from "node:module";
import type cliProgressModule from "cli-progress";
import type { ProgressReporter } from "../util/progress.js";

/** cli-progress is loaded only for a terminal: piped and scripted runs never pay for it. */
function createMultibar(stream: NodeJS.WriteStream): cliProgressModule.MultiBar {
  const cliProgress: typeof cliProgressModule = createRequire(import.meta.url)("cli-progress");
  return new cliProgress.MultiBar(
    {
      stream,
      format: " {step} [{bar}] {value}/{total} {duration_formatted}",
      hideCursor: true,
      clearOnComplete: false,
    },
    cliProgress.Presets.shades_classic,
  );
}

/**
 * Progress bars on stderr when it is a terminal; plain silence otherwise (logs and pipes stay clean).
 * The bars (and cli-progress) are set up by the first step that starts or says something, so a
 * command that reports no progress, such as a query, never loads them.
 */
export function terminalProgress(stream: NodeJS.WriteStream = process.stderr): ProgressReporter {
  if (!stream.isTTY) {
    return { start() {}, advance() {}, finish() {}, info: (message) => stream.write(`${message}\n`) };
  }
  let multibar: cliProgressModule.MultiBar | undefined;
  const multibarNow = () => {
    multibar ??= createMultibar(stream);
    return multibar;
  };
  const bars = new Map<string, cliProgressModule.SingleBar>();
  return {
    start(step, total) {
      bars.get(step)?.stop();
      bars.set(step, multibarNow().create(total, 0, { step: step.padEnd(20) }));
    },
    advance(step, by = 1) {
      bars.get(step)?.increment(by);
    },
    finish(step) {
      bars.get(step)?.stop();
      if ([...bars.values()].every((b) => !b.isActive)) multibar?.stop();
    },
    info(message) {
      multibarNow().log(`${message}\n`);
    },
    close() {
      multibar?.stop();
    },
  };
}

import cliProgress from "cli-progress";
import type { ProgressReporter } from "../util/progress.js";

/** Progress bars on stderr when it is a terminal; plain silence otherwise (logs and pipes stay clean). */
export function terminalProgress(stream: NodeJS.WriteStream = process.stderr): ProgressReporter {
  if (!stream.isTTY) {
    return { start() {}, advance() {}, finish() {}, info: (message) => stream.write(`${message}\n`) };
  }
  const multibar = new cliProgress.MultiBar(
    {
      stream,
      format: " {step} [{bar}] {value}/{total} {duration_formatted}",
      hideCursor: true,
      clearOnComplete: false,
    },
    cliProgress.Presets.shades_classic,
  );
  const bars = new Map<string, cliProgress.SingleBar>();
  return {
    start(step, total) {
      bars.get(step)?.stop();
      bars.set(step, multibar.create(total, 0, { step: step.padEnd(20) }));
    },
    advance(step, by = 1) {
      bars.get(step)?.increment(by);
    },
    finish(step) {
      bars.get(step)?.stop();
      if ([...bars.values()].every((b) => !b.isActive)) multibar.stop();
    },
    info(message) {
      multibar.log(`${message}\n`);
    },
    close() {
      multibar.stop();
    },
  };
}

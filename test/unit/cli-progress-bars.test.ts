import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { terminalProgress } from "../../src/cli/progress-bars.js";

/** A stream that says it is a terminal and keeps what is written to it. */
function fakeTerminal(): { stream: NodeJS.WriteStream; written: () => string } {
  const chunks: string[] = [];
  const stream = new PassThrough() as unknown as NodeJS.WriteStream;
  Object.assign(stream, {
    isTTY: true,
    columns: 100,
    cursorTo: () => true,
    moveCursor: () => true,
    clearLine: () => true,
    clearScreenDown: () => true,
    write: (chunk: string | Uint8Array) => chunks.push(String(chunk)) > 0,
  });
  return { stream, written: () => chunks.join("") };
}

describe("terminal progress bars (set up by the first step)", () => {
  it("write nothing for a command that reports no progress", () => {
    const terminal = fakeTerminal();
    const progress = terminalProgress(terminal.stream);
    progress.close?.();
    expect(terminal.written()).toBe("");
  });

  it("draw a step's bar once a step starts", () => {
    const terminal = fakeTerminal();
    const progress = terminalProgress(terminal.stream);
    progress.start("extract", 4);
    progress.advance("extract", 4);
    progress.finish("extract");
    progress.close?.();
    expect(terminal.written()).toContain("extract");
    expect(terminal.written()).toContain("4/4");
  });
});

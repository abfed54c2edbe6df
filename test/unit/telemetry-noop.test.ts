import { describe, expect, it } from "vitest";
import { inSpan } from "../../src/telemetry/spans.js";

/** kgrag only calls @opentelemetry/api: with no tracer provider registered, its spans are no-ops. */
describe("spans without a registered tracer provider", () => {
  it("record nothing, and the work still runs and returns", async () => {
    let recording: boolean | undefined;
    const result = await inSpan("kgrag.index", { "kgrag.documents": 1 }, async (span) => {
      recording = span.isRecording();
      return 42;
    });
    expect(result).toBe(42);
    expect(recording).toBe(false);
  });
});

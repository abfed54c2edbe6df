import { describe, expect, it } from "vitest";
import { readServerSentEvents } from "../../web/src/sse.js";

/** A response whose body arrives in the given pieces, as a network stream would split it. */
function streamed(pieces: string[]): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces) controller.enqueue(encoder.encode(piece));
      controller.close();
    },
  });
  return new Response(body);
}

async function collect(response: Response) {
  const events = [];
  for await (const event of readServerSentEvents(response)) events.push(event);
  return events;
}

describe("web app: server-sent events over fetch", () => {
  it("reads named events split across chunks, joins data lines and skips comments", async () => {
    const events = await collect(
      streamed([
        ': keep-alive\n\nevent: context\ndata: {"a":',
        "1}\n\nevent: token\r\ndata: line one\r\ndata: line two\r\n\r\n",
        'event: done\ndata: {"answer":"青岚"}',
      ]),
    );
    expect(events).toEqual([
      { event: "context", data: '{"a":1}' },
      { event: "token", data: "line one\nline two" },
      { event: "done", data: '{"answer":"青岚"}' },
    ]);
  });

  it("names an event without an event field 'message'", async () => {
    expect(await collect(streamed(["data: x\n\n"]))).toEqual([{ event: "message", data: "x" }]);
  });
});

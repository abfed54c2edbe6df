import type { FastifyReply } from "fastify";

/** A server-sent event stream on a reply the handler took over from Fastify. */
export interface EventStream {
  send(event: string, data: unknown): void;
  end(): void;
  /** True once the client went away. */
  readonly closed: boolean;
}

export function openEventStream(reply: FastifyReply): EventStream {
  reply.hijack();
  const raw = reply.raw;
  // Headers set by hooks (CORS, rate limit) are kept: the reply is written by hand from here.
  const headers = Object.fromEntries(
    Object.entries(reply.getHeaders()).filter(([, v]) => v !== undefined),
  ) as Record<string, string | number | string[]>;
  raw.writeHead(200, {
    ...headers,
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    connection: "keep-alive",
    "x-accel-buffering": "no",
  });
  // The client may have gone before the stream opened (it opens with the first event).
  let closed = raw.destroyed;
  raw.on("close", () => {
    closed = true;
  });
  return {
    send(event, data) {
      if (!closed) raw.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    end() {
      if (!closed) raw.end();
      closed = true;
    },
    get closed() {
      return closed;
    },
  };
}

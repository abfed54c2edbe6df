import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** One /rerank request as the server received it. */
export interface RerankRequest {
  model: string;
  query: string;
  documents: string[];
  authorization: string | undefined;
}

/** Scores for the request's documents, or an HTTP status to fail with. */
export type RerankScript = (request: RerankRequest) => number[] | { status: number };

export interface ScriptedRerankServer {
  /** Pass as the rerank base URL, e.g. http://127.0.0.1:43210/v1 */
  readonly baseURL: string;
  readonly requests: RerankRequest[];
  close(): Promise<void>;
}

/** A Jina / Cohere style `/v1/rerank` endpoint on 127.0.0.1 that answers with scripted scores. */
export async function startScriptedRerank(script: RerankScript): Promise<ScriptedRerankServer> {
  const requests: RerankRequest[] = [];
  const server = createServer(async (req, res) => {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    const body = JSON.parse(Buffer.concat(parts).toString("utf8")) as Omit<RerankRequest, "authorization">;
    const request = { ...body, authorization: req.headers.authorization };
    requests.push(request);
    const answer = req.url === "/v1/rerank" ? script(request) : { status: 404 };
    if (!Array.isArray(answer)) {
      res
        .writeHead(answer.status, { "content-type": "application/json" })
        .end('{"error":"scripted failure"}');
      return;
    }
    const results = answer.map((score, index) => ({ index, relevance_score: score }));
    results.sort((a, b) => b.relevance_score - a.relevance_score);
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ model: body.model, results }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKgrag } from "../../src/kgrag.js";
import { type CreateServerOptions, createServer, type KgragServer } from "../../src/server/app.js";
import type { JobRunner } from "../../src/server/jobs/job-runner.js";
import type { WorkerMessage } from "../../src/server/jobs/job-types.js";
import type { SourceDocumentInput } from "../../src/types.js";
import { childEnv } from "./cli-child.js";

/** Small documents an offline workspace is built from in a second or two. */
export const ATLAS_DOCS: SourceDocumentInput[] = [
  {
    id: "lumen",
    title: "Lumen Robotics",
    metadata: { kind: "company" },
    text:
      "Lumen Robotics was founded by Mara Okafor in Lisbon in 2015. Lumen Robotics builds warehouse robots. " +
      "Mara Okafor studied at the University of Porto before founding Lumen Robotics.",
  },
  {
    id: "porto",
    title: "University of Porto",
    metadata: { kind: "school" },
    text: "The University of Porto is a public university in Porto. Its engineering school trained Mara Okafor.",
  },
];

export const HARBOUR_DOCS: SourceDocumentInput[] = [
  {
    id: "harbour",
    title: "Harbour Light",
    text: "Harbour Light is a lighthouse in Vessen built by Osric Venn in 1890. Osric Venn was an engineer.",
  },
];

export async function tempDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `kgrag-${prefix}-`));
}

/** An offline workspace at `dir` holding `docs`. */
export async function offlineWorkspace(dir: string, docs: SourceDocumentInput[]): Promise<string> {
  const kgrag = await createKgrag({ env: {}, config: { workspace: dir } });
  try {
    if (docs.length > 0) await kgrag.index(docs);
  } finally {
    await kgrag.close();
  }
  return dir;
}

export interface Running {
  server: KgragServer;
  url: string;
  stop(): Promise<void>;
}

/** A server on a free port of 127.0.0.1, with no setting inherited from the environment. */
export async function startServer(options: CreateServerOptions): Promise<Running> {
  const server = await createServer({
    env: childEnv(),
    ...options,
    server: { port: 0, ...options.server },
  });
  const url = await server.listen();
  return { server, url, stop: () => server.close() };
}

export async function json(response: Response): Promise<Record<string, unknown>> {
  return (await response.json()) as Record<string, unknown>;
}

/** The events of a server-sent event stream, in order, once it ended. */
export async function readEvents(response: Response): Promise<{ event: string; data: unknown }[]> {
  const text = await response.text();
  return text
    .split("\n\n")
    .filter((block) => block.trim())
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? "message";
      const data = /^data: (.*)$/m.exec(block)?.[1] ?? "null";
      return { event, data: JSON.parse(data) as unknown };
    });
}

export async function removeAll(dirs: string[]): Promise<void> {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
}

/**
 * A job runner whose jobs stay running until `release` is called: a request meets a job in
 * progress (a write refused with 409 while it runs). `report` passes a message to the running
 * job's queue as its process would (a progress count).
 */
export function heldJobRunner(): {
  runner: JobRunner;
  release: () => void;
  report: (message: WorkerMessage) => void;
} {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let onRunning: ((message: WorkerMessage) => void) | undefined;
  const runner: JobRunner = {
    run: async (_workspace, _spec, onMessage) => {
      onRunning = onMessage;
      await held;
      return { type: "finished", documents: [], errors: [], message: "held" };
    },
    stop: () => {},
    close: async () => {},
  };
  return { runner, release: () => release(), report: (message) => onRunning?.(message) };
}

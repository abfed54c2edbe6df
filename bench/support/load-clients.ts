/**
 * The load-generating clients of bench/server-load.ts, in a process of their own (forked by
 * LoadClients below): a deployment's clients run elsewhere, so the server's request loop should not
 * share its event loop, or its core, with theirs. The server's process is then the server alone,
 * and the clients' CPU time is this process's, reported apart.
 */
import { type ChildProcess, fork } from "node:child_process";
import { Agent, request as httpRequest } from "node:http";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

/** One run of the query load (see runLoad). */
export interface LoadRequest {
  type: "run";
  url: string;
  questions: string[];
  clients: number;
  /** Give every request its own `id` (numbered from firstNumber on), so no cached answer fits it. */
  distinct: boolean;
  firstNumber: number;
  /** Stop after this long... */
  seconds?: number;
  /** ...or after this many requests, or when told to (a "stop" message). */
  maxRequests?: number;
}

/** What one run measured. */
export interface LoadResult {
  type: "done";
  /** Each answered request's time, from sending it to its last byte (ms). */
  times: number[];
  errors: number;
  /** Answers the server's query cache gave (the x-kgrag-cache header). */
  hits: number;
  /** The next free request number (see LoadRequest.firstNumber). */
  nextNumber: number;
  /** This process's CPU time during the run (ms). */
  cpuMs: number;
  seconds: number;
}

type ToClients = LoadRequest | { type: "stop" };

/**
 * Kept-alive connections, one per client at most. node:http rather than fetch: a quarter of
 * fetch's CPU per request here (0.45 against 1.6 ms for a 67 KB answer), which the clients would
 * otherwise take from the server's two cores.
 */
const agent = new Agent({ keepAlive: true, maxSockets: 1024 });

/** One query, timed until its answer's last byte; `distinct` gives it its own id, so that no cached answer fits it. */
function timedQuery(url: string, question: string, distinct: string | undefined) {
  const body = JSON.stringify({
    question,
    mode: "mix",
    contextOnly: true,
    ...(distinct ? { id: distinct } : {}),
  });
  const t0 = performance.now();
  return new Promise<{ ms: number; hit: boolean }>((resolve, reject) => {
    const request = httpRequest(
      `${url}/api/v1/query`,
      {
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (response) => {
        response.on("data", () => {});
        response.on("error", reject);
        response.on("end", () => {
          if (response.statusCode !== 200) reject(new Error(`status ${response.statusCode}`));
          else resolve({ ms: performance.now() - t0, hit: response.headers["x-kgrag-cache"] === "hit" });
        });
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

let stopped = false;

/** `clients` loops asking the questions round-robin until the run's limit, or a stop. */
async function runLoad(request: LoadRequest): Promise<LoadResult> {
  stopped = false;
  const times: number[] = [];
  let errors = 0;
  let hits = 0;
  let next = 0;
  let number = request.firstNumber;
  const started = performance.now();
  const end = request.seconds === undefined ? Number.POSITIVE_INFINITY : started + request.seconds * 1000;
  const max = request.maxRequests ?? Number.POSITIVE_INFINITY;
  const cpuBefore = process.cpuUsage();
  await Promise.all(
    Array.from({ length: request.clients }, async () => {
      while (!stopped && next < max && performance.now() <= end) {
        const question = request.questions[next++ % request.questions.length] as string;
        try {
          const id = request.distinct ? `q${number++}` : undefined;
          const { ms, hit } = await timedQuery(request.url, question, id);
          times.push(ms);
          if (hit) hits += 1;
        } catch {
          errors += 1;
        }
      }
    }),
  );
  const cpu = process.cpuUsage(cpuBefore);
  return {
    type: "done",
    times,
    errors,
    hits,
    nextNumber: number,
    cpuMs: (cpu.user + cpu.system) / 1000,
    seconds: (performance.now() - started) / 1000,
  };
}

/** The clients' process, seen from the bench: runs one load at a time. */
export class LoadClients {
  private readonly child: ChildProcess;

  constructor() {
    // The bench's own execArgv (tsx's loader) lets the child load this TypeScript file.
    this.child = fork(fileURLToPath(import.meta.url), ["--load-clients"], {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  run(request: Omit<LoadRequest, "type">): Promise<LoadResult> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) =>
        reject(new Error(`the load clients stopped (exit code ${code})`));
      this.child.once("exit", onExit);
      this.child.once("message", (message: LoadResult) => {
        this.child.off("exit", onExit);
        resolve(message);
      });
      this.child.send({ type: "run", ...request } satisfies ToClients);
    });
  }

  /** Ends the current run early (its requests in flight are still awaited). */
  stop(): void {
    this.child.send({ type: "stop" } satisfies ToClients);
  }

  close(): void {
    this.child.disconnect();
  }
}

if (process.argv.includes("--load-clients") && process.send) {
  const send = process.send.bind(process);
  process.on("message", (message: ToClients) => {
    if (message.type === "stop") stopped = true;
    else void runLoad(message).then((result) => send(result));
  });
}

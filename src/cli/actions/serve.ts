import { existsSync } from "node:fs";
import { createServer as createProbe } from "node:net";
import { resolve } from "node:path";
import { createServer, webAppBuilt } from "../../server/app.js";
import type { ServedWorkspace } from "../../server/workspaces.js";
import type { ServeFlags } from "../commands/serve.js";
import { runStoppable } from "../interrupt.js";

/**
 * `kgrag serve`: runs until SIGINT or SIGTERM, then stops running jobs at their next safe point
 * (they run again, resuming, on the next start) and closes the workspaces.
 */
export async function serveAction(flags: ServeFlags): Promise<void> {
  // A port in use is found before the workspaces open and the query processes start.
  await probePort(flags);
  // A mistyped path would otherwise serve a new, empty workspace without a word.
  const missing = (flags.workspace ?? []).map((dir) => resolve(dir)).filter((dir) => !existsSync(dir));
  // Opening large workspaces and starting the query processes takes a while: say so meanwhile.
  process.stderr.write("kgrag: starting: opening the workspaces and starting the query processes...\n");
  const server = await createServer({
    workspaces: flags.workspace,
    server: { host: flags.host, port: flags.port, ...(flags.cors ? { corsOrigins: flags.cors } : {}) },
  });
  for (const workspace of server.context.registry.all) process.stderr.write(`${workspaceLine(workspace)}\n`);
  let address: string;
  try {
    address = await server.listen();
  } catch (error) {
    // Nothing may outlive a failed start: the query workers and the workspaces close here.
    await server.close();
    throw listenError(error, flags);
  }
  const { registry, config } = server.context;
  for (const dir of await stillEmpty(missing, registry.all))
    process.stderr.write(
      `kgrag: NOTE: ${dir} did not exist: created a NEW, EMPTY workspace there (nothing indexed yet).\n` +
        "kgrag: if you meant an existing workspace, stop (Ctrl-C) and check the --workspace path.\n",
    );
  const keys =
    config.apiKeys.length > 0 ? `${config.apiKeys.length} API key(s)` : "no API key (open to this host)";
  process.stderr.write(
    `kgrag: serving ${registry.all.map((w) => `${w.id} (${w.path})`).join(", ")} on ${address} with ${keys}.\n` +
      `${webAppLine(address, webAppBuilt(config))}\n` +
      `kgrag: API docs at ${address}/docs, Ollama-compatible chat at ${address}/api/chat, OpenAI-compatible at ${address}/v1.\n`,
  );
  const served = new Set(registry.all.map((w) => w.id));
  for (const key of config.apiKeys) {
    const unknown = (key.workspaces ?? []).filter((id) => !served.has(id));
    if (unknown.length > 0)
      process.stderr.write(
        `kgrag: an API key names workspace(s) not served here: ${unknown.join(", ")} (served: ${[...served].join(", ")}).\n`,
      );
  }
  // The first SIGINT/SIGTERM stops serving gracefully; a second one quits at once (see interrupt.ts).
  await runStoppable(
    (signal) =>
      new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true })),
    "stopping the server; a running job stops at its next safe point and resumes on the next start",
  );
  await server.close();
}

/**
 * What a workspace runs on: its storage and the models it calls, or the offline built-ins when it
 * calls none (then every answer is extractive, which a team should know before asking).
 */
export function workspaceLine(workspace: ServedWorkspace): string {
  const { chat, config, embedder, reranker, store } = workspace.kgrag.services;
  const offlineEmbedder = embedder.kind === "hashing";
  const models =
    chat === null && offlineEmbedder && !reranker
      ? "offline built-ins (no model configured)"
      : [
          chat ? `chat ${config.llm?.model ?? "custom"}` : "chat: offline built-ins",
          offlineEmbedder ? "embeddings: offline built-in (hashing)" : `embeddings ${embedder.model}`,
          ...(reranker ? [`rerank ${reranker.model}`] : []),
        ].join(", ");
  return `kgrag: workspace ${workspace.id} (${workspace.path}): ${store.kind}, ${models}`;
}

/** Where to open the web app, or why there is none (a clone not yet built serves the API alone). */
function webAppLine(address: string, built: boolean): string {
  return built
    ? `kgrag: web app at ${address}/`
    : "kgrag: no web app: it is not built (run `npm run build` in the kgrag folder); the API is served.";
}

/**
 * The folders that were missing and whose workspace holds nothing: on Neo4j the folder is only
 * where the server keeps its files, and the workspace of that name may be indexed already.
 */
async function stillEmpty(missing: string[], served: ServedWorkspace[]): Promise<string[]> {
  const empty: string[] = [];
  for (const dir of missing) {
    const workspace = served.find((w) => w.path === dir);
    const counts = workspace ? await workspace.kgrag.services.store.counts() : undefined;
    if (!counts || counts.documents === 0) empty.push(dir);
  }
  return empty;
}

/** A failure to listen, said plainly: a port in use or refused names the way out (--port). */
function listenError(error: unknown, flags: ServeFlags): Error {
  const code = (error as { code?: unknown } | null)?.code;
  const where = `${flags.host}:${flags.port}`;
  if (code === "EADDRINUSE")
    return new Error(
      `port ${flags.port} is already in use on ${flags.host} (another kgrag serve, or another server?); ` +
        "stop it, or pick another port with --port <n> (--port 0 picks a free one)",
    );
  if (code === "EACCES")
    return new Error(
      `not allowed to listen on ${where} (ports below 1024 need privileges); pick another port with --port <n>`,
    );
  if (code === "EADDRNOTAVAIL")
    return new Error(`cannot listen on ${where}: no such address on this machine; check --host`);
  return error instanceof Error ? error : new Error(String(error));
}

/** Fails as listening would when the port cannot be had; --port 0 always can. */
async function probePort(flags: ServeFlags): Promise<void> {
  if (flags.port === 0) return;
  const probe = createProbe();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once("error", reject);
      probe.listen({ host: flags.host, port: flags.port, exclusive: true }, resolve);
    });
  } catch (error) {
    throw listenError(error, flags);
  } finally {
    if (probe.listening) await new Promise((resolve) => probe.close(resolve));
  }
}

import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { createServer } from "../../server/app.js";
import type { ServeFlags } from "../commands/serve.js";
import { runStoppable } from "../interrupt.js";

/** `kgrag serve`: runs until SIGINT or SIGTERM, then lets running jobs finish and closes the workspaces. */
export async function serveAction(flags: ServeFlags): Promise<void> {
  // A mistyped path would otherwise serve a new, empty workspace without a word.
  for (const dir of flags.workspace ?? []) {
    if (!existsSync(resolve(dir)))
      process.stderr.write(`kgrag: ${dir} does not exist yet: serving it as a new, empty workspace.\n`);
  }
  const server = await createServer({
    workspaces: flags.workspace,
    server: { host: flags.host, port: flags.port, ...(flags.cors ? { corsOrigins: flags.cors } : {}) },
  });
  const address = await server.listen();
  const { registry, config } = server.context;
  const keys =
    config.apiKeys.length > 0 ? `${config.apiKeys.length} API key(s)` : "no API key (open to this host)";
  process.stderr.write(
    `kgrag: serving ${registry.all.map((w) => `${w.id} (${w.path})`).join(", ")} on ${address} with ${keys}.\n` +
      `kgrag: API docs at ${address}/docs, Ollama-compatible chat at ${address}/api/chat.\n`,
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
    "stopping the server; a running job is finished first",
  );
  await server.close();
}

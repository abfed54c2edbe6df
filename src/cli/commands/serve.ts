import type { Command } from "commander";
import { UsageError } from "../usage-error.js";

export interface ServeFlags {
  host: string;
  port: number;
  workspace: string[];
  cors?: string[];
}

function portNumber(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port must be 0-65535, got ${value}`);
  return port;
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function registerServeCommand(program: Command): void {
  program
    .command("serve")
    .description("Serve the REST API, the Ollama-compatible chat API and the web app over HTTP")
    .option("--host <host>", "address to bind (keep 127.0.0.1 unless API keys are set)", "127.0.0.1")
    .option("-p, --port <port>", "port (0 picks a free one)", portNumber, 9621)
    .option(
      "-w, --workspace <dir>",
      "workspace folder, or a folder of workspaces; repeat for several (default $KGRAG_WORKSPACE or ./kgrag-data)",
      collect,
      [],
    )
    .option(
      "--cors <origin>",
      "allow browser calls from this origin; repeat for several (default: CORS off)",
      collect,
    )
    .action(async (opts: ServeFlags) => (await import("../actions/serve.js")).serveAction(opts));
}

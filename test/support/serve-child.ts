import { type CliChild, startCli } from "./cli-child.js";

export interface ServeChild {
  url: string;
  child: CliChild;
  stop(): Promise<void>;
}

/** Starts `kgrag serve --port 0` on the given workspaces and resolves with the address it printed. */
export async function startServe(
  workspaces: string[],
  env: Record<string, string> = {},
): Promise<ServeChild> {
  const args = [
    "serve",
    "--host",
    "127.0.0.1",
    "--port",
    "0",
    ...workspaces.flatMap((w) => ["--workspace", w]),
  ];
  const child = startCli(args, env);
  const url = await new Promise<string>((resolve, reject) => {
    let printed = "";
    const onData = (text: string) => {
      printed += text;
      const match = /(https?:\/\/127\.0\.0\.1:\d+)/.exec(printed);
      if (match?.[1]) {
        child.process.stderr?.off("data", onData);
        resolve(match[1]);
      }
    };
    child.process.stderr?.on("data", onData);
    child.done.then(
      (result) => reject(new Error(`kgrag serve exited early (${result.code}):\n${result.stderr}`)),
      reject,
    );
  });
  return {
    url,
    child,
    async stop() {
      if (child.process.exitCode === null) child.process.kill("SIGTERM");
      await child.done;
    },
  };
}

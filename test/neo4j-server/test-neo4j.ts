import { type ChildProcess, execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

/**
 * A real Neo4j 5.26 (community) for the test suite and for trying the CLI by hand: Neo4j's own
 * artifacts resolved by Maven from the pinned pom.xml beside this file (cached in ~/.m2 and the
 * classpath in node_modules/.cache), started by the launcher beside this file (compiled once into
 * that cache) with Bolt on a free loopback port, a temporary data folder and a random password.
 */

const HERE = fileURLToPath(new URL(".", import.meta.url));
const POM = join(HERE, "pom.xml");
const LAUNCHER = join(HERE, "TestNeo4j.java");
const CACHE_DIR = fileURLToPath(new URL("../../node_modules/.cache/kgrag-test-neo4j/", import.meta.url));
/** Generous: on two cores busy with the rest of the suite and other work, start-up takes minutes. */
export const START_TIMEOUT_MS = 600_000;
const STOP_TIMEOUT_MS = 30_000;

const exec = promisify(execFile);

export interface TestNeo4j {
  uri: string;
  /** The server's process id (for its memory figures in benchmarks). */
  pid: number;
  username: string;
  password: string;
  version: string;
  stop(): Promise<void>;
}

/** Why the test Neo4j cannot start here (no Java or Maven), or undefined when it can. */
export async function missingTools(): Promise<string | undefined> {
  for (const [tool, args] of [
    ["java", ["-version"]],
    ["mvn", ["-v"]],
  ] as const) {
    try {
      await exec(tool, [...args], { timeout: 30_000 });
    } catch {
      return `${tool} not found on PATH (Java 17+ and Maven start the test Neo4j)`;
    }
  }
  return undefined;
}

/** Memory for the server: the suite's defaults suit small test graphs; benchmarks give more. */
export interface TestNeo4jMemory {
  heapMb?: number;
  pageCacheMb?: number;
}

/**
 * How the JVM compiles Neo4j's code. `quick`: the client compiler only (-XX:TieredStopAtLevel=1),
 * for the suite, whose queries are many, small and mostly distinct: there the optimising compiler
 * spent more CPU compiling (about a third of the server's CPU) than its code saved. `peak`: the
 * JVM's default, for benchmarks, whose long runs pay back the optimising compiler.
 */
export type TestNeo4jJit = "quick" | "peak";

export async function startTestNeo4j(
  log: (line: string) => void = () => {},
  memory: TestNeo4jMemory = {},
  jit: TestNeo4jJit = "peak",
): Promise<TestNeo4j> {
  const server = await launchTestNeo4j(log, memory, jit);
  await server.ready;
  return server;
}

/** A test Neo4j whose process is started but may still be starting up. */
export interface StartingNeo4j extends TestNeo4j {
  /** Settles once Bolt answers; rejects (after stopping the process) when it cannot start. */
  ready: Promise<void>;
}

/**
 * Starts the server without waiting for it: address and password are known at once, so the test
 * suite can hand them to its workers and run the tests that need no database meanwhile.
 */
export async function launchTestNeo4j(
  log: (line: string) => void = () => {},
  memory: TestNeo4jMemory = {},
  jit: TestNeo4jJit = "peak",
): Promise<StartingNeo4j> {
  const classpath = await resolveClasspath(log);
  const launcher = await compiledLauncher(classpath);
  const port = await freePort();
  const password = `kgrag-${createHash("sha256").update(`${process.pid}-${Date.now()}-${port}`).digest("hex").slice(0, 16)}`;
  const dataDir = mkdtempSync(join(tmpdir(), "kgrag-test-neo4j-"));
  const child = spawn(
    "java",
    [
      "-Xms512m",
      `-Xmx${memory.heapMb ?? 1024}m`,
      "-XX:+UseParallelGC",
      ...(jit === "quick" ? ["-XX:TieredStopAtLevel=1"] : []),
      "-cp",
      launcher ? `${launcher}${delimiter}${classpath}` : classpath,
      launcher ? "TestNeo4j" : LAUNCHER,
      dataDir,
      String(port),
      password,
      String(memory.pageCacheMb ?? 512),
    ],
    { stdio: ["pipe", "pipe", "pipe"] },
  );
  const stop = () => stopServer(child, dataDir);
  const ready = waitForReady(child).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  // Whoever awaits `ready` sees a failure; until then it must not count as unhandled.
  ready.catch(() => {});
  return {
    uri: `bolt://127.0.0.1:${port}`,
    pid: child.pid ?? 0,
    username: "neo4j",
    password,
    version: neo4jVersion(),
    ready,
    stop,
  };
}

/** The Neo4j version pinned in pom.xml. */
export function neo4jVersion(): string {
  const match = /<neo4j\.version>([^<]+)<\/neo4j\.version>/.exec(readFileSync(POM, "utf8"));
  if (!match?.[1]) throw new Error(`no <neo4j.version> in ${POM}`);
  return match[1];
}

/** `mvn dependency:build-classpath` once per pom.xml content; later runs read the cached file. */
async function resolveClasspath(log: (line: string) => void): Promise<string> {
  const key = createHash("sha256").update(readFileSync(POM)).digest("hex").slice(0, 16);
  const file = join(CACHE_DIR, `classpath-${key}.txt`);
  if (existsSync(file)) {
    const cached = readFileSync(file, "utf8").trim();
    if (cached.split(":").every((jar) => existsSync(jar))) return cached;
  }
  mkdirSync(CACHE_DIR, { recursive: true });
  log(`Resolving Neo4j ${neo4jVersion()} with Maven (the first time downloads it to ~/.m2)...`);
  try {
    await exec("mvn", ["-q", "-B", "-f", POM, "dependency:build-classpath", `-Dmdep.outputFile=${file}`], {
      timeout: 15 * 60_000,
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    const output = error instanceof Error && "stdout" in error ? String(error.stdout) : String(error);
    throw new Error(`Maven could not resolve the test Neo4j (${POM}):\n${output.slice(-2000)}`);
  }
  return readFileSync(file, "utf8").trim();
}

/**
 * The launcher compiled once per content into the cache (a folder holding TestNeo4j.class): run
 * from its source, Java compiles it at every start, a third of the server's start-up CPU. Undefined
 * when javac cannot compile it here; the server then starts from the source.
 */
async function compiledLauncher(classpath: string): Promise<string | undefined> {
  const key = createHash("sha256").update(readFileSync(LAUNCHER)).digest("hex").slice(0, 16);
  const dir = join(CACHE_DIR, `launcher-${key}`);
  if (existsSync(join(dir, "TestNeo4j.class"))) return dir;
  // Compiled aside and renamed: two suites starting at once never see half a folder.
  mkdirSync(CACHE_DIR, { recursive: true });
  const building = mkdtempSync(join(CACHE_DIR, "launcher-building-"));
  try {
    await exec("javac", ["-cp", classpath, "-d", building, LAUNCHER], { timeout: 120_000 });
    renameSync(building, dir);
    return dir;
  } catch {
    rmSync(building, { recursive: true, force: true });
    return existsSync(join(dir, "TestNeo4j.class")) ? dir : undefined;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function waitForReady(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(
      () => fail(new Error(`the test Neo4j did not start within ${START_TIMEOUT_MS / 1000} s`)),
      START_TIMEOUT_MS,
    );
    const fail = (error: Error) => {
      clearTimeout(timer);
      reject(new Error(`${error.message}\n${output.slice(-3000)}`));
    };
    child.stdout?.on("data", (data: Buffer) => {
      output += data.toString();
      if (output.includes("READY ")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr?.on("data", (data: Buffer) => {
      output += data.toString();
    });
    child.on("error", fail);
    child.on("exit", (code, signal) => fail(new Error(`the test Neo4j exited early (${code ?? signal})`)));
  });
}

/** Closing standard input asks the launcher to shut down; it is killed if it does not. */
async function stopServer(child: ChildProcess, dataDir: string): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.stdin?.end();
    const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }
  rmSync(dataDir, { recursive: true, force: true });
}

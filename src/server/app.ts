import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Duplex } from "node:stream";
import cors from "@fastify/cors";
import multipart from "@fastify/multipart";
import rateLimit from "@fastify/rate-limit";
import fastifyStatic from "@fastify/static";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from "fastify-type-provider-zod";
import { packagePath } from "../util/paths.js";
import { markServed } from "../workspace/served-marker.js";
import { findKey, presentedKey, requireApiKey } from "./auth.js";
import type { ServerContext } from "./context.js";
import { allowedOrigin, corsOptions } from "./cors.js";
import {
  ApiError,
  errorBody,
  handleError,
  isOllamaPath,
  ollamaErrorBody,
  unsupportedMediaType,
} from "./errors.js";
import { childProcessRunner, type JobRunner } from "./jobs/job-runner.js";
import { RouteMethods } from "./route-methods.js";
import { backupRoutes } from "./routes/backup.js";
import { cypherRoutes } from "./routes/cypher.js";
import { documentRoutes } from "./routes/documents.js";
import { entityRoutes } from "./routes/entities.js";
import { graphRoutes } from "./routes/graph.js";
import { jobRoutes } from "./routes/jobs.js";
import { metaRoutes } from "./routes/meta.js";
import { ollamaRoutes } from "./routes/ollama.js";
import { openAiRoutes } from "./routes/openai.js";
import { queryRoutes } from "./routes/query.js";
import { type ServerConfigInput, serverConfigFrom } from "./server-config.js";
import { WorkspaceRegistry, workspaceFolders } from "./workspaces.js";

export interface CreateServerOptions {
  /** Workspace folders (or folders of workspaces); none: KGRAG_WORKSPACE or ./kgrag-data. */
  workspaces?: string[];
  server?: ServerConfigInput;
  env?: NodeJS.ProcessEnv;
  /** How jobs run (default: a child process per job). */
  runner?: JobRunner;
  logger?: boolean;
}

export interface KgragServer {
  app: FastifyInstance;
  context: ServerContext;
  /** Listens on the configured host and port; resolves to the address. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

/** The HTTP server of `kgrag serve`: the workspaces opened, routes registered, not yet listening. */
export async function createServer(options: CreateServerOptions = {}): Promise<KgragServer> {
  const env = options.env ?? process.env;
  const config = serverConfigFrom(options.server, env);
  const registry = await WorkspaceRegistry.open(workspaceFolders(options.workspaces ?? [], env), {
    env,
    runner: options.runner ?? childProcessRunner(env, { nice: config.jobNice }),
    keptJobs: config.keptJobs,
    jobBusyWaitMs: config.jobBusyWaitMs,
    queryWorkers: config.queryWorkers,
    warmQueryWorkers: config.warmQueryWorkers,
    queryTimeoutMs: config.queryTimeoutMs,
    queryCancelGraceMs: config.queryCancelGraceMs,
    queryAffinitySlack: config.queryAffinitySlack,
    queryCache: config.queryCache,
    neighbourhoodCache: config.neighbourhoodCache,
  });
  const { version } = JSON.parse(readFileSync(packagePath("package.json"), "utf8")) as { version: string };
  const context: ServerContext = { config, registry, version };
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: config.upload.maxBodyBytes,
    // Requests refused before any route (a path with a broken escape, a request line the HTTP
    // parser rejects, such as raw non-ASCII bytes) answer in the API's error shape too.
    frameworkErrors: refuseUnroutable(config.corsOrigins),
    clientErrorHandler: refuseMalformedRequest,
  });
  try {
    await configure(app, context);
  } catch (error) {
    await registry.close();
    throw error;
  }
  // Marked once listening (the address known), so a restore can refuse and name this server.
  let unmark = () => {};
  const sqliteFolders = registry.all
    .filter((w) => w.kgrag.services.store.kind === "sqlite")
    .map((w) => w.path);
  return {
    app,
    context,
    listen: async () => {
      const url = await app.listen({ host: config.host, port: config.port });
      unmark = markServed(sqliteFolders, url);
      return url;
    },
    close: async () => {
      // The query processes are unref'd (idle, they keep nothing alive); with the socket closed,
      // waiting for them to exit must not let the event loop drain and the process end half-closed.
      const keepAlive = setInterval(() => {}, 60_000);
      const cut = setTimeout(() => app.server.closeAllConnections(), config.shutdownGraceMs);
      cut.unref();
      try {
        await app.close();
      } finally {
        clearTimeout(cut);
      }
      try {
        await registry.close();
      } finally {
        unmark();
        clearInterval(keepAlive);
      }
    },
  };
}

async function configure(app: FastifyInstance, ctx: ServerContext): Promise<void> {
  const { config } = ctx;
  const routeMethods = new RouteMethods();
  routeMethods.watch(app);
  const noRoute = (method: string, path: string) =>
    noRouteBody(method, path, routeMethods.othersAt(method, path));
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(handleError);
  // JSON routes take JSON only: a text or multipart body is refused with 415, not read as a string.
  // Routes without a body (re-index, delete) still take a POST whatever its content type.
  app.addHook("preValidation", async (request) => {
    if (!request.routeOptions.schema?.body || request.routeOptions.config.anyContentType) return;
    const textBody = /^text\/plain\b/i.test(request.headers["content-type"] ?? "");
    if (textBody || request.isMultipart())
      throw unsupportedMediaType("This route takes a JSON body (Content-Type: application/json)");
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.status(404).send(noRoute(request.method, request.url.split("?")[0] ?? "/"));
  });
  if (config.corsOrigins.length > 0) await app.register(cors, corsOptions(config.corsOrigins));
  app.addHook("onRequest", requireApiKey(config.apiKeys));
  await app.register(rateLimit, {
    max: config.rateLimitPerMinute,
    timeWindow: 60_000,
    keyGenerator: (request: FastifyRequest) => {
      const key = findKey(config.apiKeys, presentedKey(request));
      return key ? `key:${key.key}` : `ip:${request.ip}`;
    },
    // Thrown to the error handler, which answers in the shape of the route (REST or Ollama).
    errorResponseBuilder: (_request, context) =>
      new ApiError(
        429,
        "rate_limited",
        `Rate limit reached: ${context.max} requests per minute; retry in ${context.after}`,
      ),
  });
  await app.register(multipart, {
    // Names arrive as sent, so that a name with a folder part is refused rather than cut down.
    preservePath: true,
    limits: {
      fileSize: config.upload.maxFileBytes,
      files: config.upload.maxFiles,
      fields: 20,
      parts: config.upload.maxFiles + 20,
    },
  });
  await app.register(swagger, {
    openapi: {
      info: { title: "kgrag API", version: ctx.version, description: "Knowledge-graph RAG over HTTP" },
      components: {
        securitySchemes: {
          bearer: { type: "http", scheme: "bearer" },
          apiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
        },
      },
      security: config.apiKeys.length > 0 ? [{ bearer: [] }, { apiKey: [] }] : [],
    },
    transform: jsonSchemaTransform,
  });
  await app.register(swaggerUi, { routePrefix: "/docs" });
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
  await metaRoutes(app, ctx);
  await queryRoutes(app, ctx);
  await documentRoutes(app, ctx);
  await jobRoutes(app, ctx);
  await graphRoutes(app, ctx);
  await entityRoutes(app, ctx);
  await cypherRoutes(app, ctx);
  await backupRoutes(app, ctx);
  await ollamaRoutes(app, ctx);
  await openAiRoutes(app, ctx);
  await serveWebApp(app, webAppDir(config), noRoute);
}

/**
 * A request Fastify refuses before routing it (a URL with a broken percent-escape, a parameter
 * past its length): a 400 in the API's error shape. No hook runs for it, the CORS one included, so
 * an allowed origin gets its CORS headers here; without them its page could not read the error.
 */
function refuseUnroutable(corsOrigins: readonly string[]) {
  return (error: Error, request: FastifyRequest, reply: FastifyReply): void => {
    if (corsOrigins.length > 0) {
      void reply.header("vary", "Origin");
      const origin = allowedOrigin(request.headers.origin, corsOrigins);
      if (origin) void reply.header("access-control-allow-origin", origin);
    }
    const message = `Bad request: ${error.message}`;
    const ollama = isOllamaPath(request.url.split("?")[0] ?? "/");
    void reply.status(400).send(ollama ? ollamaErrorBody(message) : errorBody("bad_request", message));
  };
}

/** What a request the HTTP parser refused answers: status, reason and our error code and message. */
function clientErrorReply(code: string | undefined): [number, string, string, string] {
  if (code === "ERR_HTTP_REQUEST_TIMEOUT")
    return [408, "Request Timeout", "timeout", "The request took too long to arrive"];
  if (code === "HPE_HEADER_OVERFLOW")
    return [
      431,
      "Request Header Fields Too Large",
      "headers_too_large",
      "The request's headers are too large",
    ];
  return [
    400,
    "Bad Request",
    "bad_request",
    `Malformed HTTP request (${code ?? "parse error"}); send the URL percent-encoded`,
  ];
}

/**
 * A request the HTTP parser could not read answers in the API's error shape, then the connection
 * is destroyed (as Fastify's own handler does): ending only our side would keep it half open.
 * It carries no CORS headers: the request's headers were never parsed, so its origin is unknown.
 */
function refuseMalformedRequest(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const [status, reason, code, message] = clientErrorReply(error.code);
  const body = JSON.stringify(errorBody(code, message));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/**
 * A request no route takes: the REST shape, or Ollama's under its paths (an Ollama client asking
 * for /api/pull). A path that takes other methods says which (`curl` of a POST route sends GET).
 */
function noRouteBody(method: string, path: string, otherMethods: readonly string[]) {
  const takes = otherMethods.length > 0 ? `; this path takes ${otherMethods.join(" or ")}` : "";
  const message = `No route ${method} ${path}${takes}`;
  return isOllamaPath(path) ? ollamaErrorBody(message) : errorBody("not_found", message);
}

/** The folder of the built web app the server serves at `/`: built there by `npm run build`. */
export function webAppDir(config: { webDir?: string }): string {
  return config.webDir ?? packagePath("web/dist");
}

/** True when the web app has been built, so that `/` serves it. */
export function webAppBuilt(config: { webDir?: string }): boolean {
  return existsSync(join(webAppDir(config), "index.html"));
}

/**
 * The built web app at `/`, when it was built; unknown non-API paths fall back to its index.html.
 * A file path (`/assets/index-<hash>.js`) is looked up when asked for, not only among the files
 * there at start: after a rebuild beside a running server, index.html names new assets, which
 * the fallback answered with index.html itself (a blank app: HTML is no module script); a
 * file that is not there is a 404.
 */
async function serveWebApp(
  app: FastifyInstance,
  dir: string,
  noRoute: (method: string, path: string) => ReturnType<typeof noRouteBody>,
): Promise<void> {
  if (!webAppBuilt({ webDir: dir })) return;
  await app.register(fastifyStatic, { root: dir, prefix: "/", wildcard: false });
  app.get("/*", { schema: { hide: true } }, (request, reply) => {
    const path = request.url.split("?")[0] ?? "/";
    if (path.startsWith("/api/") || path.startsWith("/v1/")) {
      void reply.status(404).send(noRoute(request.method, path));
      return;
    }
    // send (under sendFile) decodes the path and refuses one that climbs out of the folder.
    void reply.sendFile(isFilePath(path) ? path.slice(1) : "index.html");
  });
}

/** A path that names a file (`/assets/x.js`, `/favicon.ico`) rather than an app route (`/graph`). */
function isFilePath(path: string): boolean {
  return /\.[A-Za-z0-9]+$/.test(path);
}

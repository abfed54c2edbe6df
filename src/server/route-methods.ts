import type { FastifyInstance } from "fastify";

interface RoutePattern {
  method: string;
  matches: RegExp;
}

/** `/api/v1/documents/:id/reindex` as a pattern a concrete path is tested against. */
function patternOf(url: string): RegExp {
  const escaped = url.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/:[^/]+/g, "[^/]+");
  return new RegExp(`^${escaped}/?$`);
}

/**
 * The methods that do have a route at a path, so that a request with another one (a GET of
 * `/api/v1/query`) is told which to use rather than that the path does not exist.
 */
export class RouteMethods {
  private readonly routes: RoutePattern[] = [];

  /** Records every route registered after this call: call it before the routes are added. */
  watch(app: FastifyInstance): void {
    app.addHook("onRoute", (route) => {
      // The web app's catch-all takes every path: it says nothing about the API's methods.
      if (route.url.includes("*")) return;
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      for (const method of methods) {
        // Fastify adds HEAD beside every GET; naming GET says it.
        if (method !== "HEAD") this.routes.push({ method, matches: patternOf(route.url) });
      }
    });
  }

  /** The methods with a route at `path`, other than `method`, in the order they were registered. */
  othersAt(method: string, path: string): string[] {
    const found = this.routes.filter((route) => route.method !== method && route.matches.test(path));
    return [...new Set(found.map((route) => route.method))];
  }
}

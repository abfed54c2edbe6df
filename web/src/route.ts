import { useEffect, useState } from "preact/hooks";

/** Hash routes (`#/graph?entity=Alice`): the server only needs to serve index.html at `/`. */
export interface Route {
  view: string;
  params: URLSearchParams;
}

export function parseRoute(hash: string): Route {
  const [path = "", search = ""] = hash.replace(/^#\/?/, "").split("?", 2);
  return { view: path || "documents", params: new URLSearchParams(search) };
}

export function routeHash(view: string, params: Record<string, string> = {}): string {
  const search = new URLSearchParams(params).toString();
  return `#/${view}${search ? `?${search}` : ""}`;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(location.hash));
    addEventListener("hashchange", onChange);
    return () => removeEventListener("hashchange", onChange);
  }, []);
  return route;
}

/**
 * Hash routes (`#/graph?workspace=main&entity=Alice`): the server only needs to serve index.html
 * at `/`. Every route names the workspace it shows, so an address opens the same thing elsewhere.
 * (A plain module: unit tests read it; route.ts adds the browser's history.)
 */
export interface Route {
  view: string;
  params: URLSearchParams;
}

/** The route parameter naming the workspace. */
export const WORKSPACE_PARAM = "workspace";

export function parseRoute(hash: string): Route {
  const [path = "", search = ""] = hash.replace(/^#\/?/, "").split("?", 2);
  return { view: path || "documents", params: new URLSearchParams(search) };
}

/** The workspace of the links made meanwhile; set by the app as it renders, before its views. */
let linkedWorkspace = "";
export function linkWorkspace(id: string): void {
  linkedWorkspace = id;
}

/** The address of a view; it names `workspace` (by default the one shown) before the view's own params. */
export function routeHash(
  view: string,
  params: Record<string, string> = {},
  workspace = linkedWorkspace,
): string {
  const search = new URLSearchParams(workspace ? { [WORKSPACE_PARAM]: workspace } : {});
  for (const [key, value] of Object.entries(params)) if (key !== WORKSPACE_PARAM) search.set(key, value);
  const text = search.toString();
  return `#/${view}${text ? `?${text}` : ""}`;
}

/** `hash` with its workspace set to `workspace`, the view and its other params kept. */
export function withWorkspace(hash: string, workspace: string): string {
  const { view, params } = parseRoute(hash);
  return routeHash(view, Object.fromEntries(params), workspace);
}

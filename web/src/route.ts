import { useEffect, useState } from "preact/hooks";
import { parseRoute, type Route } from "./route-hash";

export * from "./route-hash";

const listeners = new Set<() => void>();

/** Goes to `hash` as a new history entry (Back returns to the one before); nothing when already there. */
export function pushRoute(hash: string): void {
  if (location.hash !== hash) location.hash = hash;
}

/** Puts `hash` in the address in place of the current entry (no new history entry). */
export function replaceRoute(hash: string): void {
  if (location.hash === hash) return;
  history.replaceState(history.state, "", hash);
  for (const listener of listeners) listener();
}

/** The current route, rendered again when the address changes (Back, a link, pushRoute, replaceRoute). */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(location.hash));
    addEventListener("hashchange", onChange);
    listeners.add(onChange);
    return () => {
      removeEventListener("hashchange", onChange);
      listeners.delete(onChange);
    };
  }, []);
  return route;
}

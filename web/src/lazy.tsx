import type { ComponentType } from "preact";
import { useEffect, useState } from "preact/hooks";

/** A component loaded on first render, so heavy views (sigma, graphology) stay out of the first load. */
export function lazyComponent<P extends object>(
  load: () => Promise<{ default: ComponentType<P> }>,
): ComponentType<P> {
  let loaded: ComponentType<P> | undefined;
  return function LazyComponent(props: P) {
    const [component, setComponent] = useState<ComponentType<P> | undefined>(() => loaded);
    const [failure, setFailure] = useState<string>();
    useEffect(() => {
      if (loaded) return;
      load()
        .then((module) => {
          loaded = module.default;
          setComponent(() => module.default);
        })
        .catch((error: unknown) => setFailure(String(error)));
    }, []);
    if (failure) return <p class="error">Could not load this view: {failure}</p>;
    if (!component) return <p class="muted">Loading…</p>;
    const Component = component;
    return <Component {...props} />;
  };
}

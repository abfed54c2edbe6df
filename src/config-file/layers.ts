/** Plain JSON-like objects merged and walked key by key: a config file, the environment, options. */
export type Plain = Record<string, unknown>;

export function isPlainObject(value: unknown): value is Plain {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `over` wins key by key, objects merge recursively, arrays and scalars are replaced; undefined never wins. */
export function deepMerge(base: Plain, over: Plain): Plain {
  const out: Plain = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue;
    const current = out[key];
    // Objects are copied, so that filling in the merged result never writes into a layer.
    if (isPlainObject(value)) out[key] = deepMerge(isPlainObject(current) ? current : {}, value);
    else out[key] = value;
  }
  return out;
}

/** Every leaf (scalar or array) as a dotted path, e.g. "query.topK". */
export function leafPaths(value: Plain, prefix = ""): Array<[string, unknown]> {
  const leaves: Array<[string, unknown]> = [];
  for (const [key, child] of Object.entries(value)) {
    if (child === undefined) continue;
    const path = prefix ? `${prefix}.${key}` : key;
    if (isPlainObject(child)) leaves.push(...leafPaths(child, path));
    else leaves.push([path, child]);
  }
  return leaves;
}

/** Whether `value` holds something (not undefined) at the dotted path. */
export function hasPath(value: Plain, path: string): boolean {
  let node: unknown = value;
  for (const key of path.split(".")) {
    if (!isPlainObject(node)) return false;
    node = node[key];
  }
  return node !== undefined;
}

/** Sets a dotted path, creating the objects on the way. */
export function setPath(target: Plain, path: string, value: unknown): void {
  const keys = path.split(".");
  let node = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (isPlainObject(next)) node = next;
    else {
      const created: Plain = {};
      node[key] = created;
      node = created;
    }
  }
  node[keys.at(-1) as string] = value;
}

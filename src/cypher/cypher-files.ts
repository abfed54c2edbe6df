import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { packagePath } from "../util/paths.js";

/**
 * Every Cypher statement kgrag runs lives in cypher/<folder>/<name>.cypher. A file opens with a
 * comment header: free text saying what it does, then one `// @param name description` line per
 * parameter (`name?` marks an optional one, passed as null when absent). The loader checks the
 * header against the `$parameters` the statement uses, so the documentation cannot drift.
 */
export interface CypherParam {
  name: string;
  optional: boolean;
  description: string;
}

export interface CypherStatement {
  /** Path under cypher/ without the extension, e.g. "store/upsert-entities". */
  name: string;
  path: string;
  description: string;
  params: CypherParam[];
  text: string;
}

const PARAM_LINE = /^\/\/\s*@param\s+([A-Za-z_][A-Za-z0-9_]*)(\?)?\s*(.*)$/;
const cache = new Map<string, CypherStatement>();

export function cypherDir(): string {
  return packagePath("cypher");
}

/** Loads cypher/<name>.cypher once per process. */
export function loadCypher(name: string): CypherStatement {
  const cached = cache.get(name);
  if (cached) return cached;
  const path = join(cypherDir(), `${name}.cypher`);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    throw new Error(`No Cypher statement "${name}": ${path} is missing (is the cypher/ folder installed?)`);
  }
  const statement = parseCypherFile(text, name, path);
  cache.set(name, statement);
  return statement;
}

/** Reads any .cypher file (e.g. one given to `kgrag cypher --file`). */
export function readCypherFile(path: string): CypherStatement {
  const name = relative(cypherDir(), path)
    .split(sep)
    .join("/")
    .replace(/\.cypher$/, "");
  return parseCypherFile(readFileSync(path, "utf8"), name, path);
}

export function parseCypherFile(text: string, name: string, path = name): CypherStatement {
  const description: string[] = [];
  const params: CypherParam[] = [];
  for (const line of text.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (!trimmed.startsWith("//")) break;
    const param = PARAM_LINE.exec(trimmed);
    if (param) {
      params.push({ name: param[1] as string, optional: param[2] === "?", description: param[3] ?? "" });
    } else {
      description.push(trimmed.replace(/^\/\/\s?/, ""));
    }
  }
  const statement = { name, path, description: description.join(" ").trim(), params, text };
  assertParamsDocumented(statement);
  return statement;
}

/** The `$name` parameters a statement uses, ignoring comments and string literals. */
export function usedParameters(text: string): string[] {
  const code = text
    .replace(/\/\/[^\n]*/g, "")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"/g, "''");
  const names = new Set<string>();
  for (const match of code.matchAll(/\$([A-Za-z_][A-Za-z0-9_]*)/g)) names.add(match[1] as string);
  return [...names].sort();
}

function assertParamsDocumented(statement: CypherStatement): void {
  const documented = new Set(statement.params.map((p) => p.name));
  const used = usedParameters(statement.text);
  const undocumented = used.filter((name) => !documented.has(name));
  const unused = [...documented].filter((name) => !used.includes(name));
  if (undocumented.length > 0 || unused.length > 0) {
    throw new Error(
      `${statement.path}: the header must document exactly the parameters used ` +
        `(undocumented: ${undocumented.join(", ") || "none"}; documented but unused: ${unused.join(", ") || "none"})`,
    );
  }
}

/**
 * The parameter map for a run: every required parameter must be given, optional ones default to
 * null, and unknown names are refused (they are usually a typo).
 */
export function bindCypherParams(
  statement: CypherStatement,
  values: Record<string, unknown>,
): Record<string, unknown> {
  const known = new Set(statement.params.map((p) => p.name));
  const unknown = Object.keys(values).filter((key) => !known.has(key));
  if (unknown.length > 0) {
    throw new Error(
      `${statement.name} takes no parameter ${unknown.map((k) => `$${k}`).join(", ")}; ` +
        `it takes: ${describeParams(statement)}`,
    );
  }
  const bound: Record<string, unknown> = {};
  for (const param of statement.params) {
    const value = values[param.name];
    if (value === undefined && !param.optional) {
      throw new Error(
        `${statement.name} needs $${param.name} (${param.description}); it takes: ${describeParams(statement)}`,
      );
    }
    bound[param.name] = value ?? null;
  }
  return bound;
}

export function describeParams(statement: CypherStatement): string {
  if (statement.params.length === 0) return "no parameters";
  return statement.params.map((p) => `$${p.name}${p.optional ? " (optional)" : ""}`).join(", ");
}

/** Splits a schema script into statements at semicolons that end a line. */
export function splitStatements(text: string): string[] {
  return text
    .split(/;[ \t]*(?:\r?\n|$)/)
    .map((part) =>
      part
        .split(/\r?\n/)
        .filter((line) => !line.trim().startsWith("//"))
        .join("\n")
        .trim(),
    )
    .filter((part) => part.length > 0);
}

/** Every .cypher file under the folder, as names relative to it (e.g. "explore/shortest-path"). */
export function listCypherFiles(dir = cypherDir()): string[] {
  const names: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder).sort()) {
      const full = join(folder, entry);
      if (statSync(full).isDirectory()) walk(full);
      else if (entry.endsWith(".cypher")) {
        names.push(
          relative(dir, full)
            .split(sep)
            .join("/")
            .replace(/\.cypher$/, ""),
        );
      }
    }
  };
  walk(dir);
  return names;
}

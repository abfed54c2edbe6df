import type { DbSchema, SyntaxDiagnostic } from "@neo4j-cypher/language-support";
import { checkDirections } from "./directions.js";
import { lintCypher } from "./language-support.js";
import { parseCypherTree, statementsOf } from "./parse-tree.js";
import { checkReadOnly, type ReadOnlyPolicy } from "./read-only.js";
import type { GraphSchema } from "./schema.js";
import { checkSchemaNames } from "./schema-check.js";

export interface ValidateOptions extends ReadOnlyPolicy {
  /**
   * Parameters the caller will supply at run time. A `$name` not listed is an error (the query
   * would fail); "any" accepts every parameter and only warns. Default: none.
   */
  parameters?: readonly string[] | "any";
  /**
   * Cypher dialect to lint with; Neo4j 5.x speaks "CYPHER 5" (the default). A plain string, as in
   * the language-support package, whose own types are kept out of kgrag's public declarations.
   */
  cypherVersion?: string;
}

export interface CypherValidation {
  valid: boolean;
  /** False when the query writes, reads files/URLs, runs admin commands or calls an unlisted procedure. */
  readOnly: boolean;
  errors: string[];
  warnings: string[];
}

const ERROR = 1;

/**
 * The one validator every Cypher path goes through before anything runs: syntax and semantics
 * from Neo4j's own front end, then, from the parse tree, read-only rules and (with a schema)
 * labels, relationship types, properties and relationship directions.
 */
export function validateCypher(
  query: string,
  schema: GraphSchema | null,
  options: ValidateOptions = {},
): CypherValidation {
  if (query.trim() === "")
    return { valid: false, readOnly: true, errors: ["The query is empty"], warnings: [] };
  const errors: string[] = [];
  const warnings: string[] = [];
  try {
    lint(query, options, errors, warnings);
    const tree = parseCypherTree(query);
    if (statementsOf(tree).length > 1)
      errors.push("Only one statement is allowed (found several separated by ;)");
    const { violations, errors: refusals } = checkReadOnly(tree, options);
    errors.push(...violations, ...refusals);
    if (schema) {
      errors.push(...checkSchemaNames(tree, schema), ...checkDirections(tree, schema));
      if (schema.patterns.length === 0)
        warnings.push("The schema lists no patterns: directions were not checked");
    }
    return { valid: errors.length === 0, readOnly: violations.length === 0, errors, warnings };
  } catch (error) {
    // A crash in the front end must never let a query through.
    const message = `The Cypher front end failed on this query: ${(error as Error).message}`;
    return { valid: false, readOnly: false, errors: [...errors, message], warnings };
  }
}

function lint(query: string, options: ValidateOptions, errors: string[], warnings: string[]): void {
  const allowed = options.parameters ?? [];
  const dbSchema: DbSchema = {
    defaultLanguage: options.cypherVersion ?? "CYPHER 5",
    parameters: allowed === "any" ? {} : Object.fromEntries(allowed.map((name) => [name, null])),
  };
  for (const diagnostic of lintCypher(query, dbSchema)) {
    const text = typeof diagnostic.message === "string" ? diagnostic.message : diagnostic.message.value;
    const message = located(query, diagnostic, text);
    const parameterProblem = /^Parameter \$\S+ is not defined\.$/.test(text);
    if (parameterProblem && allowed === "any") warnings.push(`${message} (to be supplied at run time)`);
    else if (diagnostic.severity === ERROR) errors.push(message);
    else warnings.push(message);
  }
}

function located(query: string, diagnostic: SyntaxDiagnostic, text: string): string {
  const { line, character } = diagnostic.range.start;
  const where = query.includes("\n")
    ? `line ${line + 1}, column ${character + 1}`
    : `column ${character + 1}`;
  return `${text} (${where})`;
}

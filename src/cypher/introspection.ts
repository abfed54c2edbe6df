import { lintCypher } from "./language-support.js";
import { type CypherNode, findRules, parseCypherTree, tokenText } from "./parse-tree.js";
import {
  checkReadOnly,
  READ_ONLY_DBMS_PROCEDURES,
  READ_ONLY_PROCEDURES,
  refusedCommands,
} from "./read-only.js";

/**
 * What the EXPLAIN plan alone gets wrong, for the read-only runner: Neo4j plans TERMINATE
 * TRANSACTIONS and procedures that change the server's state (db.stats.clear, db.resampleIndex...)
 * as reads ("r"), and every DBMS procedure as a schema write ("s"), the ones that only report
 * (dbms.components()) too. All are judged from the parse tree, the validator's rules.
 */

/** The front end crashed: nothing it could not read runs, as in the validator. */
const FRONT_END_FAILED = "the Cypher front end could not read this query";

/**
 * Why the query's SHOW or TERMINATE commands are refused (empty when it has none or only
 * read-only SHOW commands). The front end loads in seconds, so only a query whose text has
 * either word is parsed: every such command has it. The test has no word boundaries: Neo4j reads
 * `1TERMINATE` as 1 then TERMINATE.
 */
export function commandRefusals(query: string): string[] {
  return inEveryReading(query, (reading) => {
    if (!/SHOW|TERMINATE/i.test(reading)) return [];
    const tree = parsed(reading);
    return tree ? refusedCommands(tree) : [FRONT_END_FAILED];
  });
}

/**
 * Why the query's procedure calls are refused: each one neither on the read-only list
 * (READ_ONLY_PROCEDURES) nor among the `extra` names the user vouches for, named. Names compare
 * exactly, as Neo4j resolves them. Only a query whose text has CALL is parsed: every call has it,
 * word boundary or not (`LIMIT 1CALL db.stats.clear()`).
 */
export function procedureRefusals(query: string, extra: readonly string[] = []): string[] {
  const allowed = new Set([...READ_ONLY_PROCEDURES, ...extra]);
  return inEveryReading(query, (reading) => {
    if (!/CALL/i.test(reading)) return [];
    const tree = parsed(reading);
    if (!tree) return [FRONT_END_FAILED];
    return procedureNames(tree)
      .filter((name) => !allowed.has(name))
      .map(unlistedProcedure);
  });
}

/**
 * The refusals of `judge` over the query as written and, when it holds `\uXXXX` escapes, as Neo4j's
 * parser reads it (see withUnicodeEscapesRead), each named once.
 */
function inEveryReading(query: string, judge: (reading: string) => string[]): string[] {
  return [...new Set(readingsOf(query).flatMap(judge))];
}

function readingsOf(query: string): string[] {
  const read = withUnicodeEscapesRead(query);
  return read === query ? [query] : [query, read];
}

/**
 * The query with its `\uXXXX` escapes turned into their characters wherever they stand, as Java's
 * compiler reads them and as Neo4j's parser did (JavaCC's JAVA_UNICODE_ESCAPE: an escape in a
 * backticked name is read there too, neo4j/neo4j#12901), before it splits the text into tokens.
 * The front end here reads them inside strings only, so `\u0043ALL db.stats.clear()` would have
 * no CALL for it, and in `RETURN 'x\u0027 CALL db.stats.clear() //'` the call would be string text.
 * As in Java, an escape's backslash must not be escaped itself (an even run of backslashes before
 * it) and `\uuuu0043` is one escape. Checked on Neo4j 5.26.30 (test/neo4j/cypher-unicode-escapes.test.ts):
 * `RETURN 1 AS \u0078` names a column x, `WITH 1 AS a \u0043ALL db.info() ...` calls, and in
 * `WITH 'x\u0027 AS a CALL ... //'` the escaped quote ends the string; only a query's first word
 * escaped (`\u0043ALL db.labels()` alone) is a syntax error there.
 */
export function withUnicodeEscapesRead(query: string): string {
  if (!query.includes("\\")) return query;
  return query.replace(/(\\+)u+([0-9a-fA-F]{4})/g, (whole, slashes: string, hex: string) => {
    if (slashes.length % 2 === 0) return whole;
    return slashes.slice(1) + String.fromCharCode(Number.parseInt(hex, 16));
  });
}

/** How a user allows a plugin's read-only procedure (APOC's apoc.meta.schema...). */
export const ALLOW_PROCEDURE_HINT =
  "if it only reads, name it in the config's neo4j.readOnlyProcedures (kgrag cypher: --allow-procedure NAME)";

function unlistedProcedure(name: string): string {
  if (/^dbms\./i.test(name)) {
    return (
      `${name} is not one of the read-only DBMS procedures kgrag runs ` +
      `(${READ_ONLY_DBMS_PROCEDURES.join(", ")})`
    );
  }
  return (
    `procedure ${name} is not one of the read-only procedures kgrag runs ` +
    `(${READ_ONLY_PROCEDURES.join(", ")}); ${ALLOW_PROCEDURE_HINT}`
  );
}

/**
 * Undefined when a query Neo4j plans as "s" may run all the same: it calls DBMS procedures, all
 * of them on the read-only list (procedureRefusals has refused any other), and passes the
 * validator's read-only rules. Otherwise `planned` (the plan's word).
 */
export function schemaPlanRefusal(query: string, planned: string): string | undefined {
  for (const reading of readingsOf(query)) {
    const why = schemaPlanRefusalOf(reading, planned);
    if (why !== undefined) return why;
  }
  return undefined;
}

function schemaPlanRefusalOf(query: string, planned: string): string | undefined {
  const tree = parsed(query);
  if (!tree) return FRONT_END_FAILED;
  const dbms = procedureNames(tree).filter((name) => /^dbms\./i.test(name));
  const { violations, errors } = checkReadOnly(tree, { allowProcedures: READ_ONLY_PROCEDURES });
  if (dbms.length > 0 && violations.length === 0 && errors.length === 0) return undefined;
  return planned;
}

function procedureNames(tree: CypherNode): string[] {
  return findRules(tree, "procedureName").map(tokenText);
}

/**
 * Undefined when the front end cannot read the query: it crashed, or it found a syntax error,
 * after which its tree stops short (`LIMIT 1CALL db.stats.clear()` lexes as one token here, while
 * the server may read a CALL) and a clause the server runs could be missing from it.
 */
function parsed(query: string): CypherNode | undefined {
  try {
    if (hasSyntaxError(query)) return undefined;
    return parseCypherTree(query);
  } catch {
    return undefined;
  }
}

/**
 * A syntax error from Neo4j's own parser (semantic errors, such as a clause this front end does not
 * support, say nothing of what the server reads: `SHOW SETTINGS` is still judged from the tree).
 */
function hasSyntaxError(query: string): boolean {
  return lintCypher(query, { defaultLanguage: "CYPHER 5" }).some((diagnostic) => {
    const text = typeof diagnostic.message === "string" ? diagnostic.message : diagnostic.message.value;
    return /^Invalid input\b/.test(text);
  });
}

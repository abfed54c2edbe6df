import { type CypherNode, findRules, isRule, tokenText } from "./parse-tree.js";

/**
 * DBMS procedures that only report (the server's version and edition, the database's id, who is
 * connected). Neo4j plans every DBMS procedure as a schema write ("s"), these too; the others
 * (dbms.listConfig, dbms.routing.*, ...) are refused.
 */
export const READ_ONLY_DBMS_PROCEDURES: readonly string[] = [
  "dbms.components",
  "dbms.info",
  "dbms.showCurrentUser",
];

/** Built-in, read-only procedures a generated query may call. Everything else is refused. */
export const DEFAULT_ALLOWED_PROCEDURES: readonly string[] = [
  ...READ_ONLY_DBMS_PROCEDURES,
  "db.labels",
  "db.relationshipTypes",
  "db.propertyKeys",
  "db.schema.nodeTypeProperties",
  "db.schema.relTypeProperties",
  "db.schema.visualization",
  "db.index.vector.queryNodes",
  "db.index.vector.queryRelationships",
  "db.index.fulltext.queryNodes",
  "db.index.fulltext.queryRelationships",
];

/**
 * The procedures any query kgrag runs may call (run-cypher.ts: `kgrag cypher`, the server's and
 * MCP's Cypher, Text2Cypher's execution): the generated queries' ones and more introspection. An
 * allow list, because Neo4j's own mode is no guide: it declares db.stats.collect/clear/stop,
 * db.resampleIndex and db.prepareForReplanning READ although they change the server's state, and
 * plans them as reads.
 */
export const READ_ONLY_PROCEDURES: readonly string[] = [
  ...DEFAULT_ALLOWED_PROCEDURES,
  "db.index.fulltext.listAvailableAnalyzers",
  "db.info",
  "db.ping",
  "db.stats.status",
  // Wait for indexes to come online (cypher/schema/await-index.cypher): they change nothing.
  "db.awaitIndex",
  "db.awaitIndexes",
  "db.index.fulltext.awaitEventuallyConsistentIndexRefresh",
];

/**
 * Namespaced functions built into Neo4j. Functions without a namespace are always built in (Neo4j
 * requires user-defined functions to live in a namespace), so only namespaced ones need checking.
 */
const BUILT_IN_FUNCTION_NAMESPACES = [
  "date.",
  "datetime.",
  "localdatetime.",
  "localtime.",
  "time.",
  "duration.",
  "point.",
  "vector.similarity.",
];
const BUILT_IN_NAMESPACED_FUNCTIONS = new Set(["db.nameFromElementId"]);

/** Clauses that change data or read outside the graph, with the reason given to the user and the model. */
const REFUSED_CLAUSES: Record<string, string> = {
  createClause: "CREATE writes to the database",
  insertClause: "INSERT writes to the database",
  mergeClause: "MERGE writes to the database",
  setClause: "SET writes to the database",
  removeClause: "REMOVE writes to the database",
  deleteClause: "DELETE writes to the database",
  foreachClause: "FOREACH is an update clause",
  loadCSVClause: "LOAD CSV reads files and URLs",
  subqueryInTransactionsParameters: "CALL { } IN TRANSACTIONS runs its own write transactions",
  command: "schema and administration commands (indexes, constraints, databases, users) are not allowed",
  localDefinition: "DEFINE PROCEDURE/FUNCTION is not allowed",
};

/**
 * SHOW commands that list what the database holds or offers (the grammar's rule for each, as
 * language-support 2.0.0-next.20 parses them). SHOW SETTINGS, TRANSACTIONS, USERS, DATABASES...
 * are refused: they read the server's configuration and other users' work, not the graph.
 */
const READ_ONLY_SHOW_COMMANDS = new Set([
  "showProcedures",
  "showFunctions",
  "showIndexCommand",
  "showConstraintCommand",
]);
const READ_ONLY_SHOW_LIST = "SHOW PROCEDURES, FUNCTIONS, INDEXES and CONSTRAINTS";

/** Statement parts that are not writes but are not ours to accept either. */
const OTHER_REFUSALS: Record<string, string> = {
  useClause: "USE is not allowed: kgrag chooses the database",
  consoleCommand: "console commands (:param, :use, ...) are not Cypher",
};

export interface ReadOnlyPolicy {
  /** Procedures allowed besides DEFAULT_ALLOWED_PROCEDURES. */
  allowProcedures?: readonly string[];
}

export interface ReadOnlyFindings {
  /** Writes, file access, schema/admin commands and calls outside the allow list. */
  violations: string[];
  /** Other refused constructs (USE, EXPLAIN/PROFILE prefixes, console commands). */
  errors: string[];
}

/** Checks the parse tree: clause rules, procedure and function names, never the raw text. */
export function checkReadOnly(tree: CypherNode, policy: ReadOnlyPolicy = {}): ReadOnlyFindings {
  const violations = new Set<string>();
  const errors = new Set<string>();
  visit(tree, (node) => {
    const refusal = REFUSED_CLAUSES[node.name];
    if (refusal && isRule(node, node.name) && !isShowOrTerminate(node))
      violations.add(describeClause(node, refusal));
    const other = OTHER_REFUSALS[node.name];
    if (other && isRule(node, node.name)) errors.add(other);
  });
  for (const refusal of refusedCommands(tree)) violations.add(`Not allowed: ${refusal}`);
  for (const option of findRules(tree, "preparserOption")) {
    const keyword = tokenText(option).toUpperCase();
    if (keyword === "EXPLAIN" || keyword === "PROFILE") {
      errors.add(`${keyword} prefix is not allowed: kgrag runs EXPLAIN itself before executing`);
    }
  }
  const allowed = new Set([...DEFAULT_ALLOWED_PROCEDURES, ...(policy.allowProcedures ?? [])]);
  for (const call of findRules(tree, "procedureName")) {
    const name = tokenText(call);
    if (!allowed.has(name)) violations.add(procedureRefusal(name));
  }
  for (const fn of findRules(tree, "functionName")) {
    const name = tokenText(fn);
    if (!isAllowedFunction(name)) violations.add(functionRefusal(name));
  }
  return { violations: [...violations], errors: [...errors] };
}

/** A command node around SHOW or TERMINATE: refusedCommands judges those. */
function isShowOrTerminate(node: CypherNode): boolean {
  const child = node.children[0]?.name;
  return node.name === "command" && (child === "showCommand" || child === "terminateCommand");
}

/**
 * Why SHOW commands outside the read-only list and every TERMINATE are refused, alone or composed
 * after another command (SHOW TRANSACTIONS YIELD ... TERMINATE TRANSACTIONS ...). Neo4j plans TERMINATE as a
 * read ("r") and runs it in a READ transaction, so the plan alone would let it through.
 */
export function refusedCommands(tree: CypherNode): string[] {
  const refusals = new Set<string>();
  visit(tree, (node) => {
    if (isRule(node, "terminateCommand")) refusals.add("TERMINATE stops running transactions");
    if (!isRule(node, "showCommand") && !isRule(node, "composableShowCommandClauses")) return;
    const kind = node.children.find((child) => child.children.length > 0);
    if (kind && READ_ONLY_SHOW_COMMANDS.has(kind.name)) return;
    refusals.add(
      `${showCommandText(node)} is not among the read-only SHOW commands (${READ_ONLY_SHOW_LIST})`,
    );
  });
  return [...refusals];
}

/**
 * "SHOW SETTINGS", "SHOW CURRENT USER": the command's leading keywords. An empty optional rule is
 * a childless node too, named in camelCase (namesAndClauses): it ends the words, as YIELD does.
 */
function showCommandText(node: CypherNode): string {
  const words: string[] = [];
  for (const token of leaves(node)) {
    const keyword = /^[A-Za-z]+$/.test(token) && !/[a-z][A-Z]/.test(token);
    if (!keyword || /^(YIELD|WHERE)$/i.test(token) || words.length === 4) break;
    words.push(token);
  }
  return words.join(" ");
}

function leaves(node: CypherNode): string[] {
  return node.children.length === 0 ? [node.name] : node.children.flatMap(leaves);
}

function visit(node: CypherNode, onNode: (node: CypherNode) => void): void {
  onNode(node);
  for (const child of node.children) visit(child, onNode);
}

function describeClause(node: CypherNode, refusal: string): string {
  const detach = node.name === "deleteClause" && /^DETACH/i.test(tokenText(node));
  return `Not read-only: ${detach ? `DETACH ${refusal}` : refusal}`;
}

function isAllowedFunction(name: string): boolean {
  if (!name.includes(".")) return true;
  if (BUILT_IN_NAMESPACED_FUNCTIONS.has(name)) return true;
  const lower = name.toLowerCase();
  return BUILT_IN_FUNCTION_NAMESPACES.some((prefix) => lower.startsWith(prefix));
}

function procedureRefusal(name: string): string {
  if (/^apoc\./i.test(name))
    return `Not allowed: APOC procedure ${name} (apoc.load.* reads URLs and files, many write)`;
  return `Not allowed: procedure ${name} is not on the allow list (${DEFAULT_ALLOWED_PROCEDURES.join(", ")})`;
}

function functionRefusal(name: string): string {
  if (/^apoc\./i.test(name)) return `Not allowed: APOC function ${name}`;
  return `Not allowed: function ${name} is not a Neo4j built-in (plugin and user-defined functions are refused)`;
}

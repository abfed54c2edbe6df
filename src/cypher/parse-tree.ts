import { parseTree, type SimpleTree } from "./language-support.js";

/**
 * A node of Neo4j's own ANTLR parse tree, as the language-support package exposes it: rule nodes are
 * named after grammar rules (matchClause, nodePattern, ...) and leaves carry token text. Working on
 * the parse tree (not on the query text) is what lets a property named `created` or a string literal
 * 'DELETE' pass while a real CREATE or DELETE clause is refused.
 */
export interface CypherNode {
  name: string;
  children: CypherNode[];
}

/** The parse tree of every statement in `query` (syntax errors leave partial trees; the linter reports them). */
export function parseCypherTree(query: string): CypherNode {
  return normalise(parseTree(query));
}

function normalise(tree: SimpleTree): CypherNode {
  return { name: tree.name, children: (tree.children ?? []).map(normalise) };
}

/** Rule nodes always have children; a childless node is a token (or an empty optional rule). */
export function isRule(node: CypherNode, rule: string): boolean {
  return node.name === rule && node.children.length > 0;
}

/** Every rule node named `rule` under `node` (depth first, `node` itself included). */
export function findRules(node: CypherNode, rule: string): CypherNode[] {
  const found: CypherNode[] = [];
  const visit = (current: CypherNode) => {
    if (isRule(current, rule)) found.push(current);
    for (const child of current.children) visit(child);
  };
  visit(node);
  return found;
}

/** The first child rule named `rule`, if any. */
export function childRule(node: CypherNode, rule: string): CypherNode | undefined {
  return node.children.find((child) => isRule(child, rule));
}

/** The source text of a subtree, tokens joined without spaces (enough for names and keywords). */
export function tokenText(node: CypherNode): string {
  if (node.children.length === 0) return node.name;
  return node.children.map(tokenText).join("");
}

/** A symbolic name (label, type, property, variable) with its backticks removed. */
export function symbolicName(node: CypherNode): string {
  const text = tokenText(node);
  if (text.length >= 2 && text.startsWith("`") && text.endsWith("`"))
    return text.slice(1, -1).replaceAll("``", "`");
  return text;
}

/** The variable a pattern element or projection binds, if it names one. */
export function variableName(node: CypherNode): string | undefined {
  const variable = childRule(node, "variable");
  return variable ? symbolicName(variable) : undefined;
}

/** The top-level statements (a trailing semicolon does not make an empty one). */
export function statementsOf(tree: CypherNode): CypherNode[] {
  return tree.children.filter((child) => child.children.length > 0);
}

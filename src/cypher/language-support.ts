import { createRequire } from "node:module";
import type { DbSchema, SyntaxDiagnostic } from "@neo4j-cypher/language-support";

type LanguageSupport = typeof import("@neo4j-cypher/language-support");

let loaded: LanguageSupport | undefined;

/**
 * Neo4j's Cypher front end, loaded on first use: it takes seconds to load, and only the Cypher
 * commands need it. Loaded through `require`, because the ES module build of the version that
 * runs on Node 20 (2.0.0-next.20) imports its own files without extensions, which Node refuses.
 */
function languageSupport(): LanguageSupport {
  loaded ??= createRequire(import.meta.url)("@neo4j-cypher/language-support") as LanguageSupport;
  return loaded;
}

/** Syntax and semantic diagnostics of every statement in `query`. */
export function lintCypher(query: string, dbSchema: DbSchema): SyntaxDiagnostic[] {
  return languageSupport().lintCypherQuery(query, dbSchema);
}

/** A node of the parse tree: a grammar rule's name with its children, or a token's text. */
export interface SimpleTree {
  name: string;
  children: SimpleTree[];
}

/** The ANTLR parse tree of every statement in `query`, under one "topNode". */
export function parseTree(query: string): SimpleTree {
  const { parse, CypherParser } = languageSupport();
  const walk = (node: ParseNode): SimpleTree => ({
    name: nodeText(node, CypherParser.ruleNames),
    children: (node.children ?? []).map(walk),
  });
  return { name: "topNode", children: parse(query).map((statement) => walk(statement as ParseNode)) };
}

/** What the walk reads of an ANTLR node: rule contexts have a rule index, tokens a symbol. */
interface ParseNode {
  ruleIndex?: number;
  symbol?: { text: string | null };
  children?: ParseNode[] | null;
}

/** As ANTLR's Trees.getNodeText: the rule's name for a rule node, the token's text for a leaf. */
function nodeText(node: ParseNode, ruleNames: readonly string[]): string {
  if (node.ruleIndex !== undefined) return ruleNames[node.ruleIndex] ?? "";
  return node.symbol?.text ?? "";
}

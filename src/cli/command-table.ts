import { type Command, Help } from "commander";

/** One line of the top-level help: what `kgrag --help` lists for a command. */
export interface CommandSummary {
  name: string;
  /** Its options and arguments as the help shows them after the name. */
  usage: string;
  summary: string;
}

/**
 * The command table the top-level help is printed from, so that `kgrag --help` (or `kgrag` alone,
 * or a mistyped command) loads no command definition. It repeats what each command's definition
 * says; a unit test compares this help with the one built from every definition.
 */
export const COMMAND_TABLE: readonly CommandSummary[] = [
  {
    name: "index",
    usage: "[options] <paths...>",
    summary:
      "Index files and folders (.txt .md .pdf .docx .html .jsonl) into the workspace's knowledge graph",
  },
  {
    name: "status",
    usage: "[options]",
    summary: "List documents with their indexing status, and the graph totals",
  },
  {
    name: "query",
    usage: "[options] [question]",
    summary: "Answer a question from the indexed documents, citing the passages used",
  },
  {
    name: "delete",
    usage: "[options] [docIds...]",
    summary: "Delete documents; the graph is rebuilt from the remaining passages with no new extraction",
  },
  {
    name: "docs",
    usage: "",
    summary: "Edit indexed documents' metadata in place, with no extraction (meta)",
  },
  {
    name: "communities",
    usage: "[options]",
    summary: "Show the community hierarchy (Louvain, split until max_cluster_size) with report titles",
  },
  {
    name: "eval",
    usage: "[options]",
    summary:
      "Score retrieval against gold passages and answers against gold answers (answer contains; EM and F1 with an LLM), per query mode",
  },
  {
    name: "demo",
    usage: "[options]",
    summary: "Index the bundled sample corpus and answer its questions in every mode",
  },
  {
    name: "cypher",
    usage: "[options] [query]",
    summary: "Run a read-only Cypher query (or a cypher/explore/*.cypher file) against the Neo4j backend",
  },
  {
    name: "ask",
    usage: "[options] <question>",
    summary: "Answer a question with one validated, read-only Cypher query on the Neo4j backend",
  },
  {
    name: "chat",
    usage: "[options]",
    summary: "Chat with the Neo4j graph: questions answered by validated, read-only Cypher, shown each turn",
  },
  {
    name: "export",
    usage: "[options]",
    summary:
      "Write the knowledge graph as GraphML or GEXF (Gephi, yEd), JSON, or CSV files for neo4j-admin import",
  },
  {
    name: "migrate",
    usage: "[options]",
    summary: "Copy an embedded (SQLite) workspace into Neo4j: documents, graph, vectors, communities, cache",
  },
  {
    name: "config",
    usage: "[options]",
    summary: "Print the effective configuration, where each value comes from, secrets masked",
  },
  { name: "prompts", usage: "", summary: "The prompts kgrag sends, to adapt them" },
  {
    name: "serve",
    usage: "[options]",
    summary: "Serve the REST API, the Ollama-compatible chat API and the web app over HTTP",
  },
  {
    name: "mcp",
    usage: "[options]",
    summary:
      "Serve the workspace to agents over the Model Context Protocol (stdio): query, search_entities, get_entity, neighbourhood, communities, and on Neo4j cypher and ask",
  },
  {
    name: "entities",
    usage: "",
    summary:
      "List entities and curate the graph (add, merge, rename, edit, split, delete); edits survive re-indexing",
  },
  {
    name: "backup",
    usage: "[options]",
    summary:
      "Copy the SQLite workspace into one file (safe while an index runs): database, config file, uploads",
  },
  {
    name: "restore",
    usage: "[options] <file>",
    summary: "Restore a kgrag backup into a workspace folder (new or empty, or replaced with --force)",
  },
];

/**
 * Adds every command of the table as a stand-in that only names itself in the help (and lets
 * commander suggest the right name for a mistyped one). A named command is registered from its
 * real definition instead, so a stand-in never runs.
 */
export function addCommandSummaries(program: Command): void {
  const usageOf = new Map(COMMAND_TABLE.map((entry) => [entry.name, entry.usage]));
  for (const { name, summary } of COMMAND_TABLE) program.command(name).description(summary);
  // Commander's own term for what is not in the table (its implicit `help [command]`).
  const standard = new Help();
  program.configureHelp({
    subcommandTerm: (command) => {
      const usage = usageOf.get(command.name());
      return usage === undefined ? standard.subcommandTerm(command) : `${command.name()} ${usage}`.trimEnd();
    },
  });
}

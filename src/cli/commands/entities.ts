import type { Command } from "commander";
import type { OpenKgrag } from "../open.js";

export interface EntitiesCommonOptions {
  workspace?: string;
  json?: boolean;
  by?: string;
}

type Run = (action: typeof import("../actions/entities.js")["entityActions"]) => Promise<void>;

/** `kgrag entities ...`: list and curate entities; every edit is kept as a rule that re-indexing keeps. */
export function registerEntitiesCommand(program: Command, open: OpenKgrag): void {
  const entities = program
    .command("entities")
    .description(
      "List entities and curate the graph (add, merge, rename, edit, split, delete); edits survive re-indexing",
    );
  const common = (command: Command) =>
    command
      .option("-w, --workspace <dir>", "workspace folder")
      .option("--json", "print JSON")
      .option("--by <name>", "who makes the edit, for the history (default $KGRAG_USER or the OS user)");
  const run: (f: Run) => Promise<void> = async (f) =>
    f((await import("../actions/entities.js")).entityActions);

  common(entities.command("list").description("List entities with their aliases"))
    .argument("[filter]", "only names or aliases containing this text")
    .option("--duplicates", "pairs that might be one entity but were left apart, with their evidence")
    .action((filter: string | undefined, opts: EntitiesCommonOptions & { duplicates?: boolean }) =>
      run((a) => a.list(open, filter, opts)),
    );
  common(entities.command("show").description("One entity: aliases, description, history"))
    .argument("<entity>", "name, alias or key")
    .action((entity: string, opts: EntitiesCommonOptions) => run((a) => a.show(open, entity, opts)));
  common(
    entities
      .command("add")
      .description(
        "Make an entity by hand; kept through re-indexing and deletes, later mentions of its name fold into it",
      ),
  )
    .argument("<name>", "its name")
    .requiredOption("--description <text>", "what it is (embedded and searched like extracted descriptions)")
    .option("--type <type>", "entity type (default the type later extractions give, else unknown)")
    .action((name: string, opts: EntitiesCommonOptions & { description: string; type?: string }) =>
      run((a) => a.add(open, name, opts)),
    );
  common(
    entities
      .command("merge")
      .description('Merge entities: kgrag entities merge "Scrooge" "Ebenezer Scrooge"'),
  )
    .argument("<entities...>", "names, aliases or keys (two or more)")
    .option(
      "--into <entity>",
      "the entity that survives, one of those given (default the one with most relationships, then passages, then the longest name)",
    )
    .option("--name <name>", "the survivor's display name")
    .action((names: string[], opts: EntitiesCommonOptions & { into?: string; name?: string }) =>
      run((a) => a.merge(open, names, opts)),
    );
  common(entities.command("rename").description("Give an entity another display name"))
    .argument("<entity>")
    .argument("<name>")
    .action((entity: string, name: string, opts: EntitiesCommonOptions) =>
      run((a) => a.rename(open, entity, name, opts)),
    );
  common(entities.command("edit").description("Set an entity's type or description"))
    .argument("<entity>")
    .option("--type <type>", "entity type")
    .option("--description <text>", "description (replaces the extracted one)")
    .action((entity: string, opts: EntitiesCommonOptions & { type?: string; description?: string }) =>
      run((a) => a.edit(open, entity, opts)),
    );
  common(
    entities.command("split").description("Take an alias back out of an entity, as an entity of its own"),
  )
    .argument("<entity>")
    .argument("<alias>")
    .action((entity: string, alias: string, opts: EntitiesCommonOptions) =>
      run((a) => a.split(open, entity, alias, opts)),
    );
  common(entities.command("delete").description("Delete an entity and its relationships"))
    .argument("<entity>")
    .action((entity: string, opts: EntitiesCommonOptions) => run((a) => a.deleteEntity(open, entity, opts)));
  common(entities.command("unlink").description("Delete the relationship between two entities"))
    .argument("<a>")
    .argument("<b>")
    .action((a: string, b: string, opts: EntitiesCommonOptions) =>
      run((act) => act.deleteRelationship(open, a, b, opts)),
    );
  common(entities.command("link").description("Add a relationship by hand"))
    .argument("<a>")
    .argument("<b>")
    .requiredOption("--description <text>", "what relates them")
    .option("--keywords <list>", "comma-separated keywords")
    .option("--strength <n>", "1-10 (default 1)", Number)
    .action(
      (
        a: string,
        b: string,
        opts: EntitiesCommonOptions & { description: string; keywords?: string; strength?: number },
      ) => run((act) => act.addRelationship(open, a, b, opts)),
    );
  common(entities.command("history").description("What changed an entity (or the graph), with who and when"))
    .argument("[entity]")
    .action((entity: string | undefined, opts: EntitiesCommonOptions) =>
      run((a) => a.history(open, entity, opts)),
    );
}

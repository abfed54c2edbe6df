import type { Kgrag } from "../../kgrag.js";
import { isValidStrength, MAX_STRENGTH, MIN_STRENGTH } from "../../merge/strength.js";
import type { CandidatePair } from "../../resolve/candidates.js";
import { type EditOptions, type MergeOptions, UnknownEntityError } from "../../resolve/curation.js";
import type { EntityRecord, HistoryEntry } from "../../types.js";
import type { EntitiesCommonOptions } from "../commands/entities.js";
import type { OpenKgrag } from "../open.js";
import { formatTable, truncateToWidth } from "../output.js";
import { printJson } from "../print-json.js";
import { UsageError } from "../usage-error.js";

/** Opens the workspace, runs one curation step, and turns an unknown name into a usage error. */
async function withKgrag(open: OpenKgrag, opts: EntitiesCommonOptions, work: (kg: Kgrag) => Promise<void>) {
  const kgrag = await open(opts);
  try {
    await work(kgrag);
  } catch (error) {
    if (error instanceof UnknownEntityError) throw new UsageError(error.message);
    throw error;
  } finally {
    await kgrag.close();
  }
}

/** The library's options of an edit, out of the command's flags (which also hold --workspace, --json). */
function editor(opts: EntitiesCommonOptions): EditOptions {
  return opts.by === undefined ? {} : { by: opts.by };
}

function mergeOptions(opts: EntitiesCommonOptions & { into?: string; name?: string }): MergeOptions {
  return {
    ...editor(opts),
    ...(opts.into === undefined ? {} : { into: opts.into }),
    ...(opts.name === undefined ? {} : { name: opts.name }),
  };
}

function printEntity(entity: EntityRecord, opts: EntitiesCommonOptions): void {
  if (opts.json) {
    printJson(entity);
    return;
  }
  const aliases = entity.aliases?.length ? `\naliases: ${entity.aliases.join("; ")}` : "";
  // kg.entities returns descriptions readable already (and reading twice would join their lines).
  process.stdout.write(`${entity.name} (${entity.type}) [${entity.key}]${aliases}\n${entity.description}\n`);
}

function historyTable(entries: HistoryEntry[]): string {
  const rows = entries.map((e) => [e.at, e.kind, e.key.replace("\u001f", " — "), e.action, e.cause]);
  return formatTable(["at", "kind", "key", "action", "cause"], rows);
}

function duplicateRows(pairs: CandidatePair[]): (string | number)[][] {
  return pairs.map((p) => [
    p.names[0],
    p.names[1],
    p.decision,
    p.sharedNeighbours.length,
    p.sharedChunks,
    p.why,
  ]);
}

export const entityActions = {
  list: (
    open: OpenKgrag,
    filter: string | undefined,
    opts: EntitiesCommonOptions & { duplicates?: boolean },
  ) =>
    withKgrag(open, opts, async (kg) => {
      if (opts.duplicates) {
        const pairs = await kg.entities.duplicates();
        if (opts.json) return printJson({ duplicates: pairs });
        const headers = [
          "entity",
          "maybe the same as",
          "decision",
          "shared nbrs",
          "shared passages",
          "evidence",
        ];
        process.stdout.write(`${formatTable(headers, duplicateRows(pairs))}\n`);
        return;
      }
      const entities = await kg.entities.list(filter);
      if (opts.json) return printJson({ entities });
      const rows = entities.map((e) => [
        e.name,
        e.type,
        truncateToWidth((e.aliases ?? []).join("; "), 50),
        e.sourceChunkIds.length,
      ]);
      process.stdout.write(`${formatTable(["name", "type", "aliases", "passages"], rows)}\n`);
    }),
  show: (open: OpenKgrag, entity: string, opts: EntitiesCommonOptions) =>
    withKgrag(open, opts, async (kg) => {
      const record = await kg.entities.get(entity);
      const history = await kg.entities.history(record.key);
      if (opts.json) return printJson({ entity: record, history });
      printEntity(record, opts);
      process.stdout.write(`passages: ${record.sourceChunkIds.length}\nhistory:\n${historyTable(history)}\n`);
    }),
  add: (
    open: OpenKgrag,
    name: string,
    opts: EntitiesCommonOptions & { description: string; type?: string },
  ) =>
    withKgrag(open, opts, async (kg) => {
      const input = { name, description: opts.description, ...(opts.type ? { type: opts.type } : {}) };
      printEntity(await kg.entities.create(input, editor(opts)), opts);
    }),
  merge: (open: OpenKgrag, names: string[], opts: EntitiesCommonOptions & { into?: string; name?: string }) =>
    withKgrag(open, opts, async (kg) => {
      if (names.length < 2) throw new UsageError("kgrag entities merge needs two or more entities.");
      printEntity(await kg.entities.merge(names, mergeOptions(opts)), opts);
    }),
  rename: (open: OpenKgrag, entity: string, name: string, opts: EntitiesCommonOptions) =>
    withKgrag(open, opts, async (kg) =>
      printEntity(await kg.entities.rename(entity, name, editor(opts)), opts),
    ),
  edit: (
    open: OpenKgrag,
    entity: string,
    opts: EntitiesCommonOptions & { type?: string; description?: string },
  ) =>
    withKgrag(open, opts, async (kg) => {
      if (!opts.type && opts.description === undefined) {
        throw new UsageError("kgrag entities edit needs --type or --description.");
      }
      const fields = {
        ...(opts.type ? { type: opts.type } : {}),
        ...(opts.description !== undefined ? { description: opts.description } : {}),
      };
      printEntity(await kg.entities.edit(entity, fields, editor(opts)), opts);
    }),
  split: (open: OpenKgrag, entity: string, alias: string, opts: EntitiesCommonOptions) =>
    withKgrag(open, opts, async (kg) =>
      printEntity(await kg.entities.split(entity, alias, editor(opts)), opts),
    ),
  deleteEntity: (open: OpenKgrag, entity: string, opts: EntitiesCommonOptions) =>
    withKgrag(open, opts, async (kg) => {
      await kg.entities.deleteEntity(entity, editor(opts));
      if (opts.json) printJson({ deleted: entity });
      else process.stdout.write(`Deleted "${entity}".\n`);
    }),
  deleteRelationship: (open: OpenKgrag, a: string, b: string, opts: EntitiesCommonOptions) =>
    withKgrag(open, opts, async (kg) => {
      await kg.entities.deleteRelationship(a, b, editor(opts));
      if (opts.json) printJson({ deleted: [a, b] });
      else process.stdout.write(`Deleted the relationship between "${a}" and "${b}".\n`);
    }),
  addRelationship: async (
    open: OpenKgrag,
    a: string,
    b: string,
    opts: EntitiesCommonOptions & { description: string; keywords?: string; strength?: number },
  ) => {
    // Before the workspace is opened: a refused value should cost nothing.
    if (opts.strength !== undefined && !isValidStrength(opts.strength)) {
      throw new UsageError(`--strength must be a number from ${MIN_STRENGTH} to ${MAX_STRENGTH}.`);
    }
    return withKgrag(open, opts, async (kg) => {
      const keywords =
        opts.keywords
          ?.split(",")
          .map((k) => k.trim())
          .filter(Boolean) ?? [];
      const record = await kg.entities.addRelationship(
        a,
        b,
        {
          description: opts.description,
          keywords,
          ...(opts.strength !== undefined ? { strength: opts.strength } : {}),
        },
        editor(opts),
      );
      if (opts.json) printJson(record);
      else process.stdout.write(`Linked "${a}" and "${b}".\n`);
    });
  },
  history: (open: OpenKgrag, entity: string | undefined, opts: EntitiesCommonOptions) =>
    withKgrag(open, opts, async (kg) => {
      const entries = await kg.entities.history(entity);
      if (opts.json) return printJson({ history: entries });
      process.stdout.write(`${historyTable(entries)}\n`);
    }),
};

import type { CommunityRecord } from "../../types.js";
import type { CommunitiesOptions } from "../commands/communities.js";
import type { OpenKgrag } from "../open.js";
import { formatTable } from "../output.js";
import { printJson } from "../print-json.js";
import { UsageError } from "../usage-error.js";

export interface CommunityRow {
  id: string;
  level: number;
  parent: string | null;
  children: string[];
  size: number;
  title: string | null;
  rating: number | null;
}

/** `kgrag communities`: the hierarchy as a table or JSON, rebuilt first with --rebuild. */
export async function communitiesAction(open: OpenKgrag, opts: CommunitiesOptions): Promise<void> {
  if (opts.fresh && !opts.rebuild) throw new UsageError("--fresh goes with --rebuild");
  const kgrag = await open(opts);
  try {
    if (opts.rebuild) await kgrag.rebuildCommunities({ fresh: opts.fresh === true });
    const rows = communityRows(await kgrag.services.store.listCommunities(), opts.level);
    if (opts.json) printJson({ communities: rows });
    else process.stdout.write(describeRows(rows, opts.level));
  } finally {
    await kgrag.close();
  }
}

/** Rows in storage order (level, then largest first), optionally of one level. */
export function communityRows(communities: readonly CommunityRecord[], level?: number): CommunityRow[] {
  return communities
    .filter((c) => level === undefined || c.level === level)
    .map((c) => ({
      id: c.id,
      level: c.level,
      parent: c.parentId,
      children: c.childIds,
      size: c.entityKeys.length,
      title: c.report?.title ?? null,
      rating: c.report?.rating ?? null,
    }));
}

function describeRows(rows: CommunityRow[], level: number | undefined): string {
  if (rows.length === 0) {
    return level === undefined
      ? "No communities yet: run `kgrag index`, or `kgrag communities --rebuild` to build them now.\n"
      : `No communities at level ${level}.\n`;
  }
  const table = formatTable(
    ["id", "level", "parent", "children", "size", "rating", "title"],
    rows.map((r) => [
      r.id,
      r.level,
      r.parent ?? "",
      r.children.length,
      r.size,
      r.rating ?? "",
      clip(r.title ?? "(no report)", 70),
    ]),
  );
  const levels = new Set(rows.map((r) => r.level)).size;
  return `${table}\n\n${rows.length} communities on ${levels} level(s).\n`;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

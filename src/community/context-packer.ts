import type { TiktokenEncoding } from "js-tiktoken";
import { DESCRIPTION_SEPARATOR } from "../merge/keys.js";
import type { CommunityReport } from "../types.js";
import { counted } from "../util/counted.js";
import { countTokens, tokenBound, tokenFloor, truncateToTokens } from "../util/tokens.js";
import { stripLocalCitations } from "./citations.js";

export interface ContextEntity {
  /** Citation id inside this context, e.g. "E:3". */
  id: string;
  key: string;
  name: string;
  type: string;
  description: string;
  degree: number;
}

export interface ContextRelationship {
  /** Citation id inside this context, e.g. "R:7". */
  id: string;
  key: string;
  sourceKey: string;
  targetKey: string;
  description: string;
  weight: number;
  combinedDegree: number;
}

export interface ChildReport {
  id: string;
  entityKeys: readonly string[];
  report: CommunityReport;
}

/** A relationship with what the context needs to show it, before it gets a citation id. */
export interface CandidateRelationship extends Omit<ContextRelationship, "id"> {}
export interface CandidateEntity extends Omit<ContextEntity, "id"> {}

const HEADERS = {
  reports: "-----Sub-community reports-----\n",
  entities: "\n-----Entities-----\nid|name|type|description|degree\n",
  relationships: "\n-----Relationships-----\nid|source|target|description|weight\n",
};

/**
 * Fills one report context up to a token budget. Items are offered in priority order; one that does
 * not fit is skipped but later, smaller ones are still tried, so nothing is left out while there is
 * room for it. Token counts are memoised because the substitution search packs several times.
 *
 * Counting is put off while the budget is surely not in question: a line is taken uncounted when
 * even its byte length fits (every token is at least one byte), and the waiting lines are counted
 * only when a later item's fit is in doubt; a line whose token floor does not fit is turned away
 * uncounted. Either way the decisions are those of counting every line.
 */
export class ContextPacker {
  readonly entities: ContextEntity[] = [];
  readonly relationships: ContextRelationship[] = [];
  readonly childReports: ChildReport[] = [];
  private readonly reportBlocks: string[] = [];
  private readonly entityLines: string[] = [];
  private readonly relationshipLines: string[] = [];
  private readonly entityByKey = new Map<string, ContextEntity>();
  /** The budget less everything counted: more than is left while lines wait uncounted. */
  private remaining: number;
  private readonly uncounted: UncountedRest[] = [];
  /** The waiting lines' ceilings (bytes): at least their tokens. */
  private uncountedBytes = 0;

  constructor(
    budget: number,
    private readonly tokens: TokenCounter,
  ) {
    this.remaining = budget - tokens.count(HEADERS.entities) - tokens.count(HEADERS.relationships);
  }

  addChildReport(child: ChildReport): boolean {
    const header = this.childReports.length === 0 ? HEADERS.reports : "";
    const block = childReportBlock(child);
    if (!this.spend(this.tokens.count(header) + this.tokens.count(block))) return false;
    this.childReports.push(child);
    this.reportBlocks.push(block);
    return true;
  }

  /**
   * Adds the relationship together with whichever of its endpoints are not in yet. Most candidates
   * of a large community do not fit: their floor turns them away before their lines are written.
   */
  addRelationship(rel: CandidateRelationship, entityOf: (key: string) => CandidateEntity): boolean {
    const newEndpoints = [rel.sourceKey, rel.targetKey].filter((key) => !this.entityByKey.has(key));
    const entityIds = newEndpoints.map((_, i) => `E:${this.entities.length + 1 + i}`);
    const relId = `R:${this.relationships.length + 1}`;
    const nameOf = (key: string) => this.entityName(key) ?? entityOf(key).name;
    let floor = this.tokens.lineFloor(relId, RELATIONSHIP_LINE, rel.key, () => [
      nameOf(rel.sourceKey),
      nameOf(rel.targetKey),
      rel.description,
    ]);
    for (const [i, key] of newEndpoints.entries()) {
      floor += this.tokens.lineFloor(entityIds[i] as string, ENTITY_LINE, key, () =>
        entityCells(entityOf(key)),
      );
    }
    if (floor > this.remaining) return false;
    const lines: UncountedRest[] = [
      {
        kind: RELATIONSHIP_LINE,
        key: rel.key,
        rest: relationshipRest(rel, nameOf(rel.sourceKey), nameOf(rel.targetKey), this.tokens),
      },
      ...newEndpoints.map((key) => ({
        kind: ENTITY_LINE,
        key,
        rest: entityRest(entityOf(key), this.tokens),
      })),
    ];
    const ids = [relId, ...entityIds];
    if (!this.spendLines(ids, lines)) return false;
    for (const [i, key] of newEndpoints.entries()) {
      this.acceptEntity(entityOf(key), `${entityIds[i]}${lines[i + 1]?.rest}`);
    }
    this.relationships.push({ ...rel, id: relId });
    this.relationshipLines.push(`${relId}${lines[0]?.rest}`);
    return true;
  }

  addEntity(entity: CandidateEntity): boolean {
    if (this.entityByKey.has(entity.key)) return true;
    const id = `E:${this.entities.length + 1}`;
    if (this.tokens.lineFloor(id, ENTITY_LINE, entity.key, () => entityCells(entity)) > this.remaining) {
      return false;
    }
    const rest = entityRest(entity, this.tokens);
    if (!this.spendLines([id], [{ kind: ENTITY_LINE, key: entity.key, rest }])) return false;
    this.acceptEntity(entity, `${id}${rest}`);
    return true;
  }

  hasEntity(key: string): boolean {
    return this.entityByKey.has(key);
  }

  render(): string {
    const sections: string[] = [];
    if (this.reportBlocks.length) sections.push(HEADERS.reports + this.reportBlocks.join(""));
    sections.push(HEADERS.entities + this.entityLines.join(""));
    sections.push(HEADERS.relationships + this.relationshipLines.join(""));
    return sections.join("").trimStart();
  }

  private acceptEntity(entity: CandidateEntity, line: string): void {
    const accepted = { ...entity, id: `E:${this.entities.length + 1}` };
    this.entityByKey.set(entity.key, accepted);
    this.entities.push(accepted);
    this.entityLines.push(line);
  }

  private entityName(key: string): string | undefined {
    return this.entityByKey.get(key)?.name;
  }

  /** Lines of one item (each its id and rest): taken uncounted when their bytes surely fit. */
  private spendLines(ids: string[], lines: UncountedRest[]): boolean {
    let idTokens = 0;
    for (const id of ids) idTokens += this.tokens.count(id);
    let bytes = 0;
    for (const line of lines) bytes += this.tokens.restCeiling(line.rest);
    if (idTokens + bytes <= this.remaining - this.uncountedBytes) {
      this.remaining -= idTokens;
      this.uncounted.push(...lines);
      this.uncountedBytes += bytes;
      return true;
    }
    let cost = idTokens;
    for (const line of lines) cost += this.tokens.restCount(line.kind, line.key, line.rest);
    return this.spend(cost);
  }

  /** Spends counted tokens, counting the waiting lines first when the fit is in doubt. */
  private spend(cost: number): boolean {
    if (cost > this.remaining - this.uncountedBytes) this.countWaiting();
    if (cost > this.remaining) return false;
    this.remaining -= cost;
    return true;
  }

  private countWaiting(): void {
    for (const line of this.uncounted)
      this.remaining -= this.tokens.restCount(line.kind, line.key, line.rest);
    this.uncounted.length = 0;
    this.uncountedBytes = 0;
  }
}

/** A table line after its id, taken into a context before its tokens were counted. */
interface UncountedRest {
  kind: LineKind;
  key: string;
  rest: string;
}

/** What a table line describes: the memo of line costs is kept apart per kind. */
export type LineKind = typeof ENTITY_LINE | typeof RELATIONSHIP_LINE;
const ENTITY_LINE = "entity" as const;
const RELATIONSHIP_LINE = "relationship" as const;

/**
 * Counts tokens once per distinct text and caps over-long descriptions (also once per text). One
 * counter may serve every community of a run: a table line is its citation id ("R:12") followed by
 * a rest that depends only on the entity or relationship it shows, and the tokenizers' pre-split
 * always cuts between the id's last digit and the "|" after it, so a line costs the id's tokens plus
 * the rest's, and each rest is counted once per run, whatever id it gets in each community.
 */
export class TokenCounter {
  private readonly counts = new Map<string, number>();
  private readonly capped = new Map<string, string>();
  private readonly restCounts: Record<LineKind, Map<string, number>> = {
    entity: new Map(),
    relationship: new Map(),
  };
  private readonly restFloors: Record<LineKind, Map<string, number>> = {
    entity: new Map(),
    relationship: new Map(),
  };

  constructor(
    readonly encoding: TiktokenEncoding,
    /** No single description may eat the whole budget. */
    readonly maxDescriptionTokens: number,
  ) {}

  count(text: string): number {
    let n = this.counts.get(text);
    if (n === undefined) {
      n = countTokens(text, this.encoding);
      this.counts.set(text, n);
    }
    return n;
  }

  /**
   * Tokens of a line's rest (the line after its id), which is the same whenever `key` is shown:
   * counted once per run. A line costs its id's count plus this.
   */
  restCount(kind: LineKind, key: string, rest: string): number {
    const memo = this.restCounts[kind];
    let n = memo.get(key);
    if (n === undefined) {
      n = countTokens(rest, this.encoding);
      memo.set(key, n);
    }
    return n;
  }

  /** At least the rest's tokens, without counting (tokenBound: its UTF-8 bytes). */
  restCeiling(rest: string): number {
    return tokenBound(rest);
  }

  /**
   * At most the line's tokens (the id's count plus restCount): the id's count plus a floor on the rest's tokens taken
   * from the texts of its cells (tokenFloor), or the rest's count once it is known.
   */
  lineFloor(id: string, kind: LineKind, key: string, cells: () => string[]): number {
    const rest =
      this.restCounts[kind].get(key) ?? this.restFloors[kind].get(key) ?? this.cellsFloor(kind, key, cells());
    return this.count(id) + rest;
  }

  private cellsFloor(kind: LineKind, key: string, cells: string[]): number {
    let floor = 0;
    for (const text of cells) floor += this.cellFloor(text);
    this.restFloors[kind].set(key, floor);
    return floor;
  }

  /**
   * A floor on the tokens of cell(text) or of its capped form: a text that may be capped counts
   * nothing; otherwise the separators cell() removes each took one letter run ("SEP") away.
   */
  private cellFloor(text: string): number {
    if (text.length * 3 > this.maxDescriptionTokens) return 0;
    let separators = 0;
    for (
      let at = text.indexOf(DESCRIPTION_SEPARATOR);
      at >= 0;
      at = text.indexOf(DESCRIPTION_SEPARATOR, at + 1)
    ) {
      separators += 1;
    }
    return tokenFloor(text) - separators;
  }

  /**
   * A description as one table cell, capped. Only capped ones are memoised (the others cost a
   * string replace), so a counter shared by a whole run does not hold every description twice.
   */
  description(text: string): string {
    const hit = this.capped.get(text);
    if (hit !== undefined) return hit;
    const out = cell(text);
    if (out.length * 3 <= this.maxDescriptionTokens) return out;
    const capped = this.cap(out);
    this.capped.set(text, capped);
    return capped;
  }

  private cap(text: string): string {
    // Descriptions can run to many thousand tokens; a token seldom spans more than ten characters,
    // so encoding a prefix of that length is enough and much cheaper.
    const prefix = text.slice(0, this.maxDescriptionTokens * 10);
    return truncateToTokens(prefix, this.maxDescriptionTokens, this.encoding);
  }
}

/** The texts of an entity's table line (lineFloor's cells). */
function entityCells(entity: CandidateEntity): string[] {
  return [entity.name, entity.type, entity.description];
}

/** An entity's table line after its id: the same for the entity in every community of a run. */
function entityRest(entity: CandidateEntity, tokens: TokenCounter): string {
  const description = tokens.description(entity.description);
  return `|${cell(entity.name)}|${cell(entity.type)}|${description}|${entity.degree}\n`;
}

/** A relationship's table line after its id. */
function relationshipRest(
  rel: CandidateRelationship,
  sourceName: string,
  targetName: string,
  tokens: TokenCounter,
): string {
  const description = tokens.description(rel.description);
  return `|${cell(sourceName)}|${cell(targetName)}|${description}|${rel.weight}\n`;
}

function childReportBlock(child: ChildReport): string {
  const { report } = child;
  const findings = report.findings.map((f) => `- ${clean(f.summary)}: ${clean(f.explanation)}\n`).join("");
  const size = counted(child.entityKeys.length, "entity", "entities");
  return `[C:${child.id}] (${size}) ${clean(report.title)}\n${clean(report.summary)}\n${findings}\n`;
}

/** One table cell: fragments joined readably, on one line, without the column separator. */
function cell(text: string): string {
  return text.split(DESCRIPTION_SEPARATOR).join("; ").replace(/\s+/g, " ").replace(/\|/g, "/").trim();
}

/** Child reports cite ids of their own context, which would be wrong in the parent's. */
function clean(text: string): string {
  return stripLocalCitations(text).replace(/\s+/g, " ").trim();
}

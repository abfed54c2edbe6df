import type { TiktokenEncoding } from "js-tiktoken";
import { DESCRIPTION_SEPARATOR } from "../merge/keys.js";
import type { CommunityReport } from "../types.js";
import { countTokens, truncateToTokens } from "../util/tokens.js";
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
 */
export class ContextPacker {
  readonly entities: ContextEntity[] = [];
  readonly relationships: ContextRelationship[] = [];
  readonly childReports: ChildReport[] = [];
  private readonly reportBlocks: string[] = [];
  private readonly entityLines: string[] = [];
  private readonly relationshipLines: string[] = [];
  private readonly entityByKey = new Map<string, ContextEntity>();
  private remaining: number;

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
   * of a large community do not fit: their cost comes from the counter's memo, and their lines are
   * only written out when they are taken.
   */
  addRelationship(rel: CandidateRelationship, entityOf: (key: string) => CandidateEntity): boolean {
    const newEndpoints = [rel.sourceKey, rel.targetKey].filter((key) => !this.entityByKey.has(key));
    const entityIds = newEndpoints.map((_, i) => `E:${this.entities.length + 1 + i}`);
    const relId = `R:${this.relationships.length + 1}`;
    const nameOf = (key: string) => this.entityName(key) ?? entityOf(key).name;
    const relRest = () => relationshipRest(rel, nameOf(rel.sourceKey), nameOf(rel.targetKey), this.tokens);
    let cost = this.tokens.lineCost(relId, RELATIONSHIP_LINE, rel.key, relRest);
    for (const [i, key] of newEndpoints.entries()) {
      cost += this.tokens.lineCost(entityIds[i] as string, ENTITY_LINE, key, () =>
        entityRest(entityOf(key), this.tokens),
      );
    }
    if (!this.spend(cost)) return false;
    for (const [i, key] of newEndpoints.entries()) {
      const entity = entityOf(key);
      this.acceptEntity(entity, `${entityIds[i]}${entityRest(entity, this.tokens)}`);
    }
    this.relationships.push({ ...rel, id: relId });
    this.relationshipLines.push(`${relId}${relRest()}`);
    return true;
  }

  addEntity(entity: CandidateEntity): boolean {
    if (this.entityByKey.has(entity.key)) return true;
    const id = `E:${this.entities.length + 1}`;
    const rest = () => entityRest(entity, this.tokens);
    if (!this.spend(this.tokens.lineCost(id, ENTITY_LINE, entity.key, rest))) return false;
    this.acceptEntity(entity, `${id}${rest()}`);
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

  private spend(cost: number): boolean {
    if (cost > this.remaining) return false;
    this.remaining -= cost;
    return true;
  }
}

/** What a table line describes: the memo of line costs is kept apart per kind. */
export type LineKind = typeof ENTITY_LINE | typeof RELATIONSHIP_LINE;
const ENTITY_LINE = "entity";
const RELATIONSHIP_LINE = "relationship";

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
   * Tokens of the line `id + rest()`, where the rest is the same whenever `key` is shown: the id's
   * count plus the rest's, which is memoised by key (the rest is only built the first time).
   */
  lineCost(id: string, kind: LineKind, key: string, rest: () => string): number {
    const memo = this.restCounts[kind];
    let n = memo.get(key);
    if (n === undefined) {
      n = countTokens(rest(), this.encoding);
      memo.set(key, n);
    }
    return this.count(id) + n;
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
  return `[C:${child.id}] (${child.entityKeys.length} entities) ${clean(report.title)}\n${clean(report.summary)}\n${findings}\n`;
}

/** One table cell: fragments joined readably, on one line, without the column separator. */
function cell(text: string): string {
  return text.split(DESCRIPTION_SEPARATOR).join("; ").replace(/\s+/g, " ").replace(/\|/g, "/").trim();
}

/** Child reports cite ids of their own context, which would be wrong in the parent's. */
function clean(text: string): string {
  return stripLocalCitations(text).replace(/\s+/g, " ").trim();
}

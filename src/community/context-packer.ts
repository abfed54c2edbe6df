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

  /** Adds the relationship together with whichever of its endpoints are not in yet. */
  addRelationship(rel: CandidateRelationship, entityOf: (key: string) => CandidateEntity): boolean {
    const newEndpoints = [rel.sourceKey, rel.targetKey].filter((key) => !this.entityByKey.has(key));
    const entityLines = newEndpoints.map((key, i) =>
      entityLine(`E:${this.entities.length + 1 + i}`, entityOf(key), this.tokens),
    );
    const relId = `R:${this.relationships.length + 1}`;
    const nameOf = (key: string) => this.entityName(key) ?? entityOf(key).name;
    const relLine = relationshipLine(relId, rel, nameOf(rel.sourceKey), nameOf(rel.targetKey), this.tokens);
    const cost = [...entityLines, relLine].reduce((sum, line) => sum + this.tokens.count(line), 0);
    if (!this.spend(cost)) return false;
    for (const [i, key] of newEndpoints.entries()) this.acceptEntity(entityOf(key), entityLines[i] as string);
    this.relationships.push({ ...rel, id: relId });
    this.relationshipLines.push(relLine);
    return true;
  }

  addEntity(entity: CandidateEntity): boolean {
    if (this.entityByKey.has(entity.key)) return true;
    const line = entityLine(`E:${this.entities.length + 1}`, entity, this.tokens);
    if (!this.spend(this.tokens.count(line))) return false;
    this.acceptEntity(entity, line);
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

/** Counts tokens once per distinct text and caps over-long descriptions (also once per text). */
export class TokenCounter {
  private readonly counts = new Map<string, number>();
  private readonly capped = new Map<string, string>();

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

  /** A description as one table cell, capped; hub entities recur in many lines, so it is memoised. */
  description(text: string): string {
    let out = this.capped.get(text);
    if (out === undefined) {
      out = this.cap(cell(text));
      this.capped.set(text, out);
    }
    return out;
  }

  private cap(text: string): string {
    // A token rarely spans less than a third of a character, so short texts skip the encoder.
    if (text.length * 3 <= this.maxDescriptionTokens) return text;
    // Descriptions can run to many thousand tokens; a token seldom spans more than ten characters,
    // so encoding a prefix of that length is enough and much cheaper.
    const prefix = text.slice(0, this.maxDescriptionTokens * 10);
    return truncateToTokens(prefix, this.maxDescriptionTokens, this.encoding);
  }
}

function entityLine(id: string, entity: CandidateEntity, tokens: TokenCounter): string {
  const description = tokens.description(entity.description);
  return `${id}|${cell(entity.name)}|${cell(entity.type)}|${description}|${entity.degree}\n`;
}

function relationshipLine(
  id: string,
  rel: CandidateRelationship,
  sourceName: string,
  targetName: string,
  tokens: TokenCounter,
): string {
  const description = tokens.description(rel.description);
  return `${id}|${cell(sourceName)}|${cell(targetName)}|${description}|${rel.weight}\n`;
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

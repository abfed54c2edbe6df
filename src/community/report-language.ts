import { detectScript } from "../nlp/script.js";
import { counted } from "../util/counted.js";
import type { ReportContext } from "./report-context.js";

/** The language an offline report's fixed phrases are written in. */
export type ReportLanguage = "en" | "zh";

/**
 * Chinese when most of the community's entities are named and described in Chinese, so a report
 * on Chinese text does not read "A community of 13 entities centred on 青岚科技…".
 */
export function reportLanguage(context: Pick<ReportContext, "entities" | "members">): ReportLanguage {
  const texts = context.entities.length
    ? context.entities.map((e) => `${e.name} ${e.description}`)
    : context.members.map((m) => m.name);
  const chinese = texts.filter((text) => detectScript(text) === "zh").length;
  return chinese * 2 > texts.length ? "zh" : "en";
}

/** The fixed wording of offline reports and of every report's markdown layout, per language. */
export interface ReportPhrases {
  /** "A, B and C" / "A、B和C". */
  joinNames(names: string[]): string;
  /** A relationship's heading: "A and B" / "A与B". */
  pair(source: string, target: string): string;
  /** The summary's opening sentence. */
  opening(size: number, central: string[]): string;
  ratingExplanation(size: number): string;
  /** Stands for a relationship without a description. */
  related: string;
  untitled(communityId: string): string;
  extractiveNote: string;
  rating(rating: string, explanation: string): string;
  findingsHeading: string;
}

const entityCount = (count: number) => counted(count, "entity", "entities");

const ENGLISH: ReportPhrases = {
  joinNames: (names) =>
    names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`,
  pair: (source, target) => `${source} and ${target}`,
  opening: (size, central) =>
    `A community of ${entityCount(size)}${central.length ? ` centred on ${ENGLISH.joinNames(central)}` : ""}.`,
  ratingExplanation: (size) =>
    `Extractive rating from the community's size (${entityCount(size)}); no model judged its importance.`,
  related: "Related.",
  untitled: (communityId) => `Community ${communityId}`,
  extractiveNote: "_Extractive report (offline, written without an LLM)._",
  rating: (rating, explanation) => `**Rating:** ${rating}/10. ${explanation}`.trim(),
  findingsHeading: "## Findings",
};

const CHINESE: ReportPhrases = {
  joinNames: (names) =>
    names.length <= 1 ? names.join("") : `${names.slice(0, -1).join("、")}和${names.at(-1)}`,
  pair: (source, target) => `${source}与${target}`,
  opening: (size, central) =>
    `由 ${size} 个实体组成的社区${central.length ? `，以${CHINESE.joinNames(central)}为中心` : ""}。`,
  ratingExplanation: (size) => `抽取式评分，依据社区规模（${size} 个实体）；没有模型判断其重要性。`,
  related: "相关。",
  untitled: (communityId) => `社区 ${communityId}`,
  extractiveNote: "_抽取式报告（离线生成，未使用 LLM）。_",
  rating: (rating, explanation) => `**评分：** ${rating}/10。${explanation}`.trim(),
  findingsHeading: "## 要点",
};

export function reportPhrases(language: ReportLanguage): ReportPhrases {
  return language === "zh" ? CHINESE : ENGLISH;
}

import { z } from "zod";
import type { CommunityFinding } from "../types.js";

/** The report shape asked of the model (strict, for the json_schema response format). */
const StrictReportSchema = z.object({
  title: z.string(),
  summary: z.string(),
  rating: z.number().min(0).max(10),
  rating_explanation: z.string(),
  findings: z.array(z.object({ summary: z.string(), explanation: z.string() })),
});

export const REPORT_JSON_SCHEMA = { name: "community_report", schema: z.toJSONSchema(StrictReportSchema) };

/** What a report's prose consists of, before it is rendered and labelled. */
export interface ReportFields {
  title: string;
  summary: string;
  rating: number;
  ratingExplanation: string;
  findings: CommunityFinding[];
}

const text = z.preprocess((v) => (typeof v === "number" ? String(v) : v), z.string().trim());

/** Models send "7", "7/10" or 7.5; anything numeric is accepted and clamped to 0-10. */
const rating = z.preprocess((v) => {
  const n = typeof v === "string" ? Number.parseFloat(v) : v;
  return typeof n === "number" && Number.isFinite(n) ? Math.min(10, Math.max(0, n)) : v;
}, z.number());

/** A finding given as a bare string is taken as its summary. */
const finding = z.preprocess(
  (v) => (typeof v === "string" ? { summary: v, explanation: "" } : v),
  z.object({ summary: text, explanation: text.default("") }),
);

const TolerantReportSchema = z.object({
  title: text.pipe(z.string().min(1, "title is empty")),
  summary: text.default(""),
  rating: rating.default(0),
  rating_explanation: text.optional(),
  ratingExplanation: text.optional(),
  findings: z.array(finding).default([]),
});

/** Validates a parsed reply; throws with zod's message when the shape is unusable. */
export function readReportFields(value: unknown): ReportFields {
  const parsed = TolerantReportSchema.parse(value);
  return {
    title: parsed.title,
    summary: parsed.summary,
    rating: parsed.rating,
    ratingExplanation: parsed.rating_explanation ?? parsed.ratingExplanation ?? "",
    findings: parsed.findings.filter((f) => f.summary.length > 0),
  };
}

import { z } from "zod";
import { citedCommunityIds } from "./citations.js";

export interface GlobalPoint {
  description: string;
  /** 0-100, how much the point helps answer the question. */
  score: number;
  /** Reports the point cites (only ids that were in its batch). */
  communityIds: string[];
}

const PointsSchema = z.object({
  points: z.array(z.object({ description: z.string().trim(), score: z.unknown() })),
});

export const POINTS_JSON_SCHEMA = {
  name: "global_points",
  schema: z.toJSONSchema(
    z.object({
      points: z.array(z.object({ description: z.string(), score: z.number().int().min(0).max(100) })),
    }),
  ),
};

/**
 * Validates one map reply. A point with a score that is not a number from 0 to 100 is dropped on
 * its own rather than failing the batch; score-0 points ("nothing relevant") are dropped too.
 */
export function readPoints(value: unknown, batchIds: readonly string[]): GlobalPoint[] {
  const known = new Set(batchIds);
  return PointsSchema.parse(value).points.flatMap((point) => {
    const score = validScore(point.score);
    if (score === undefined || score === 0 || !point.description) return [];
    return [
      { description: point.description, score, communityIds: citedCommunityIds(point.description, known) },
    ];
  });
}

function validScore(raw: unknown): number | undefined {
  const n = typeof raw === "string" ? Number(raw.trim()) : raw;
  if (typeof n !== "number" || !Number.isFinite(n) || n < 0 || n > 100) return undefined;
  return Math.round(n);
}

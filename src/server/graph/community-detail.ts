import { z } from "zod";

const CommunityItemSchema = z.object({
  id: z.string(),
  level: z.number(),
  parent: z.string().nullable(),
  title: z.string(),
  size: z.number(),
  rating: z.number().optional(),
});

/** What a report's citation id stands for (see reportCitations). */
const ReportCitationSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("entity"), name: z.string() }),
  z.object({ kind: z.literal("relationship"), source: z.string(), target: z.string() }),
  z.object({ kind: z.literal("community"), id: z.string(), title: z.string() }),
]);

/** GET /api/v1/graph/communities/:id */
export const CommunityDetailSchema = z.object({
  community: CommunityItemSchema,
  report: z.object({
    title: z.string(),
    summary: z.string(),
    findings: z.array(z.object({ summary: z.string(), explanation: z.string() })),
    text: z.string(),
  }),
  members: z.array(z.string()),
  /**
   * The report's citation ids ("E:3", "R:7", "C:c1-ab12") with the entity, relationship or report
   * each stands for, so a reader resolves every [E:3] of the text without a request per id.
   */
  citations: z.record(z.string(), ReportCitationSchema),
  /** Set when the id asked for was retired by a re-clustering: the community that took its members. */
  movedFrom: z.string().optional(),
});
export type CommunityDetail = z.infer<typeof CommunityDetailSchema>;

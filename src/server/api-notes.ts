/** What every route that shows descriptions says about them in the OpenAPI document (see docs/api.md). */
export const READABLE_DESCRIPTIONS =
  "Descriptions are readable text: one fragment a line for a description merged from several " +
  "sources (never the stored <SEP> separator); a summarised or hand-written one is one line.";

import { z } from "zod";
import { unknownNamesMessage } from "../../util/closest-name.js";

/**
 * Names agents reach for in place of a tool's own argument names (folded as closestName folds
 * them: lower case, no `_` or `-`). A synonym is offered only where the tool has its target.
 */
const ARGUMENT_SYNONYMS: Readonly<Record<string, string>> = {
  query: "text",
  q: "text",
  search: "text",
  term: "text",
  keyword: "text",
  keywords: "text",
  entity: "name",
  entityname: "name",
  topk: "limit",
  k: "limit",
  max: "limit",
  hops: "depth",
  cypher: "query",
  statement: "query",
};

/**
 * A tool's arguments, strict as the library's and the REST API's options are: a misspelt or
 * unknown argument (`mdoe`, `query` for search_entities' `text`) is refused naming the one meant,
 * rather than dropped, or reported only as the missing argument it stood for.
 */
export function strictToolArgs<Shape extends z.ZodRawShape>(tool: string, shape: Shape) {
  const known = Object.keys(shape);
  const synonyms = Object.fromEntries(
    Object.entries(ARGUMENT_SYNONYMS).filter(
      ([name, meant]) => known.includes(meant) && !known.includes(name),
    ),
  );
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? unknownNamesMessage(issue.keys, known, { what: `${tool} tool`, noun: "argument", synonyms })
        : undefined,
  });
}

import { z } from "zod";
import type { GraphEntity, GraphRelationship, GraphView } from "../graph-store.js";
import type { Neo4jConnection } from "./connection.js";
import type { PlainRecord } from "./record-mapping.js";

/**
 * The whole graph in the lean form the steps after merging read (see GraphStore.listGraph): the
 * full listings carry every fragment and source chunk id, which on a server is most of the bytes.
 */

const texts = z
  .array(z.string())
  .nullable()
  .transform((v) => v ?? []);

const LeanEntity = z
  .object({
    key: z.string(),
    name: z.string(),
    type: z.string(),
    description: z.string(),
    // Absent on nodes written before entity resolution, and when the entity has no other name.
    aliases: texts.nullish(),
  })
  .transform(
    ({ aliases, ...entity }): GraphEntity =>
      aliases && aliases.length > 0 ? { ...entity, aliases } : entity,
  );

const LeanRelationship = z.object({
  key: z.string(),
  sourceKey: z.string(),
  targetKey: z.string(),
  description: z.string(),
  keywords: texts,
  weight: z.number(),
});

export async function listGraph(db: Neo4jConnection): Promise<GraphView> {
  const [entities, relationships] = await Promise.all([
    db.read("store/graph-entities-lean"),
    db.read("store/graph-relationships-lean"),
  ]);
  return {
    entities: rows(entities, "entity", LeanEntity),
    relationships: rows(relationships, "relationship", LeanRelationship) satisfies GraphRelationship[],
  };
}

function rows<T extends z.ZodType>(records: PlainRecord[], column: string, schema: T): z.infer<T>[] {
  return records.map((record) => {
    const parsed = schema.safeParse(record[column]);
    if (!parsed.success) {
      throw new Error(`Neo4j returned a malformed ${column}: ${z.prettifyError(parsed.error)}`);
    }
    return parsed.data;
  });
}

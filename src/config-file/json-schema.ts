import { z } from "zod";
import { ConfigSchema } from "../config.js";

/** Where the published schema lives in the package, for `"$schema"` in a config file. */
export const CONFIG_SCHEMA_PATH = "schema/kgrag.config.schema.json";

/**
 * The JSON Schema of kgrag.config.json, generated from the zod schema so that editors complete
 * and check exactly what kgrag accepts: the input side (defaults optional), no unknown keys.
 */
export function configJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(ConfigSchema, {
    io: "input",
    unrepresentable: "any",
    override: (ctx) => {
      const schema = ctx.jsonSchema;
      if (schema.type === "object" && schema.properties) schema.additionalProperties = false;
    },
  });
  const properties = (generated.properties ?? {}) as Record<string, unknown>;
  return {
    ...generated,
    title: "kgrag configuration (kgrag.config.json)",
    properties: { $schema: { type: "string" }, ...properties },
  };
}

/** The schema file's text: stable key order and a final newline, so the published file diffs cleanly. */
export function configJsonSchemaText(): string {
  return `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
}

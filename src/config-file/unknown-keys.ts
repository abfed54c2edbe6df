import { z } from "zod";
import { isPlainObject, type Plain } from "./layers.js";

/** The object schema under defaults, optionals and pipes, or null when `schema` holds no object. */
function objectOf(schema: z.ZodType): z.ZodObject | null {
  if (schema instanceof z.ZodObject) return schema;
  if (
    schema instanceof z.ZodDefault ||
    schema instanceof z.ZodPrefault ||
    schema instanceof z.ZodOptional ||
    schema instanceof z.ZodNullable
  ) {
    return objectOf(schema.unwrap() as z.ZodType);
  }
  if (schema instanceof z.ZodPipe) return objectOf(schema.in as z.ZodType);
  return null;
}

/**
 * Dotted paths of keys that `schema` does not know, however deep. zod drops unknown keys
 * silently, and a misspelt key in a config file ("topk") would then do nothing without a word.
 */
export function unknownKeys(schema: z.ZodType, value: unknown, prefix = ""): string[] {
  const object = objectOf(schema);
  if (!object || !isPlainObject(value)) return [];
  const shape = object.shape as Record<string, z.ZodType>;
  return Object.entries(value as Plain).flatMap(([key, child]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    const field = shape[key];
    return field ? unknownKeys(field, child, path) : [path];
  });
}

/** The keys known in the object that holds `path`'s last key: what an unknown key there could have been. */
export function knownKeysAt(schema: z.ZodType, path: string): string[] {
  let object = objectOf(schema);
  for (const key of path.split(".").slice(0, -1)) {
    const field = object ? (object.shape as Record<string, z.ZodType>)[key] : undefined;
    object = field ? objectOf(field) : null;
  }
  return object ? Object.keys(object.shape) : [];
}

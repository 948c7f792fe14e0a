/**
 * The table of user actions describes each action's input as one JSON Schema object (src/emulator/actions,
 * `listActions()`); the MCP SDK checks a tool's input with zod. This turns the table's schema into the zod object
 * the tool registers (unknown fields refused), so the agent sees the table's fields and descriptions and a bad
 * input is refused before anything is sent. The session checks the input again with the table's own rules.
 */
import {z} from 'zod'

type JsonSchema = {
  type?: string | string[]
  description?: string
  items?: JsonSchema
  enum?: unknown[]
  properties?: Record<string, JsonSchema>
  required?: string[]
  minimum?: number
  anyOf?: JsonSchema[]
}

function one(type: string | undefined, s: JsonSchema): z.ZodType {
  switch (type) {
    case 'integer':
      return s.minimum !== undefined ? z.number().int().min(s.minimum) : z.number().int()
    case 'number':
      return z.number()
    case 'boolean':
      return z.boolean()
    case 'string':
      return Array.isArray(s.enum) && s.enum.length > 0 && s.enum.every((e) => typeof e === 'string')
        ? z.enum(s.enum as [string, ...string[]])
        : z.string()
    case 'array':
      return z.array(s.items ? fromJsonSchema(s.items) : z.unknown())
    case 'object':
      return z.record(z.string(), z.unknown())
    default:
      return z.unknown()
  }
}

/** One property's schema as zod (with its description). */
export function fromJsonSchema(s: JsonSchema): z.ZodType {
  let schema: z.ZodType
  if (Array.isArray(s.anyOf) && s.anyOf.length > 1)
    schema = z.union(s.anyOf.map((a) => fromJsonSchema(a)) as [z.ZodType, z.ZodType, ...z.ZodType[]])
  else if (Array.isArray(s.type) && s.type.length > 1)
    schema = z.union(s.type.map((t) => one(t, s)) as [z.ZodType, z.ZodType, ...z.ZodType[]])
  else schema = one(Array.isArray(s.type) ? s.type[0] : s.type, s)
  return s.description ? schema.describe(s.description) : schema
}

/** An action's input object as a strict zod object: its properties, the required ones required. */
export function objectFromJsonSchema(s: JsonSchema, extra: Record<string, z.ZodType> = {}): z.ZodObject {
  const shape: Record<string, z.ZodType> = {}
  const required = new Set(s.required ?? [])
  for (const [name, prop] of Object.entries(s.properties ?? {})) {
    const schema = fromJsonSchema(prop)
    shape[name] = required.has(name) ? schema : schema.optional()
  }
  return z.strictObject({...shape, ...extra})
}

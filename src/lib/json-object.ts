/** A JSON object from outside (a request body, an update, a file): checked to be one, each field checked where read. */
export type JsonObject = Record<string, unknown>

/** A JSON object (not null, not an array): what every request body and update must be. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The value when it is a JSON object, else an empty one (a field a --set or a client may have written anything in). */
export function objectOf(value: unknown): JsonObject {
  return isJsonObject(value) ? value : {}
}

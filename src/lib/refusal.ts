/**
 * A refused input in our own words (what is wrong, naming the value, and how to fix it), and the glue that lets a
 * valibot schema say it: every check of a request schema carries its refusal as its message (`refuse`), and a
 * failed parse gives back the first one (`checkWith`, abortEarly: the first failing check in schema order wins).
 */
import * as v from 'valibot'

/** A refused request: what is wrong (naming the value) and how to fix it. */
export interface Refusal {
  error: string
  fix: string
}

/** A refusal, told from a JSON value returned in its place (an Update never has top-level error and fix texts). */
export function isRefusal(value: unknown): value is Refusal {
  if (typeof value !== 'object' || value === null) return false
  return 'error' in value && typeof value.error === 'string' && 'fix' in value && typeof value.fix === 'string'
}

/**
 * Between a refusal's error and its fix inside an issue message. The fix is always our own text (never a piece of
 * the input), so the last separator is the one: an error that quotes the input may hold the character itself.
 */
const SEPARATOR = '\u0000'

/** A schema message: the error (a text, or made from the refused value) and the fix. */
export function refuse<I = unknown>(
  error: string | ((input: I) => string),
  fix: string,
): (issue: {input: I}) => string {
  return (issue) => `${typeof error === 'string' ? error : error(issue.input)}${SEPARATOR}${fix}`
}

/** The refusal an issue carries (one without our message, a schema's own text, gets a generic fix). */
export function refusalOf(issue: {message: string}): Refusal {
  const at = issue.message.lastIndexOf(SEPARATOR)
  if (at < 0) return {error: issue.message, fix: 'Check the request against the documentation.'}
  return {error: issue.message.slice(0, at), fix: issue.message.slice(at + 1)}
}

type AnySchema = v.GenericSchema<unknown, unknown>

/** Parse `value` with `schema`: its output, or the first refusal. */
export function checkWith<S extends AnySchema>(schema: S, value: unknown): {output: v.InferOutput<S>} | Refusal {
  const parsed = v.safeParse(schema, value, {abortEarly: true})
  return parsed.success ? {output: parsed.output} : refusalOf(parsed.issues[0])
}

/** Parse `value` with `schema`: its output, or undefined when it does not fit (data read where it is optional). */
export function outputOf<S extends AnySchema>(schema: S, value: unknown): v.InferOutput<S> | undefined {
  const parsed = v.safeParse(schema, value)
  return parsed.success ? parsed.output : undefined
}

/**
 * An object schema (unknown keys dropped) whose refusals are its fields' own: a missing field is refused as its
 * schema refuses `undefined`; a value that is not an object at all (a string, null) with `notObject`. Arrays are
 * objects to valibot: one has none of the fields, so it is refused for its first missing one.
 */
export function fields<const E extends v.ObjectEntries>(
  entries: E,
  notObject: (issue: {input: unknown}) => string,
): v.ObjectSchema<E, (issue: v.ObjectIssue) => string> {
  return v.object(entries, (issue) => {
    const key = issue.path?.at(-1)?.key
    if (typeof key !== 'string' || !Object.hasOwn(entries, key)) return notObject(issue)
    const own = v.safeParse(entries[key], undefined, {abortEarly: true})
    return own.success ? notObject(issue) : own.issues[0].message
  })
}

/**
 * The Bot API catalogue as a test oracle: does a value have the documented type (every always-present field, each
 * field of its type), and a minimal valid value of a type to pass as a JSON parameter.
 */
import {typeSpec} from '../../src/emulator/methods/catalog/index.js'

/** Problems of `value` against the type expression `type` (empty: it conforms). */
export function problems(value: unknown, type: string, path = 'result', depth = 0): string[] {
  if (depth > 12) return []
  if (type.includes(' or ')) {
    const options = type.split(' or ')
    const tries = options.map((t) => problems(value, t, path, depth))
    return tries.some((p) => p.length === 0) ? [] : tries.flat()
  }
  if (type.startsWith('Array of ')) {
    if (!Array.isArray(value)) return [`${path} is not an array`]
    return value.flatMap((v, i) => problems(v, type.slice(9), `${path}[${i}]`, depth + 1))
  }
  switch (type) {
    case 'Boolean':
    case 'True':
      return typeof value === 'boolean' ? [] : [`${path} is not a Boolean`]
    case 'Integer':
      return Number.isInteger(value) ? [] : [`${path} is not an Integer: ${JSON.stringify(value)}`]
    case 'Float':
      return typeof value === 'number' ? [] : [`${path} is not a Float`]
    case 'String':
      return typeof value === 'string' ? [] : [`${path} is not a String`]
  }
  const spec = typeSpec(type)
  if (!spec) return [`${path}: unknown type ${type}`]
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [`${path} is not a ${type} object`]
  const o = value as Record<string, unknown>
  if ('oneOf' in spec) {
    const tries = spec.oneOf.map((t) => problems(value, t, path, depth))
    return tries.some((p) => p.length === 0) ? [] : [`${path} is none of ${spec.oneOf.join(', ')}: ${tries.flat()[0]}`]
  }
  const out: string[] = []
  for (const field of spec.fields) {
    const v = o[field.name]
    if (v === undefined) {
      if (field.required) out.push(`${path}.${field.name} (${field.type}) is missing`)
      continue
    }
    if (field.constant !== undefined && v !== field.constant)
      out.push(`${path}.${field.name} is not "${field.constant}"`)
    out.push(...problems(v, field.type, `${path}.${field.name}`, depth + 1))
  }
  return out
}

/** A minimal valid value of a type, for a JSON parameter (`file` for InputFile or String fields). */
export function sample(type: string, file: string, depth = 0): unknown {
  if (type.includes(' or ')) return sample(type.split(' or ')[0], file, depth)
  if (type.startsWith('Array of ')) return depth > 4 ? [] : [sample(type.slice(9), file, depth + 1)]
  switch (type) {
    case 'Boolean':
      return true
    case 'Integer':
      return 1
    case 'Float':
      return 1.5
    case 'String':
      return 'x'
    case 'InputFile':
      return file
  }
  const spec = typeSpec(type)
  if (!spec) return {}
  if ('oneOf' in spec) return sample(spec.oneOf[0], file, depth)
  const out: Record<string, unknown> = {}
  for (const field of spec.fields) {
    if (field.constant !== undefined) out[field.name] = field.constant
    else if (field.required && depth < 5)
      out[field.name] =
        field.type.startsWith('InputFile') || field.name === 'media' ? file : sample(field.type, file, depth + 1)
  }
  return out
}

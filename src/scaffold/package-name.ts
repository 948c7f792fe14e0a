import {builtinModules} from 'node:module'

/**
 * npm's rules for a new package's name (the ones validate-npm-package-name applies to new
 * packages): at most 214 characters, lowercase, URL-safe, no leading dot or underscore,
 * not a Node built-in module, optionally scoped as @scope/name.
 * Returns why a name breaks them, or undefined when it is fine.
 */
export function packageNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'it is empty'
  if (name.length > 214) return 'it is longer than 214 characters'
  if (name.trim() !== name) return 'it has leading or trailing spaces'
  if (name !== name.toLowerCase()) return 'it has uppercase letters'
  const scoped = /^@([^/]+)\/([^/]+)$/.exec(name)
  if (name.startsWith('@') && !scoped) return 'a scoped name must look like @scope/name'
  const parts = scoped ? [scoped[1], scoped[2]] : [name]
  for (const part of parts) {
    if (part.startsWith('.')) return 'it starts with a dot'
    if (part.startsWith('_')) return 'it starts with an underscore'
    if (!/^[a-z0-9._~-]+$/.test(part)) return 'it may only contain a-z, 0-9, "-", ".", "_" and "~"'
  }
  const bare = parts[parts.length - 1]
  if (!scoped && (builtinModules.includes(name) || ['node_modules', 'favicon.ico'].includes(name)))
    return `"${name}" is reserved (a Node.js built-in module or a reserved name)`
  if (bare.length === 0) return 'it is empty'
  return undefined
}

/** A valid name close to `raw`, to suggest in an error: "My Bot!" → "my-bot". */
export function suggestPackageName(raw: string): string {
  const s = raw
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9._~-]+/g, '-')
    .replace(/^[._-]+/, '')
    .replace(/-+$/, '')
    .slice(0, 214)
  const name = s || 'my-bot'
  return packageNameProblem(name) ? `${name}-bot` : name
}

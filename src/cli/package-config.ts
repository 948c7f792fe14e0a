/**
 * Defaults for a command's flags from the nearest package.json (found from the working folder
 * up, as npm does), in its "bot" section:
 *
 *   {"bot": {"dev": {"command": "node bot.mjs", "tunnel": "none", "allowedUpdates": ["message", "callback_query"]}}}
 *
 * Keys are the flag names in camelCase (`allowedUpdates` for --allowed-updates); `command` is
 * the bot command (the words after `--`, a string or an array of words). A value becomes the
 * flag's default, so oclif's own precedence holds: flags > environment > .env > package.json
 * (.env is loaded into the environment before flags are parsed). Unknown keys and wrong types are
 * bad input (UsageError, exit 2) naming them, raised before the command does anything.
 */
import {existsSync, readFileSync} from 'node:fs'
import {dirname, join, resolve} from 'node:path'

import {UsageError, messageOf} from '../lib/errors.js'
import {isJsonObject} from '../lib/json-object.js'

/** The parts of an oclif flag definition this module reads. */
export interface FlagDefinition {
  type: 'boolean' | 'option'
  char?: string
  env?: string
  allowNo?: boolean
  hidden?: boolean
  options?: readonly string[]
  multiple?: boolean
  parse?: (input: string, context: unknown, options: unknown) => Promise<unknown>
}

/** Commands that read a section, and the flags a section never holds. */
const SECTIONS = new Set(['dev'])
/** The token is a secret: it lives in .env (never in a committed package.json). */
const NEVER = new Map([['token', 'the bot token is a secret: put BOT_TOKEN in .env (never in package.json)']])
/** Flags whose value is a comma-separated list: an array of strings is accepted too. */
const LISTS = new Set(['allowed-updates'])

export interface PackageConfig {
  /** Absolute path of the package.json that was read. */
  path: string
  /** Flag name → its default from package.json, parsed as the flag parses a value (an integer flag: a number). */
  defaults: Record<string, unknown>
  /** The bot command's words ("command"), when given. */
  command?: string[]
}

/** The nearest package.json from `cwd` up to the root, or undefined. */
export function findPackageJson(cwd = process.cwd()): string | undefined {
  let dir = resolve(cwd)
  for (;;) {
    const candidate = join(dir, 'package.json')
    if (existsSync(candidate)) return candidate
    const parent = dirname(dir)
    if (parent === dir) return undefined
    dir = parent
  }
}

const camel = (flag: string) => flag.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase())
const kind = (value: unknown) =>
  Array.isArray(value)
    ? 'an array'
    : value === null
      ? 'null'
      : typeof value === 'object'
        ? 'an object'
        : `a ${typeof value}`

/** "node --import tsx 'src/main file.ts'" → its words; quotes ('…', "…") and backslashes as in a shell. */
export function splitCommand(text: string): string[] {
  const words: string[] = []
  let word = ''
  let inWord = false
  let quote: '"' | "'" | undefined
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (quote) {
      if (c === quote) quote = undefined
      else if (c === '\\' && quote === '"' && i + 1 < text.length) word += text[++i]
      else word += c
    } else if (c === '"' || c === "'") {
      quote = c
      inWord = true
    } else if (c === '\\' && i + 1 < text.length) {
      word += text[++i]
      inWord = true
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word)
      word = ''
      inWord = false
    } else {
      word += c
      inWord = true
    }
  }
  if (quote) throw new Error(`unclosed ${quote}`)
  if (inWord) words.push(word)
  return words
}

/**
 * Read the "bot" section of the nearest package.json for `command` (e.g. "dev"): its flag
 * defaults and bot command, checked. Undefined when there is no package.json or no section.
 */
export async function readPackageConfig(
  command: string,
  flags: Record<string, FlagDefinition>,
  options: {cwd?: string} = {},
): Promise<PackageConfig | undefined> {
  const path = findPackageJson(options.cwd)
  if (!path) return undefined
  let pkg: unknown
  try {
    pkg = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    throw new UsageError(
      `${path} is not valid JSON (${messageOf(error)}).`,
      'Fix the file (bot reads its "bot" section), or run bot from another folder.',
    )
  }
  const bot = isJsonObject(pkg) ? pkg.bot : undefined
  if (bot === undefined) return undefined
  const where = (key?: string) => `"bot"${key ? `.${key}` : ''} in ${path}`
  if (!isJsonObject(bot))
    throw new UsageError(
      `${where()} must be an object like {"dev": {...}}, not ${kind(bot)}.`,
      'See the README ("Config in package.json").',
    )
  const unknownSections = Object.keys(bot).filter((k) => !SECTIONS.has(k))
  if (unknownSections.length > 0)
    throw new UsageError(
      `Unknown key${unknownSections.length > 1 ? 's' : ''} ${unknownSections.map((k) => `"${k}"`).join(', ')} in ${where()}.`,
      `The "bot" section holds ${[...SECTIONS].map((s) => `"${s}"`).join(', ')}.`,
    )
  const section = bot[command]
  if (section === undefined) return undefined
  if (!isJsonObject(section))
    throw new UsageError(
      `${where(command)} must be an object of flag defaults, not ${kind(section)}.`,
      `E.g. {"${command}": {"command": "node bot.mjs"}}.`,
    )

  const byKey = new Map<string, string>()
  for (const [name, flag] of Object.entries(flags))
    if (!flag.hidden && name !== 'json' && name !== 'help') byKey.set(camel(name), name)
  const entries = Object.entries(section)
  const never = entries.map(([k]) => k).filter((k) => NEVER.has(byKey.get(k) ?? k))
  if (never.length > 0)
    throw new UsageError(
      `${where(`${command}.${never[0]}`)} is not allowed: ${NEVER.get(byKey.get(never[0]) ?? never[0])}.`,
      'Remove it from package.json.',
    )
  const unknown = entries.map(([k]) => k).filter((k) => k !== 'command' && !byKey.has(k))
  if (unknown.length > 0) {
    const known = ['command', ...[...byKey.keys()].filter((k) => !NEVER.has(byKey.get(k)!))]
    throw new UsageError(
      `Unknown key${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')} in ${where(command)}.`,
      `Known keys (the flags of \`bot ${command}\` in camelCase): ${known.join(', ')}.`,
    )
  }

  const defaults: Record<string, unknown> = {}
  let commandWords: string[] | undefined

  for (const [key, value] of entries) {
    const at = where(`${command}.${key}`)
    if (key === 'command') {
      if (typeof value === 'string') {
        try {
          commandWords = splitCommand(value)
        } catch (error) {
          throw new UsageError(
            `${at} cannot be split into words: ${messageOf(error)}.`,
            'Quote as in a shell, e.g. "node \'my bot.mjs\'".',
          )
        }
      } else if (Array.isArray(value) && value.every((w) => typeof w === 'string')) commandWords = value
      else
        throw new UsageError(
          `${at} must be a string or an array of strings, not ${kind(value)}.`,
          'E.g. "command": "node bot.mjs".',
        )
      if (commandWords.length === 0)
        throw new UsageError(`${at} is empty.`, 'E.g. "command": "node bot.mjs", or remove the key.')
      continue
    }
    const name = byKey.get(key)!
    const flag = flags[name]
    if (flag.type === 'boolean') {
      if (typeof value !== 'boolean')
        throw new UsageError(`${at} must be true or false, not ${kind(value)}.`, `E.g. "${key}": ${!flag.allowNo}.`)
      defaults[name] = value
      continue
    }
    // A flag given many times (--ignore A --ignore B): an array of strings, or one string.
    if (flag.multiple) {
      if (typeof value === 'string') defaults[name] = [value]
      else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) defaults[name] = value
      else
        throw new UsageError(
          `${at} must be an array of strings or a string, not ${kind(value)}.`,
          `E.g. "${key}": ["sessions/**"]; they add to --${name}.`,
        )
      continue
    }
    let text: string
    if (typeof value === 'string') text = value
    else if (typeof value === 'number' && Number.isFinite(value)) text = String(value)
    else if (LISTS.has(name) && Array.isArray(value) && value.every((v) => typeof v === 'string'))
      text = value.join(',')
    else
      throw new UsageError(
        `${at} must be ${LISTS.has(name) ? 'an array of strings or a string' : 'a string or a number'}, not ${kind(value)}.`,
        `It is the default for --${name}.`,
      )
    if (flag.options && !flag.options.includes(text))
      throw new UsageError(
        `${at} is "${text}", not one of ${flag.options.join(', ')}.`,
        `Use one of ${flag.options.join(', ')}.`,
      )
    try {
      defaults[name] = flag.parse ? await flag.parse(text, undefined, flag) : text
    } catch (error) {
      throw new UsageError(`${at}: ${messageOf(error)}.`, `It is the default for --${name}.`)
    }
  }
  return {path, defaults, ...(commandWords ? {command: commandWords} : {})}
}

/**
 * The command's flags with the defaults of `config` in place (oclif then applies them only when
 * neither the flag nor its environment variable is given).
 */
export function withDefaults<F extends Record<string, object>>(flags: F, config: PackageConfig | undefined): F {
  if (!config) return flags
  const out: Record<string, object> = {...flags}
  for (const [name, value] of Object.entries(config.defaults)) out[name] = {...flags[name], default: value}
  return out as F
}

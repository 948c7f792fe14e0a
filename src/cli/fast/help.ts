/**
 * A command's help (`bot dev --help`, `bot webhook info -h`) rendered from oclif.manifest.json
 * the way oclif 4's CommandHelp renders it (docopts usage, flag lists and groups, description,
 * examples), for bin/run.js's fast path, so that help does not load @oclif/core.
 *
 * Only plain output is produced (no colour: a pipe, NO_COLOR, or a terminal oclif would not
 * colour); anything this renderer does not reproduce exactly (aliases, deprecations, dynamic
 * help, custom usage, dependsOn, help labels, templates other than config.bin and command.id,
 * wide characters, sub-commands) returns undefined and oclif answers. test/lib/fast-start.e2e.test.ts
 * compares the bytes with oclif's for every command.
 *
 * Dependency-free, like start.ts (whose list renderer and indent it shares: that module is
 * always loaded first).
 */
import {indent, renderList, type ManifestCommand} from './render.js'

export interface ManifestFlag {
  name: string
  type: 'boolean' | 'option'
  char?: string
  summary?: string
  description?: string
  helpGroup?: string
  hidden?: boolean
  required?: boolean
  allowNo?: boolean
  multiple?: boolean
  options?: string[]
  default?: unknown
  env?: string
  exclusive?: string[]
  [key: string]: unknown
}

export interface ManifestArg {
  name: string
  description?: string
  required?: boolean
  hidden?: boolean
  multiple?: boolean
  default?: unknown
  options?: string[]
  [key: string]: unknown
}

export interface ManifestCommandFull extends ManifestCommand {
  strict?: boolean
  examples?: Array<string | {description?: string; command?: string}>
  flags?: Record<string, ManifestFlag>
  args?: Record<string, ManifestArg>
  [key: string]: unknown
}

/** Flag keys that do not change the help text, or that this renderer reproduces. */
const FLAG_KEYS = new Set([
  'name',
  'type',
  'char',
  'summary',
  'description',
  'helpGroup',
  'hidden',
  'required',
  'allowNo',
  'multiple',
  'options',
  'default',
  'env',
  'exclusive',
  'hasDynamicHelp',
  'delimiter',
  'noCacheDefault',
  'deprecated',
  'aliases',
  'charAliases',
])
const ARG_KEYS = new Set([
  'name',
  'description',
  'required',
  'hidden',
  'multiple',
  'default',
  'options',
  'noCacheDefault',
])
const COMMAND_KEYS = new Set([
  'id',
  'summary',
  'description',
  'hidden',
  'aliases',
  'hiddenAliases',
  'strict',
  'examples',
  'flags',
  'args',
  'hasDynamicHelp',
  'pluginAlias',
  'pluginName',
  'pluginType',
  'enableJsonFlag',
  'isESM',
  'relativePath',
  // Ours (BaseCommand): which package.json section holds the flag defaults; not shown in help.
  'packageSection',
  'deprecateAliases',
  'baseFlags',
])

export interface HelpEnv {
  bin: string
  separator: string
  width: number
  /** true when every character of `text` is one terminal column wide (string-width). */
  narrow(text: string): boolean
  wrapPlain(text: string, columns: number): string
}

class Declined extends Error {}

/** oclif's util compare/sortBy. */
function compare(a: unknown, b: unknown): number {
  a = a === undefined ? 0 : a
  b = b === undefined ? 0 : b
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length === 0 && b.length === 0) return 0
    const diff = compare(a[0], b[0])
    if (diff !== 0) return diff
    return compare(a.slice(1), b.slice(1))
  }
  if ((a as number) < (b as number)) return -1
  if ((a as number) > (b as number)) return 1
  return 0
}

function scalar(value: unknown): string {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value)
  throw new Declined()
}

class CommandHelpRenderer {
  readonly id: string
  constructor(
    readonly cmd: ManifestCommandFull,
    readonly env: HelpEnv,
  ) {
    this.id = cmd.id.replaceAll(':', env.separator)
  }

  /** oclif's EJS pass, for the two templates used here; anything else declines. */
  render(text: string): string {
    const out = text.replaceAll('<%= config.bin %>', this.env.bin).replaceAll('<%= command.id %>', this.id)
    if (out.includes('<%') || !out.split('\n').every((line) => this.env.narrow(line))) throw new Declined()
    return out
  }

  wrap(body: string, spacing = 2): string {
    return this.env.wrapPlain(this.render(body), this.env.width - spacing)
  }

  section(header: string, body: string | Array<[string, string | undefined]>): string {
    const text =
      typeof body === 'string'
        ? this.render(body)
        : this.renderList(body.map(([l, r]) => [this.render(l), r && this.render(r)]))
    return `${header}\n${indent(text, 2)}`
  }

  renderList(input: Array<[string, string | undefined]>, indentation = 2): string {
    return renderList(input, indentation, (text, spacing) => this.wrap(text, spacing))
  }

  usageType(flag: ManifestFlag, showOptions: boolean): string {
    if (flag.type !== 'option') return ''
    const value = flag.options ? (showOptions ? flag.options.join('|') : '<option>') : '<value>'
    return `${value}${flag.multiple ? '...' : ''}`
  }

  docopts(flags: ManifestFlag[], args: ManifestArg[]): string {
    const opts = ['<%= command.id %>']
    for (const arg of args) {
      const suffix = arg.multiple ? '...' : this.cmd.strict === false ? '...' : ''
      opts.push(arg.required ? `${arg.name.toUpperCase()}${suffix}` : `[${arg.name.toUpperCase()}${suffix}]`)
    }
    const flagMap: Record<string, ManifestFlag | undefined> = {}
    for (const f of flags) flagMap[f.name] = f
    const elements: Record<string, string> = {}
    const generate = (list: ManifestFlag[]) => {
      for (const flag of list) {
        const name = flag.char ? `-${flag.char}` : `--${flag.name}`
        elements[flag.name] = `${name}${flag.type === 'option' ? ` ${this.usageType(flag, true)}` : ''}`
      }
    }
    generate(flags.filter((f) => f.required))
    generate(flags.filter((f) => !f.required))
    for (const flag of flags) {
      if (!Array.isArray(flag.exclusive) || flag.exclusive.length === 0) continue
      const exclusive = [...new Set(flag.exclusive)]
      if (!flagMap[flag.name]) continue
      let required = flagMap[flag.name]?.required
      if (typeof required !== 'boolean' || !required)
        required = exclusive.reduce<boolean>((r, n) => r || flagMap[n]?.required || false, false)
      for (const other of exclusive) {
        elements[flag.name] = `${elements[flag.name] || ''} | ${elements[other] || ''}`
        delete elements[other]
        delete flagMap[other]
      }
      elements[flag.name] = required ? `(${elements[flag.name] || ''})` : `[${elements[flag.name] || ''}]`
      delete flagMap[flag.name]
    }
    for (const name of Object.keys(flagMap)) {
      const f = flagMap[name]
      if (f && !f.required) elements[f.name] = `[${elements[f.name] || ''}]`
    }
    opts.push(...Object.values(elements))
    return opts.join(' ')
  }

  usage(flags: ManifestFlag[], args: ManifestArg[]): string {
    const u = this.docopts(flags, args)
    const allowed = this.env.width - 2
    const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    const description = u
      .replace('<%= command.id %>', '')
      .replace(new RegExp(`^${escape(this.cmd.id)}`), '')
      .replace(new RegExp(`^${escape(this.id)}`), '')
      .trim()
    const line = `$ ${this.env.bin} <%= command.id %> ${description}`.trim()
    if (line.length > allowed) {
      const split = line.slice(0, Math.max(0, allowed)).lastIndexOf(' ')
      return line.slice(0, Math.max(0, split)) + '\n' + indent(this.wrap(line.slice(Math.max(0, split)), 4), 2)
    }
    return this.wrap(line)
  }

  argRows(args: ManifestArg[]): Array<[string, string | undefined]> | undefined {
    if (args.filter((a) => a.description).length === 0) return undefined
    return args.map((a) => {
      const suffix = a.multiple ? '...' : this.cmd.strict === false ? '...' : ''
      let name = `${a.name.toUpperCase()}${suffix}`
      name = a.required ? name : `[${name}]`
      let description = a.description || ''
      if (a.default) description = `[default: ${scalar(a.default)}] ${description}`
      if (a.options) description = `(${a.options.join('|')}) ${description}`
      return [name, description || undefined]
    })
  }

  flagRows(flags: ManifestFlag[]): Array<[string, string | undefined]> {
    const noChar = flags.every((f) => f.char === undefined)
    return flags.map((flag) => {
      const labels = [
        flag.char ? `-${flag.char[0]}` : '  ',
        flag.type === 'boolean' && flag.allowNo ? `--[no-]${flag.name.trim()}` : `--${flag.name.trim()}`,
      ]
      let left = labels.join(flag.char ? ', ' : '  ')
      if (flag.type === 'option') left += `=${this.usageType(flag, false)}`
      if (noChar) left = left.replace('    ', '')
      let right = flag.summary || flag.description || ''
      const metadata: string[] = []
      if (flag.type === 'option') {
        if (flag.default) metadata.push(`default: ${scalar(flag.default)}`)
        if (flag.env) metadata.push(`env: ${flag.env}`)
      } else if (flag.type === 'boolean' && flag.env) metadata.push(`env: ${flag.env}`)
      if (metadata.length > 0) right = `[${metadata.join(', ')}] ${right}`
      if (flag.required) right = `(required) ${right}`
      if (flag.type === 'option' && flag.options) right += `\n<options: ${flag.options.join('|')}>`
      return [left, right.trim()]
    })
  }

  description(): string | undefined {
    const {summary, description} = this.cmd
    if (!description) return undefined
    const lines = summary
      ? [...`${summary}\n`.split(/\r\n|\n/), ...description.split(/\r\n|\n/)]
      : description.split(/\r\n|\n/)
    return this.wrap(lines.join('\n'))
  }

  formatIfCommand(example: string): string {
    example = this.render(example)
    if (example.startsWith(this.env.bin)) return `$ ${example}`
    if (example.startsWith(`$ ${this.env.bin}`)) return `$${example.replace('$', '')}`
    return example
  }

  examples(): string | undefined {
    const examples = this.cmd.examples
    if (!examples || examples.length === 0) return undefined
    return examples
      .map((a) => {
        let description: string
        let commands: string[]
        if (typeof a === 'string') {
          const lines = a.split(/\r\n|\n/).filter(Boolean)
          const isCommand = (l: string) => this.formatIfCommand(l).startsWith(`$ ${this.env.bin}`)
          if (lines.length >= 2 && !isCommand(lines[0]) && lines.slice(1).every((l) => isCommand(l))) {
            description = lines[0]
            commands = lines.slice(1)
          } else return lines.map((l) => this.formatIfCommand(l)).join('\n')
        } else {
          if (typeof a.description !== 'string' || typeof a.command !== 'string') throw new Declined()
          description = a.description
          commands = [a.command]
        }
        const body = commands
          .map((c) =>
            indent(this.wrap(this.formatIfCommand(c), 8), 2)
              .split(/\r\n|\n/)
              .join(' \\\n  '),
          )
          .join('\n')
        return `${this.wrap(description, 4)}\n\n${body}`
      })
      .join('\n\n')
  }

  generate(): string {
    const cmd = this.cmd
    const visible = Object.entries(cmd.flags ?? {})
      .filter(([, f]) => !f.hidden)
      .map(([name, f]) => ({...f, name}))
    const flags = [...visible].sort((a, b) => compare([!a.char, a.char, a.name], [!b.char, b.char, b.name]))
    const args = Object.values(cmd.args ?? {}).filter((a) => !a.hidden)
    const parts: string[] = [this.section('USAGE', this.usage(visible, args))]
    const argRows = this.argRows(args)
    if (argRows) parts.push(this.section('ARGUMENTS', argRows))
    const main = flags.filter((f) => !f.helpGroup)
    const groups = new Map<string, ManifestFlag[]>()
    for (const f of flags) if (f.helpGroup) groups.set(f.helpGroup, [...(groups.get(f.helpGroup) ?? []), f])
    const flagSections: string[] = []
    if (main.length > 0) flagSections.push(this.section('FLAGS', this.flagRows(main)))
    for (const [name, list] of groups)
      flagSections.push(this.section(`${name.toUpperCase()} FLAGS`, this.flagRows(list)))
    if (flagSections.length > 0) parts.push(flagSections.join('\n\n'))
    const description = this.description()
    if (description) parts.push(this.section('DESCRIPTION', description))
    const examples = this.examples()
    if (examples) parts.push(this.section('EXAMPLES', examples))
    return parts.join('\n\n')
  }
}

/**
 * oclif's COMMANDS section of a command's sub-commands (Help.formatCommands: sorted by id, hidden
 * ones left out, each with the first line of its summary); '' when there are none, null when a
 * summary holds what this renderer does not reproduce.
 */
function subCommands(under: ManifestCommandFull[], r: CommandHelpRenderer, env: HelpEnv): string | null {
  const visible = under
    .filter((c) => !c.hidden)
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .filter((c, i, list) => i === 0 || list[i - 1].id !== c.id)
  if (visible.length === 0) return ''
  const rows: Array<[string, string | undefined]> = []
  for (const c of visible) {
    const first = c.summary ? c.summary.split('\n')[0] : c.description?.split('\n')[0]
    const line = first?.replaceAll('<%= config.bin %>', env.bin)
    if (line?.includes('<%') || (line !== undefined && !env.narrow(line))) return null
    rows.push([c.id.replaceAll(':', env.separator), line || undefined])
  }
  return r.section('COMMANDS', rows)
}

/**
 * The whole output of `bin <id> --help` (summary line, command help, blank line), or
 * undefined when oclif must answer.
 */
export function commandHelp(cmd: ManifestCommandFull, all: ManifestCommandFull[], env: HelpEnv): string | undefined {
  try {
    if (Object.keys(cmd).some((k) => !COMMAND_KEYS.has(k))) return undefined
    if (cmd.hasDynamicHelp || cmd.deprecateAliases || (cmd.aliases?.length ?? 0) > 0) return undefined
    // Its sub-commands (`bot trigger` is a command and a topic): listed after its help, as oclif does.
    const depth = cmd.id.split(':').length
    const under = all.filter((c) => c.id.startsWith(`${cmd.id}:`))
    if (under.some((c) => c.id.split(':').length !== depth + 1 || (c.aliases?.length ?? 0) > 0)) return undefined
    for (const f of Object.values(cmd.flags ?? {})) {
      if (Object.keys(f).some((k) => !FLAG_KEYS.has(k)) || (f.summary && f.description) || f.hasDynamicHelp)
        return undefined
      if (f.type !== 'boolean' && f.type !== 'option') return undefined
    }
    for (const a of Object.values(cmd.args ?? {})) if (Object.keys(a).some((k) => !ARG_KEYS.has(k))) return undefined
    const r = new CommandHelpRenderer(cmd, env)
    let summary: string | undefined
    if (cmd.summary) summary = r.render(cmd.summary.split('\n')[0])
    else if (cmd.description) summary = r.render(cmd.description).split('\n')[0]
    const body = r.generate()
    const commands = subCommands(under, r, env)
    if (commands === null) return undefined
    return `${summary ? `${summary}\n\n` : ''}${body}\n\n${commands ? `${commands}\n\n` : ''}`
  } catch (error) {
    if (error instanceof Declined) return undefined
    throw error
  }
}

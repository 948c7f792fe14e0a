/**
 * Start-up fast path for bin/run.js: `bot --version` and the root help (`bot`, `bot --help`)
 * rendered from package.json and oclif.manifest.json WITHOUT loading @oclif/core, whose
 * module graph alone costs about as much as starting Node itself.
 *
 * The output is byte-for-byte what oclif 4 prints (test/lib/fast-start.e2e.test.ts compares
 * both at several widths). Whenever a setting could make oclif print something else
 * (hooks, plugins, themes, aliases, templates, colour decisions it makes differently, WSL,
 * a stale or missing manifest…), `fastStart` returns false and oclif runs as usual.
 *
 * This module must stay dependency-free: it is loaded before anything else.
 */
import {readFileSync} from 'node:fs'
import {arch, platform, release} from 'node:os'
import {join} from 'node:path'

import type {commandHelp as CommandHelp, ManifestCommandFull} from './help.js'
import {narrow, Renderer, summaryLine, template, wrapPlain, type ManifestCommand} from './render.js'
import type {topicHelp as TopicHelp} from './topic.js'

interface Topic {
  name: string
  description?: string
  hidden?: boolean
}

interface PackageJson {
  name: string
  version: string
  description?: string
  oclif?: Record<string, unknown> & {
    bin?: string
    topicSeparator?: string
    description?: string
    topics?: Record<string, {description?: string; hidden?: boolean; subtopics?: unknown}>
    plugins?: string[]
    hooks?: Record<string, unknown>
    additionalHelpFlags?: string[]
  }
}

interface Manifest {
  version?: string
  commands: Record<string, ManifestCommandFull>
}

/** oclif settings this renderer reproduces; any other key sends the call to oclif. */
const KNOWN_OCLIF_KEYS = new Set([
  'bin',
  'dirname',
  'commands',
  'topicSeparator',
  'topics',
  'description',
  'plugins',
  'hooks',
  'additionalHelpFlags',
  // The exit codes of parse errors: never reached by --version or help.
  'exitCodes',
])
/** Hooks that never run for --version or help: any other hook sends the call to oclif. */
const HARMLESS_HOOKS = new Set(['command_not_found', 'plugins:postinstall', 'plugins:postuninstall'])
/** A plugin's own oclif settings this renderer can ignore. */
const KNOWN_PLUGIN_KEYS = new Set([
  'bin',
  'commands',
  'hooks',
  'devPlugins',
  'flexibleTaxonomy',
  'topicSeparator',
  'repositoryPrefix',
])

function harmlessHooks(hooks: Record<string, unknown> | undefined): boolean {
  return Object.keys(hooks ?? {}).every((k) => HARMLESS_HOOKS.has(k))
}

function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T
}

/**
 * The commands of the plugins named in package.json, from each plugin's own
 * oclif.manifest.json (installed next to us in node_modules); undefined when any plugin
 * could load differently in oclif (not found there, no manifest, a stale one, hooks, topics…).
 */
function pluginCommands(root: string, plugins: string[]): ManifestCommandFull[] | undefined {
  const out: ManifestCommandFull[] = []
  for (const name of plugins) {
    if (typeof name !== 'string' || name.startsWith('.') || name.includes('..')) return undefined
    const dir = join(root, 'node_modules', name)
    const pjson = readJson<PackageJson>(join(dir, 'package.json'))
    const oclif = pjson.oclif ?? {}
    if (Object.keys(oclif).some((k) => !KNOWN_PLUGIN_KEYS.has(k)) || !harmlessHooks(oclif.hooks)) return undefined
    const manifest = readJson<Manifest>(join(dir, 'oclif.manifest.json'))
    if (manifest.version !== pjson.version || !manifest.commands) return undefined
    out.push(...Object.values(manifest.commands))
  }
  return out
}

/** oclif's platform name; undefined when oclif could decide differently (WSL). */
function oclifPlatform(): string | undefined {
  const p = platform()
  if (p === 'linux') {
    if (release().toLowerCase().includes('microsoft') || process.env.WSL_DISTRO_NAME) return undefined
    try {
      if (readFileSync('/proc/version', 'utf8').toLowerCase().includes('microsoft')) return undefined
    } catch {}
  }
  return p
}

function userAgent(pjson: PackageJson): string | undefined {
  const p = oclifPlatform()
  if (!p) return undefined
  const a = arch() === 'ia32' ? 'x86' : arch()
  return `${pjson.name}/${pjson.version || '0.0.0'} ${p}-${a} node-${process.version}`
}

/** Terminal width as oclif computes it for stdout. */
function termWidth(): number {
  const columns = Number.parseInt(process.env.OCLIF_COLUMNS ?? '', 10)
  if (columns) return columns
  if (!process.stdout.isTTY) return 80
  const width = process.stdout.getWindowSize()[0]
  if (width < 1) return 80
  if (width < 40) return 40
  return width
}

/**
 * Whether oclif would print bold headers: true/false when certain, undefined when the
 * decision depends on details (supports-color's CI and terminal tables) left to oclif.
 */
function boldHeaders(): boolean | undefined {
  const env = process.env
  if (env.FORCE_COLOR !== undefined) return undefined
  // ansis (oclif's colouring) turns colour off for any non-empty NO_COLOR.
  if (env.NO_COLOR) return false
  if (env.NO_COLOR !== undefined) return undefined
  if (!process.stdout.isTTY || !process.stderr.isTTY) return false
  if (env.CI !== undefined || env.TF_BUILD || env.TERM === 'dumb' || platform() === 'win32') return undefined
  if (env.COLORTERM !== undefined) return true
  if (/^screen|^xterm|^vt100|^vt220|^rxvt|color|ansi|cygwin|linux/i.test(env.TERM ?? '')) return true
  return undefined
}

function rootHelp(pjson: PackageJson, own: ManifestCommand[], ua: string): string | undefined {
  const oclif = pjson.oclif ?? {}
  const bold = boldHeaders()
  if (bold === undefined) return undefined
  const bin = oclif.bin ?? pjson.name
  const separator = oclif.topicSeparator ?? ':'
  const commands = own.map((c) => ({
    ...c,
    summary: c.summary === undefined ? undefined : template(c.summary, bin),
    description: c.description === undefined ? undefined : template(c.description, bin),
  }))
  if (commands.some((c) => (c.aliases?.length ?? 0) > 0 || (c.hiddenAliases?.length ?? 0) > 0)) return undefined

  const texts: string[] = [oclif.description ?? pjson.description ?? '']
  // Topics: package.json's, then one per prefix of every visible command id (oclif's loadTopics).
  const topics = new Map<string, Topic>()
  for (const [name, t] of Object.entries(oclif.topics ?? {})) {
    if (t.subtopics) return undefined
    topics.set(name, {name, description: t.description, hidden: t.hidden})
  }
  for (const c of commands.filter((c) => !c.hidden)) {
    const parts = c.id.split(':')
    while (parts.length > 0) {
      const name = parts.join(':')
      if (name && !topics.has(name)) topics.set(name, {name, description: c.summary || c.description})
      parts.pop()
    }
  }
  const all = [...topics.values()]
  const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
  const rootTopics = all
    .filter((t) => all.some((s) => s.name.includes(`${t.name}:`)))
    .filter((t) => !t.hidden && !t.name.includes(':'))
    .sort((a, b) => byName(a.name, b.name))
  const rootCommands = commands
    .filter((c) => !c.hidden && c.id && !c.id.includes(':'))
    .sort((a, b) => byName(a.id, b.id))
    .filter((c, i, arr) => i === 0 || arr[i - 1].id !== c.id)

  const topicRows: Array<[string, string | undefined]> = rootTopics.map((t) => [
    t.name.replaceAll(':', separator),
    t.description ? t.description.split('\n')[0] : undefined,
  ])
  const commandRows: Array<[string, string | undefined]> = rootCommands.map((c) => [
    c.id.replaceAll(':', separator),
    summaryLine(c, bin),
  ])
  for (const [l, r] of [...topicRows, ...commandRows]) texts.push(l, r ?? '')
  // Templates (<%= … %>) and wide or escape characters are left to oclif.
  if (texts.some((t) => t.includes('<%') || !narrow(t))) return undefined

  const r = new Renderer(termWidth(), bold)
  const description = texts[0]
  const rest = description.split('\n').slice(1).join('\n')
  const root = [
    description.split('\n')[0],
    r.section('VERSION', r.wrap(ua)),
    r.section('USAGE', r.wrap(`$ ${bin} [COMMAND]`)),
    rest ? r.section('DESCRIPTION', r.wrap(rest)) : '',
  ]
    .filter(Boolean)
    .join('\n\n')
  let out = root + '\n\n'
  if (topicRows.length > 0) out += r.section('TOPICS', r.renderList(topicRows, 2)) + '\n\n'
  if (commandRows.length > 0) out += r.section('COMMANDS', r.renderList(commandRows, 2)) + '\n\n'
  return out
}

/**
 * Answer argv without oclif when that gives exactly oclif's output. Returns true when it
 * printed the answer, false when the caller must run oclif. A command's help needs
 * `commandHelp` from ./fast-help.js (loaded by the caller only then, to keep --version lean).
 */
export function fastStart(
  argv: string[],
  root: string,
  commandHelp?: typeof CommandHelp,
  topicHelp?: typeof TopicHelp,
): boolean {
  if (process.env.BOT_NO_FAST_START) return false
  try {
    const pjson = readJson<PackageJson>(join(root, 'package.json'))
    const oclif = pjson.oclif ?? {}
    if (Object.keys(oclif).some((k) => !KNOWN_OCLIF_KEYS.has(k))) return false
    const helpFlags = ['--help', ...(oclif.additionalHelpFlags ?? [])]
    const isVersion = argv[0] === '--version'
    const isRootHelp = argv.length === 0 || (argv.length === 1 && helpFlags.includes(argv[0]))
    // `bot webhook info --help`: words that name one of our commands, then one help flag.
    const words = argv.slice(0, -1)
    const isCommandHelp =
      argv.length >= 2 &&
      helpFlags.includes(argv.at(-1)!) &&
      words.every((w) => /^[a-z][\w-]*$/.test(w) && w !== 'help')
    if (!isVersion && !isRootHelp && !isCommandHelp) return false
    const ua = userAgent(pjson)
    if (!ua) return false
    if (isVersion) {
      process.stdout.write(ua + '\n')
      return true
    }
    if (!harmlessHooks(oclif.hooks)) return false
    const manifest = readJson<Manifest>(join(root, 'oclif.manifest.json'))
    if (manifest.version !== pjson.version || !manifest.commands) return false
    const fromPlugins = pluginCommands(root, oclif.plugins ?? [])
    if (!fromPlugins) return false
    if (isCommandHelp) {
      if (!commandHelp) return false
      const own = Object.values(manifest.commands)
      const id = words.join(':')
      const command = own.find((c) => c.id === id)
      if (fromPlugins.some((c) => c.id === id || c.id.startsWith(`${id}:`))) return false
      if (!command) {
        // A topic (`bot webhook --help`): only one package.json describes (oclif's own topic list).
        const topic = oclif.topics?.[id]
        const bold = boldHeaders()
        if (!topicHelp || !topic || topic.hidden || topic.subtopics || bold === undefined) return false
        const text = topicHelp(id, topic.description, own, {
          bin: oclif.bin ?? pjson.name,
          separator: oclif.topicSeparator ?? ':',
          width: termWidth(),
          bold,
        })
        if (text === undefined) return false
        process.stdout.write(text)
        return true
      }
      if (boldHeaders() !== false) return false
      const bin = oclif.bin ?? pjson.name
      const text = commandHelp(command, [...own, ...fromPlugins], {
        bin,
        separator: oclif.topicSeparator ?? ':',
        width: termWidth(),
        narrow,
        wrapPlain,
      })
      if (text === undefined) return false
      process.stdout.write(text)
      return true
    }
    const text = rootHelp(pjson, [...Object.values(manifest.commands), ...fromPlugins], ua)
    if (text === undefined) return false
    process.stdout.write(text)
    return true
  } catch {
    return false
  }
}

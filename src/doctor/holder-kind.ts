/**
 * What a process that holds the bot token is: this CLI itself (`bot emulator`, `bot dev`), the bot a
 * `bot dev` session runs, a shell, terminal or editor that merely has BOT_TOKEN in its environment,
 * or a program that may poll — told by its TCP connections (Linux): one connected to the Bot API
 * uses the token; one with no connection does not poll now; one connected elsewhere cannot be told.
 * Only a process connected to the Bot API is one to stop with `kill`.
 */
import {readFile, realpath} from 'node:fs/promises'
import {basename, dirname, isAbsolute, resolve} from 'node:path'

import type {ApiEndpoints} from './api-endpoints.js'
import type {Connections} from '../session-store/proc-net.js'

export type HolderKind =
  /** Connected to the Bot API: it uses the token (a poller, or a bot that sends). */
  | 'api-client'
  /** No TCP connection: it holds the token but does not poll now. */
  | 'idle'
  /** This CLI (`bot emulator`, `bot dev`, …). */
  | 'bot-cli'
  /** The bot a running `bot dev` session started. */
  | 'dev-bot'
  /** A shell, terminal multiplexer or editor with the token in its environment. */
  | 'shell'
  /** Connected elsewhere, or its connections could not be read: cannot tell. */
  | 'unknown'

export interface HolderClass {
  kind: HolderKind
  /** What it is, in words (after the command in the report). */
  what: string
}

/** Programs that carry environment variables for others and never poll a bot themselves. */
const SHELLS = new Set([
  'sh',
  'bash',
  'zsh',
  'dash',
  'fish',
  'ksh',
  'mksh',
  'tcsh',
  'csh',
  'nu',
  'xonsh',
  'elvish',
  'pwsh',
  'tmux',
  'tmux: server',
  'tmux: client',
  'screen',
  'zellij',
  'login',
  'su',
  'sudo',
  'doas',
  'script',
  'sshd',
  'ssh',
  'mosh-server',
  'vi',
  'vim',
  'nvim',
  'emacs',
  'nano',
  'micro',
  'hx',
  'helix',
  'kak',
  'code',
  'code-insiders',
  'cursor',
  'less',
  'more',
  'man',
  'watch',
])

/** The program's name: argv[0]'s file name (a login shell's leading "-" dropped; a process title's first word). */
export function programName(argv: readonly string[]): string {
  const first = argv[0] ?? ''
  const word = argv.length === 1 && first.includes(' ') && !first.startsWith('/') ? first.split(' ')[0] : first
  return basename(word).replace(/^-/, '')
}

export function isShell(argv: readonly string[]): boolean {
  const name = programName(argv)
  return SHELLS.has(name) || SHELLS.has(argv[0] ?? '') || /^(tmux|screen|emacs)/.test(name)
}

const packageNames = new Map<string, Promise<string | undefined>>()

/** The name in `dir`/package.json, cached. */
function packageNameAt(dir: string): Promise<string | undefined> {
  let hit = packageNames.get(dir)
  if (!hit) {
    hit = readFile(resolve(dir, 'package.json'), 'utf8').then(
      (text) => {
        try {
          return String((JSON.parse(text) as {name?: unknown}).name ?? '')
        } catch {
          return undefined
        }
      },
      () => undefined,
    )
    packageNames.set(dir, hit)
  }
  return hit
}

/** This CLI's entry points, relative to its package: the `bot` bin and the development one. */
const ENTRY = /\/bin\/(run|dev)\.js$/

/**
 * When `argv` runs this CLI (a script inside the `bot-cli` package, or its `bot` link), the
 * subcommand: "emulator", "dev", "webhook info", or "" for none. Otherwise undefined.
 */
export async function botCliCommand(argv: readonly string[], cwd: string | undefined): Promise<string | undefined> {
  const candidates = argv
    .slice(0, 4)
    .map((a, i) => ({a, i}))
    .filter(({a, i}) => i === 0 || !a.startsWith('-'))
  for (const {a, i} of candidates) {
    if (!a || (!isAbsolute(a) && !cwd)) continue
    // `bot` on PATH is a link to the package's bin/run.js.
    const file = await realpath(isAbsolute(a) ? a : resolve(cwd!, a)).catch(() => undefined)
    if (!file || !ENTRY.test(file)) continue
    if ((await packageNameAt(dirname(dirname(file)))) !== 'bot-cli') continue
    const words = argv.slice(i + 1).filter((w) => !w.startsWith('-'))
    return words[0] === 'webhook' && words[1] ? `webhook ${words[1]}` : (words[0] ?? '')
  }
  return undefined
}

export interface ClassifyInput {
  argv: readonly string[]
  cwd?: string
  /** The parent's argv and cwd, to recognise the bot a `bot dev` runs. */
  parent?: {pid: number; argv: readonly string[]; cwd?: string}
  /** Undefined when they could not be read, or on a platform where they are not inspected. */
  connections?: Connections
  api?: ApiEndpoints
  /** Why connections are unknown, when they are. */
  noConnections?: string
}

export async function classifyHolder(input: ClassifyInput): Promise<HolderClass> {
  const cli = await botCliCommand(input.argv, input.cwd)
  if (cli !== undefined) {
    const name = `\`bot${cli ? ` ${cli}` : ''}\``
    if (cli === 'emulator')
      return {kind: 'bot-cli', what: `${name}, the local Bot API emulator: it serves this token, it does not poll`}
    if (cli === 'dev')
      return {kind: 'bot-cli', what: `${name}, a dev session for this bot: stop it with Ctrl-C in its terminal`}
    return {kind: 'bot-cli', what: `${name} (this CLI)`}
  }
  if (input.parent && (await botCliCommand(input.parent.argv, input.parent.cwd)) === 'dev')
    return {
      kind: 'dev-bot',
      what: `the bot run by \`bot dev\` (pid ${input.parent.pid}): stop that session with Ctrl-C in its terminal`,
    }
  if (isShell(input.argv))
    return {
      kind: 'shell',
      what: `a shell, terminal or editor (${programName(input.argv)}) with the token in its environment; it does not poll`,
    }
  const c = input.connections
  if (!c)
    return {
      kind: 'unknown',
      what: `cannot tell whether it polls (${input.noConnections ?? 'its connections could not be read'})`,
    }
  const api = input.api
  const toApi = api ? c.remote.filter((e) => api.matches(e)) : []
  if (toApi.length > 0) return {kind: 'api-client', what: `connected to the Bot API (${api!.shown}): it uses the token`}
  if (c.remote.length === 0)
    return {
      kind: 'idle',
      what: `no network connection, so it does not poll (it holds the token, e.g. inherited from the shell that started it)${c.listening.length ? `; it listens on port ${c.listening.join(', ')}` : ''}`,
    }
  const elsewhere = [
    ...new Set(c.remote.map((e) => `${e.address.includes(':') ? `[${e.address}]` : e.address}:${e.port}`)),
  ]
  return {
    kind: 'unknown',
    what: `connected elsewhere (${elsewhere.slice(0, 3).join(', ')}${elsewhere.length > 3 ? ', …' : ''}), not to the Bot API${api ? ` at ${api.shown}` : ''}: cannot tell whether it polls`,
  }
}

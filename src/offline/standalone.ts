/**
 * `bot emulator`: the emulator on its own, for a bot started by hand or by another tool.
 * Starts it, creates the bot, and says (as text lines, printed by the command) how to use it.
 */
import {fileURLToPath} from 'node:url'

import type {BotApiEmulator} from '../emulator/index.js'
import {isLoopbackHost} from '../lib/proxy.js'
import {startOfflineBackend} from './offline-env.js'

/** docs/emulator.md of the installed package (it ships its docs/*.md), as a path that opens. */
export const EMULATOR_DOC = fileURLToPath(new URL('../../docs/emulator.md', import.meta.url))

export interface StandaloneOptions {
  /** Default 8081 (the official local server's port); 0 = a free port. */
  port?: number
  host?: string
  /** Cloud rules (https webhooks, ports 443/80/88/8443) instead of the local server's. Default false. */
  cloud?: boolean
  /** A token of the user's to accept instead of the fake one. */
  token?: string
  /** Username of the bot (default offline_dev_bot). */
  username?: string
  /** Accept every well-formed token (each gets a bot on first use). */
  acceptAnyToken?: boolean
  /** Apply Telegram's flood limits (429 Too Many Requests: retry after N). */
  floodControl?: boolean
  /** Fetch (and set webhooks to) loopback and private addresses even when listening beyond loopback. */
  allowPrivateUrls?: boolean
}

export interface StandaloneEmulator {
  emulator: BotApiEmulator
  apiRoot: string
  bot: {token: string; id: number; username: string}
  /** 'fake': the built-in offline token (no secret, printable); 'user': the one passed in (never printed). */
  tokenSource: 'fake' | 'user'
  local: boolean
  acceptAnyToken: boolean
  floodControl: boolean
  /** It listens on loopback only (the default); otherwise other machines of the network can reach it. */
  loopback: boolean
  /** --allow-private-urls was given. */
  allowPrivateUrls: boolean
  stop(): Promise<void>
}

export async function startStandaloneEmulator(options: StandaloneOptions = {}): Promise<StandaloneEmulator> {
  const local = !options.cloud
  const acceptAnyToken = Boolean(options.acceptAnyToken)
  const backend = await startOfflineBackend({
    port: options.port ?? 8081,
    host: options.host,
    local,
    acceptAnyToken,
    floodControl: Boolean(options.floodControl),
    token: options.token,
    botUsername: options.username,
    ...(options.allowPrivateUrls ? {allowPrivateUrls: true} : {}),
  })
  return {
    emulator: backend.emulator,
    apiRoot: backend.apiRoot,
    bot: backend.bot,
    tokenSource: options.token ? 'user' : 'fake',
    local,
    acceptAnyToken,
    floodControl: Boolean(options.floodControl),
    loopback: isLoopbackHost(new URL(backend.apiRoot).hostname),
    allowPrivateUrls: Boolean(options.allowPrivateUrls),
    stop: backend.stop,
  }
}

/**
 * The one line `bot emulator` prints (on stderr) when it listens beyond loopback: the emulator then serves any host
 * name (docker-compose's `emulator:8081`), and still refuses requests from web pages of other sites.
 */
export function networkWarning(s: StandaloneEmulator): string | undefined {
  if (s.loopback) return undefined
  const urls = s.allowPrivateUrls
    ? 'URLs to loopback and private addresses are fetched and taken as webhooks (--allow-private-urls): anyone on the network can read the loopback services of this machine through it'
    : 'URLs to loopback and private addresses (a file sent by URL, setWebhook) are refused; --allow-private-urls allows them'
  return `! The emulator listens on ${new URL(s.apiRoot).hostname}: it is now reachable from other machines on the network (any host name is served; requests from web pages of other sites are still refused; ${urls}).`
}

/** The one JSON object `bot emulator --json` prints. A token the user passed is not echoed back. */
export function standaloneJson(s: StandaloneEmulator): {
  apiRoot: string
  token?: string
  tokenSource: 'fake' | 'user'
  botId: number
  username: string
  local: boolean
} {
  return {
    apiRoot: s.apiRoot,
    ...(s.tokenSource === 'fake' ? {token: s.bot.token} : {}),
    tokenSource: s.tokenSource,
    botId: s.bot.id,
    username: s.bot.username,
    local: s.local,
  }
}

/** What `bot emulator` prints: where it listens, which token to use, and how to run a bot against it. */
export function describeStandalone(s: StandaloneEmulator, options: {talk?: boolean} = {}): string[] {
  const tokenShown = s.tokenSource === 'fake' ? s.bot.token : '$BOT_TOKEN'
  const lines = [
    `✓ Bot API emulator on ${s.apiRoot} (${s.local ? 'local mode: http webhooks on any port' : 'cloud rules: https webhooks on 443/80/88/8443'})`,
    `  bot     @${s.bot.username} (id ${s.bot.id})`,
    s.tokenSource === 'fake'
      ? `  token   ${s.bot.token}  (fake, not a secret)`
      : '  token   the token you passed (--token)',
  ]
  if (s.acceptAnyToken) lines.push('  any well-formed token is accepted too (each gets its own bot)')
  if (s.floodControl) lines.push('  flood control on: 429 past ~1 message/s per chat, 20/min per group, 30/s in all')
  lines.push(
    '',
    'Run your bot against it:',
    `  BOT_API_ROOT=${s.apiRoot} BOT_TOKEN=${tokenShown} node your-bot.js`,
    '  (grammY: new Bot(token, {client: {apiRoot}}); Telegraf: {telegram: {apiRoot}}; GramIO: {api: {baseURL: `${apiRoot}/bot`}})',
  )
  // With --talk the chat introduces itself ("Chatting with the bot as …"); without, say how to get it.
  lines.push(
    '',
    ...(options.talk
      ? []
      : [`Talk to the bot from the terminal with \`bot emulator --talk\`, or from tests: see ${EMULATOR_DOC}.`]),
    'Ctrl-C stops the emulator.',
  )
  return lines
}

/**
 * `bot emulator`'s old spellings, before parsing: `--chat` with no id (it was the chat mode, now
 * `--talk`; it now takes a chat id, as in `bot dev --offline`), `--chat-id` and `--user-id` (now
 * `--chat` and `--user`). Undefined when the arguments use none of them.
 */
export function oldEmulatorFlag(argv: readonly string[]): {message: string; fix: string} | undefined {
  for (const [i, arg] of argv.entries()) {
    if (arg === '--') return undefined
    const renamed = /^--(chat|user)-id(?:=(.*))?$/.exec(arg)
    if (renamed) {
      const given = renamed[2] ?? argv[i + 1]
      const value = given !== undefined && /^-?\d+$/.test(given) ? given : 'ID'
      return {
        message: `--${renamed[1]}-id is now --${renamed[1]} (the same name as in \`bot dev --offline\`).`,
        fix: `Run e.g. \`bot emulator --talk --${renamed[1]} ${value}\`.`,
      }
    }
    if (
      arg === '--chat' &&
      (argv[i + 1] === undefined || (argv[i + 1].startsWith('-') && !/^-\d+$/.test(argv[i + 1])))
    ) {
      if (argv.includes('--talk'))
        return {
          message: '--chat needs a chat id.',
          fix: "Run e.g. `bot emulator --talk --chat 42` (a negative id is a group), or leave --chat out for the user's private chat.",
        }
      return {
        message: '--chat now takes a chat id (as in `bot dev --offline`); the terminal chat is --talk.',
        fix: 'Run `bot emulator --talk` (add --chat ID or --user ID to choose the ids).',
      }
    }
  }
  return undefined
}

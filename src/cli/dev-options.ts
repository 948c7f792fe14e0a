/**
 * `bot dev`'s flags as the options of the session it runs (online: dev/, offline: offline/). The
 * checks that need no network run first (dev-input.ts, ports.ts), so bad input exits 2 with one
 * line and a fix before anything is sent, set or started. The services below never see a flag name.
 */
import {dirname, relative, resolve} from 'node:path'

import type {BotCommand} from '../dev/bot/command.js'
import type {DevSessionOptions} from '../dev/options.js'
import {interactiveTerminal} from '../lib/ci.js'
import {UsageError} from '../lib/errors.js'
import type {OfflineDevOptions} from '../offline/dev-offline.js'
import {SECRET_RE, stateDir, stateFolderProblem} from '../session-store/state.js'
import type {BotApi} from '../telegram/index.js'
import {chooseTunnelProvider, publicUrlProvider, validatePublicUrl, type TunnelProvider} from '../tunnel/index.js'
import {validateAllowedUpdates, validateMaxConnections, validateSecretToken} from '../webhook/validate.js'
import {checkDevInput, commandAfterDashes} from './dev-input.js'
import {sourceOf} from './config.js'
import {findPackageJson} from './package-config.js'
import {checkInspectPort, checkPorts} from './ports.js'

/** The flags of `bot dev` this module reads (src/commands/dev.ts declares them). */
export interface DevFlags {
  mode: string
  tunnel: string
  fallback: boolean
  'tunnel-host'?: string
  'forward-to'?: string
  'web-app'?: string
  subdomain?: string
  'public-url'?: string
  'relay-port'?: number
  port?: number
  watch: boolean
  ignore?: string[]
  force: boolean
  'restore-secret'?: string
  'allowed-updates'?: string
  'max-connections'?: number
  'drop-pending-updates': boolean
  'hold-timeout': number
  offline: boolean
  'api-proxy': boolean
  inspect: boolean
  'inspect-port'?: number
  chat?: number
  user?: number
  'tunnel-retries': number
  'tunnel-timeout': number
  'tunnel-backoff': number
  'probe-interval': number
  'tunnel-down-after': number
  'stop-grace': number
  'abandon-timeout'?: number
  'action-timeout': number
  'open-code-ttl': number
  'reply-timeout': number
  'webhook-check': number
  'poller-check': boolean
  'wait-for-fix'?: boolean
  debounce: number
}

/** Someone can fix a crashed bot here: stdin is a terminal and CI is not set. */
export function atTerminal(stdin: {isTTY?: boolean} = process.stdin, env: NodeJS.ProcessEnv = process.env): boolean {
  return interactiveTerminal([stdin], env)
}

/** A bot that exits early ends the session unless someone can fix it (or --wait-for-fix says to wait anyway). */
function endOnEarlyExit(flags: DevFlags, terminal: boolean): boolean {
  return flags['wait-for-fix'] === undefined ? !terminal : !flags['wait-for-fix']
}

/**
 * The bot command's words: what follows `--`, else package.json's "bot".dev.command; undefined
 * for the default (the dev:bot script, the entry file). A word before `--` is refused.
 */
export function botCommandWords(argv: string[], positional: string[], fromPackage?: string[]): string[] | undefined {
  const afterDashes = commandAfterDashes(argv)
  if (positional.length > (afterDashes?.length ?? 0))
    throw new UsageError(
      `Unexpected argument ${JSON.stringify(positional[0])}: the bot command must follow \`--\`.`,
      'Run e.g. `bot dev -- node bot.js`.',
    )
  return afterDashes ?? fromPackage
}

/**
 * Where the bot runs: a command from package.json (its "bot".dev.command, the dev:bot script, the
 * entry file) runs in the package's folder, as `npm run` does, wherever `bot dev` was started; a
 * command after `--` runs in the current folder, as typed. `note` says so when the two differ.
 */
export function botFolder(cwd: string, argv: string[]): {cwd: string; note?: string} {
  const pkg = findPackageJson(cwd)
  if (commandAfterDashes(argv) !== undefined || !pkg) return {cwd}
  const root = dirname(pkg)
  if (resolve(root) === resolve(cwd)) return {cwd}
  return {
    cwd: root,
    note: `Running in ${root}, the folder of package.json (the bot command comes from there), not in the current folder ${relative(root, cwd) || cwd}.`,
  }
}

/**
 * `--forward-to URL`: the user's own server, an http URL (the relay speaks plain http on this
 * machine or network), in webhook mode, with no bot command after `--`. Its secret is WEBHOOK_SECRET
 * from the environment or .env when set (the server reads the same), checked like Telegram checks it.
 */
export function forwardTarget(
  flags: Pick<DevFlags, 'forward-to' | 'mode'>,
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
): DevSessionOptions['forwardTo'] {
  const given = flags['forward-to']
  if (given === undefined) return undefined
  let url: URL
  try {
    url = new URL(given)
  } catch {
    throw new UsageError(
      `--forward-to ${JSON.stringify(given)} is not a URL.`,
      'Give the URL your server takes webhooks on, e.g. --forward-to http://localhost:3000/webhook.',
    )
  }
  if (url.protocol !== 'http:' || !url.hostname || url.username || url.password || url.hash)
    throw new UsageError(
      `--forward-to ${given} must be a plain http:// URL (no credentials, no #fragment): bot dev forwards over http to a server on this machine or your network.`,
      'E.g. --forward-to http://localhost:3000/webhook (the public side, https, is the tunnel or --public-url).',
    )
  if (flags.mode !== 'webhook')
    throw new UsageError(
      '--forward-to delivers webhooks to your server, so it needs webhook mode, not --mode polling.',
      'Drop --mode polling (and "mode" in package.json\'s "bot".dev section).',
    )
  if (commandAfterDashes(argv) !== undefined)
    throw new UsageError(
      '--forward-to runs no bot, but a bot command follows `--`.',
      'Either run your server yourself and keep --forward-to, or drop --forward-to to let bot dev run the command.',
    )
  // Offline, the emulator's bot takes the server's BOT_TOKEN (a well-formed one), so both share it.
  const token = env.BOT_TOKEN && TOKEN_RE.test(env.BOT_TOKEN) ? {token: fromWhere('BOT_TOKEN')} : {}
  const value = env.WEBHOOK_SECRET
  if (value === undefined || value === '') return {url: url.href, ...token}
  const from = fromWhere('WEBHOOK_SECRET')
  if (!SECRET_RE.test(value))
    throw new UsageError(
      `WEBHOOK_SECRET${from === '.env' ? ' in .env' : ''} is not a valid secret token: 1-256 characters of A-Z, a-z, 0-9, _ and -.`,
      'Change it (your server checks the same value), or remove it and bot dev uses one it keeps for this bot.',
    )
  return {url: url.href, secret: {value, from}, ...token}
}

const TOKEN_RE = /^\d{1,20}:[A-Za-z0-9_-]{30,}$/

function fromWhere(name: string): 'env' | '.env' {
  return sourceOf(name, [], name.toLowerCase()) === '.env' ? '.env' : 'env'
}

/** Everything about the flags that can be checked before the session starts (exit 2 when wrong). */
export async function checkDevFlags(flags: DevFlags, argv: string[]): Promise<void> {
  checkDevInput({
    argv,
    holdTimeout: flags['hold-timeout'],
    nonEmpty: {
      'public-url': [flags['public-url'], 'BOT_PUBLIC_URL'],
      'tunnel-host': [flags['tunnel-host'], 'BOT_TUNNEL_HOST'],
      subdomain: [flags.subdomain, 'BOT_TUNNEL_SUBDOMAIN'],
    },
  })
  webAppFromFlags(flags)
  // The webhook secret and the session's files live there: a folder another user owns or can write is refused.
  const unsafe = stateFolderProblem(stateDir())
  if (unsafe) throw new UsageError(unsafe)
  await checkPorts({port: flags.port, relayPort: flags['relay-port']})
  await checkInspectPort(flags['inspect-port'], {
    port: flags.port,
    relayPort: flags['relay-port'],
    inspect: flags.inspect,
  })
}

/**
 * --web-app URL: the web app's own dev server on this machine (http or https on a loopback host, no credentials,
 * query or fragment), served through the session's public URL at `/app/`. Offline there is no public URL: refused.
 */
export function webAppFromFlags(flags: Pick<DevFlags, 'web-app' | 'offline'>): DevSessionOptions['webApp'] {
  const given = flags['web-app']
  if (given === undefined) return undefined
  const example =
    "E.g. --web-app http://localhost:5173 (your app's dev server on this machine; bot dev serves it at /app/ of the session's public URL)."
  let url: URL
  try {
    url = new URL(given)
  } catch {
    throw new UsageError(`--web-app ${JSON.stringify(given.slice(0, 80))} is not a URL.`, example)
  }
  const host = url.hostname.replace(/^\[|\]$/g, '')
  const loopback = host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host)
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password || url.search || url.hash)
    throw new UsageError(
      `--web-app ${given.slice(0, 80)} must be a plain http(s) URL of your app's dev server (no credentials, query or #fragment).`,
      example,
    )
  if (!loopback)
    throw new UsageError(
      `--web-app ${given.slice(0, 80)} is not on this machine: it takes your app's local dev server (localhost, 127.0.0.1 or [::1]).`,
      example,
    )
  if (flags.offline)
    throw new UsageError(
      "--web-app serves your dev server through the session's public URL, and --offline has none.",
      "Drop --offline to try the app in Telegram, or drop --web-app: offline, the chat page (w) opens a web_app button's app itself, through its own loopback proxy.",
    )
  return {url: url.href}
}

/**
 * How webhook mode gets its updates: --public-url, else --tunnel (auto: cloudflared when it can
 * run, localtunnel when --tunnel-host/--subdomain ask for it or cloudflared is missing; none: the
 * bridge). A tunnel falls back to the bridge unless it was named explicitly with --no-fallback.
 */
export function deliveryFromFlags(
  flags: DevFlags,
  env: NodeJS.ProcessEnv = process.env,
): {tunnel?: TunnelProvider; bridge?: boolean; fallback: boolean} {
  if (flags['public-url']) {
    if (flags.tunnel !== 'auto')
      throw new UsageError(
        `--public-url and --tunnel ${flags.tunnel} both say how updates arrive.`,
        'Pass one of them: --public-url for your own URL, --tunnel for a tunnel or none.',
      )
    return {tunnel: publicUrlProvider(validatePublicUrl(flags['public-url'])), fallback: false}
  }
  const provider = chooseTunnelProvider(flags.tunnel, env, {
    host: flags['tunnel-host'],
    subdomain: flags.subdomain,
    downAfterMs: flags['tunnel-down-after'],
  })
  if (!provider) return {bridge: true, fallback: false}
  return {tunnel: provider, fallback: flags.tunnel === 'auto' || flags.fallback}
}

/** What the online session needs besides the flags. */
export interface OnlineContext {
  api: BotApi
  token: string
  apiRoot: string
  /** api.telegram.org: its stricter setWebhook rules apply. */
  cloud: boolean
  /** Absent with --forward-to (no bot process). */
  command: BotCommand | undefined
  forwardTo: DevSessionOptions['forwardTo']
  cwd: string
  /** stdin is a terminal (and not CI): see atTerminal. */
  terminal: boolean
}

/**
 * BOT_DEV_RESTART: how the bot restarts in webhook mode ('stop-first' is the order before restarts
 * started the new bot first; bench/restart.ts measures both). Unset: the default.
 */
export function restartOrder(env: NodeJS.ProcessEnv = process.env): DevSessionOptions['restartOrder'] {
  const value = env.BOT_DEV_RESTART
  if (value === undefined || value === '') return undefined
  if (value === 'start-first' || value === 'stop-first') return value
  throw new UsageError(
    `BOT_DEV_RESTART is ${JSON.stringify(value.slice(0, 40))}, which is not a restart order.`,
    'Set BOT_DEV_RESTART=stop-first (stop the old bot before starting the new one) or start-first, or unset it.',
  )
}

/** The online session's options from the flags (validated: exit 2 on a bad value). */
export function sessionOptions(
  flags: DevFlags,
  c: OnlineContext,
): Omit<DevSessionOptions, 'onEvent' | 'signal' | 'handleSignals'> {
  const mode = flags.mode as 'webhook' | 'polling'
  const delivery = mode === 'webhook' ? deliveryFromFlags(flags) : undefined
  return {
    api: c.api,
    token: c.token,
    apiRoot: c.apiRoot,
    passApiRoot: !c.cloud,
    mode,
    tunnel: delivery?.tunnel,
    bridge: delivery?.bridge,
    fallback: delivery?.fallback,
    webhookCheckMs: flags['webhook-check'],
    checkPollers: flags['poller-check'],
    relayPort: flags['relay-port'],
    command: c.command,
    forwardTo: c.forwardTo,
    webApp: webAppFromFlags(flags),
    cwd: c.cwd,
    port: flags.port,
    watch: flags.watch,
    ...(flags.ignore?.length ? {watchIgnore: flags.ignore} : {}),
    endOnEarlyExit: endOnEarlyExit(flags, c.terminal),
    debounceMs: flags.debounce,
    force: flags.force,
    restoreSecret: flags['restore-secret'] !== undefined ? validateSecretToken(flags['restore-secret']) : undefined,
    allowedUpdates:
      flags['allowed-updates'] !== undefined ? validateAllowedUpdates(flags['allowed-updates']) : undefined,
    maxConnections:
      flags['max-connections'] !== undefined
        ? validateMaxConnections(flags['max-connections'], {cloud: c.cloud})
        : undefined,
    dropPendingUpdates: flags['drop-pending-updates'],
    holdTimeoutMs: flags['hold-timeout'] * 1000,
    stopGraceMs: flags['stop-grace'],
    restartOrder: restartOrder(),
    abandonTimeoutMs: flags['abandon-timeout'],
    actionTimeoutMs: flags['action-timeout'],
    tunnelRetries: flags['tunnel-retries'],
    tunnelOpenTimeoutMs: flags['tunnel-timeout'],
    tunnelBackoffMs: flags['tunnel-backoff'],
    probeIntervalMs: flags['probe-interval'],
    apiProxy: flags['api-proxy'],
    inspect: flags.inspect,
    inspectPort: flags['inspect-port'],
    openCodeTtlMs: flags['open-code-ttl'],
  }
}

/** The offline session's options from the flags (the terminal chat and the emulator are the CLI's to add). */
export function offlineOptions(
  flags: DevFlags,
  command: BotCommand | undefined,
  cwd: string,
  terminal: boolean,
  forwardTo?: DevSessionOptions['forwardTo'],
  env: NodeJS.ProcessEnv = process.env,
): Omit<OfflineDevOptions, 'input' | 'onEvent' | 'handleSignals'> {
  return {
    mode: flags.mode as 'webhook' | 'polling',
    command,
    forwardTo,
    ...(forwardTo?.token ? {botToken: env.BOT_TOKEN} : {}),
    cwd,
    port: flags.port,
    relayPort: flags['relay-port'],
    watch: flags.watch,
    ...(flags.ignore?.length ? {watchIgnore: flags.ignore} : {}),
    endOnEarlyExit: endOnEarlyExit(flags, terminal),
    debounceMs: flags.debounce,
    allowedUpdates:
      flags['allowed-updates'] !== undefined ? validateAllowedUpdates(flags['allowed-updates']) : undefined,
    maxConnections: flags['max-connections'],
    dropPendingUpdates: flags['drop-pending-updates'],
    holdTimeoutMs: flags['hold-timeout'] * 1000,
    stopGraceMs: flags['stop-grace'],
    restartOrder: restartOrder(env),
    abandonTimeoutMs: flags['abandon-timeout'],
    actionTimeoutMs: flags['action-timeout'],
    chatId: flags.chat,
    userId: flags.user,
    replyTimeoutMs: flags['reply-timeout'] * 1000,
    apiProxy: flags['api-proxy'],
    inspect: flags.inspect,
    inspectPort: flags['inspect-port'],
    openCodeTtlMs: flags['open-code-ttl'],
  }
}

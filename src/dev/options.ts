/** What a `bot dev` session is given (the CLI builds it from flags; tests build it directly). */
import type {BotApi, User} from '../telegram/index.js'
import type {TunnelProvider} from '../tunnel/types.js'
import type {BotMode} from './bot/process.js'
import type {BotCommand} from './bot/command.js'
import type {DevEventSink} from './events.js'
import type {OfflineTarget} from '../control/actions.js'
import type {InspectorServerOptions} from '../inspector/web/server.js'

/** A page mounted in the inspector (the chat page). */
export type ChatPageMount = NonNullable<InspectorServerOptions['chat']>

export interface DevSessionOptions {
  /** Bot API client for the user's token (or the emulator's). */
  api: BotApi
  /** getMe already under way (the CLI starts it while it loads the session's modules); default: the token part calls it. */
  me?: Promise<User>
  /** The token given to the bot (BOT_TOKEN); never printed or stored. */
  token: string
  /** The api root the bot should use; passed as BOT_API_ROOT unless `passApiRoot` is false. */
  apiRoot: string
  passApiRoot?: boolean
  mode: BotMode
  /** Webhook mode: how the relay becomes reachable (a tunnel provider, a public URL, loopback)… */
  tunnel?: TunnelProvider
  /** …or no public URL at all: the polling bridge (`--tunnel none`). */
  bridge?: boolean
  /** A tunnel that cannot be opened or kept is replaced by the bridge. Default false. */
  fallback?: boolean
  /** The user's bot (absent with `forwardTo`: no bot process is started). */
  command?: BotCommand
  /**
   * No bot process: the user runs their own server (in a debugger, a container, another language).
   * The relay forwards each update to `url` (http) with the secret header; `secret` is the one that
   * server checks (WEBHOOK_SECRET from the environment or .env), else the per-bot secret is used and
   * the session says how to hand it over without printing it.
   */
  forwardTo?: {
    url: string
    secret?: {value: string; from: 'env' | '.env'}
    /** Offline: where the emulator's bot token came from (the server's BOT_TOKEN); absent: the fake one. */
    token?: 'env' | '.env'
  }
  cwd: string
  /**
   * The `bot:` line of a chat script saved in this session (`:save`, the inspector's "Save as chat script"): the
   * bot command when it is not what `bot test` runs by default (src/cli/script-command.ts); absent: no `bot:`.
   */
  scriptCommand?: string
  /** The bot's PORT (webhook mode); default a free port. */
  port?: number
  /** The relay's port (what the tunnel forwards to); default a free port. */
  relayPort?: number
  watch?: boolean
  /** More to leave out of the file watch, in .gitignore's syntax relative to `cwd` (--ignore, package.json). */
  watchIgnore?: string[]
  /**
   * Nobody can fix the bot here (stdin is not a terminal, or CI): a bot that exits before it is up,
   * or within 5 s of a (re)start, ends the session (its exit code, else 1) instead of waiting for a
   * file change. Default false.
   */
  endOnEarlyExit?: boolean
  debounceMs?: number
  force?: boolean
  restoreSecret?: string
  allowedUpdates?: string[]
  maxConnections?: number
  dropPendingUpdates?: boolean
  holdTimeoutMs?: number
  /** SIGTERM → SIGKILL grace for the bot. Default 3000. */
  stopGraceMs?: number
  /**
   * How the bot restarts in webhook mode: 'start-first' (default: the new bot on a fresh PORT, the old
   * one stopped once it listens) or 'stop-first' (the old one stopped before the new one starts, as
   * polling mode and --port always do). `BOT_DEV_RESTART=stop-first` asks for it (benchmarks).
   */
  restartOrder?: 'start-first' | 'stop-first'
  /** How long a new bot started beside the old one gets to listen on its fresh port (see bot/runner.ts). Default 10000. */
  overlapTimeoutMs?: number
  /** How long a trigger or replay waits for the bot's answer. Default 30000 (the control port waits 35 s). */
  actionTimeoutMs?: number
  /**
   * A second Ctrl-C: how long the parts get to let go (the bot killed, the webhook deleted if it can be) before the
   * process exits. Default 2000.
   */
  abandonTimeoutMs?: number
  /** Upper bound of the whole teardown. Default 10000. */
  teardownTimeoutMs?: number
  tunnelOpenTimeoutMs?: number
  tunnelRetries?: number
  tunnelBackoffMs?: number
  probeIntervalMs?: number
  /** Watch the tunnel (probes and 'down'); default: on for opened tunnels. */
  monitorTunnel?: boolean
  /** getWebhookInfo every this many ms while our webhook is in use. Default 20000. */
  webhookCheckMs?: number
  /** Look for another poller before taking the updates (costs ~1 s, in parallel with the tunnel). Default false; `bot dev` turns it on. */
  checkPollers?: boolean
  /** Warn when the bot has not opened PORT after this long. Default 30000. */
  slowStartMs?: number
  stateDir?: string
  /**
   * Where what outlives a session is kept: the update history's log and the webhook secret (default:
   * stateDir). Offline (whose state folder is temporary): a folder per project.
   */
  keepDir?: string
  /**
   * Offline: an update about to be handed to the bot directly (a trigger or replay through the relay,
   * past the emulator): the emulator learns its chats first, as Telegram knows every chat it delivers from.
   */
  beforeInject?: (update: Record<string, unknown>) => void
  /** Give the bot an api proxy that records its calls as BOT_API_ROOT (default true; `--no-api-proxy`). */
  apiProxy?: boolean
  /** Serve the inspector page on loopback (default true; `--no-inspect`), on this port (default a free one). */
  inspect?: boolean
  inspectPort?: number
  /** How long a one-time inspector link of `o`/`:o` stays valid (default 60000 ms). */
  openCodeTtlMs?: number
  /**
   * The chat page the inspector serves at `/chat` (src/chat/server.ts, made by `bot dev --offline` for its emulator):
   * given the inspector's key, its request handler.
   */
  chatPage?: (key: string) => Promise<ChatPageMount>
  /** Offline sessions: `bot trigger` speaks as the emulator's user. */
  offline?: OfflineTarget
  /** Where the control record for `bot trigger`/`bot replay` goes (default: stateDir). */
  controlDir?: string
  /**
   * `--web-app URL`: the web app's own dev server (http(s), on this machine), served through the session's public
   * URL at `/app/` (the relay), the bot's default menu button set to it for the session, WEB_APP_URL given to the bot.
   */
  webApp?: {url: string}
  /** Extra variables for the bot's environment. */
  env?: Record<string, string>
  onEvent: DevEventSink
  /** Install SIGINT/SIGTERM/SIGHUP handlers for the session's lifetime. */
  handleSignals?: boolean
  /** Stop the session when this aborts. */
  signal?: AbortSignal
}

/** How long a second Ctrl-C lets the parts let go (DevSessionOptions.abandonTimeoutMs). */
export function abandonWindow(o: Pick<DevSessionOptions, 'abandonTimeoutMs'>): number {
  return o.abandonTimeoutMs ?? 2000
}

/**
 * The parts of a `bot dev` session and what they share. The session is the list of its parts
 * (parts.ts: the token check, the claim on the bot, the recording, the api proxy, the inspector
 * page, the control port, the relay, the bot, the webhook, the delivery, the watcher); the runner (session.ts)
 * starts them in order and stops the started ones in reverse, once, each within its budget. A part
 * leaves what later parts need on the context (each field names the part that sets it) and tells
 * the runner what happened through `ctx.events`; the runner decides what follows (Ready, a
 * restart, a swap).
 */
import {randomBytes} from 'node:crypto'
import {EventEmitter} from 'node:events'

import type {SessionState} from '../session-store/state.js'
import {writeState} from '../session-store/state.js'
import type {User} from '../telegram/index.js'
import type {BotRunner} from './bot/runner.js'
import type {Delivery, DeliveryContext} from './delivery/types.js'
import type {StopReason} from './ending.js'
import type {DevEventSink, StepId} from './events.js'
import type {DevSessionOptions} from './options.js'
import type {PollerFound} from './poller-check.js'
import type {SessionRecording} from './recording.js'
import type {Relay} from './relay/relay.js'
import {SessionMenuButton} from './menu-button.js'
import {APP_PATH} from './relay/app.js'
import {joinUrl} from './webhook/operations.js'
import {SessionWebhook} from './webhook/session-webhook.js'

export interface SessionPart {
  readonly name: string
  /** Start it; what later parts need goes on the context. Rejects when the session cannot go on. */
  start(ctx: SessionContext): Promise<void>
  /**
   * Undo what start did: called once, in reverse order, for every part whose start was called, also
   * one whose start failed (it undoes what it got to). Default: nothing to undo.
   */
  stop?(): Promise<void>
  /** The least time stop gets, even when the teardown's deadline has passed (ms; default 200). */
  readonly stopMinMs?: number
  /**
   * A second Ctrl-C: let go at once (kill, remove, forget); the runner calls every started part's
   * abandon together, the last started first, and waits a moment for them (so one may wait for what
   * a later part lets go: the claim for the webhook's quick clean).
   */
  abandon?(): Promise<void> | void
  /**
   * The part that takes this one's place when it reports itself lost (`ctx.events` 'lost' with this
   * part), or when its start fails with a ReplaceablePartError: the tunnel's is the polling bridge.
   * Undefined: the session stops instead.
   */
  fallback?(reason: string): SessionPart | undefined
  /**
   * Before the fallback starts: give back what this part holds outside (the tunnel, the webhook it
   * set). False when that failed and the fallback must not start (the runner then stops the session).
   */
  handOver?(): Promise<boolean>
  /**
   * The bot turned out to poll for updates itself (the api proxy saw its getUpdates in a webhook
   * session): the part that takes this one's place, the polling delivery (after this one's
   * handOver). Undefined: nothing to switch.
   */
  pollingSuccessor?(): SessionPart | undefined
}

/** A part could not start, but its fallback may (a tunnel that cannot be opened: the bridge). */
export class ReplaceablePartError extends Error {
  constructor(message: string, options?: {cause?: unknown}) {
    super(message, options)
    this.name = 'ReplaceablePartError'
  }
}

export interface SessionEvents {
  /** The bot listens on PORT (webhook mode) or was started (polling). */
  'bot-up': []
  /** The bot exited without being asked to. */
  'bot-exit': []
  /**
   * Source files changed: restart the bot. `more`: they changed in the same burst (one save) as
   * those of the call before, after it (the bot that restart started may have read them as they were).
   */
  'files-changed': [files: string[], more: boolean]
  /** Someone asked for a restart (a key in the terminal, `:r` in the offline chat). */
  'restart-requested': [why: string]
  /** A part cannot go on (the tunnel is gone for good): replace it with its fallback, or stop. */
  lost: [part: SessionPart, reason: string]
  /** An update failed or was held for long: a good moment to look at the webhook. */
  stall: []
  /**
   * The bot called getUpdates (seen by the api proxy, which holds the call until `letThrough`): in
   * a webhook session the runner switches to polling delivery first, so the call meets no 409.
   */
  'bot-polls': [letThrough: () => void]
  /** The session's webhook URL is (being) set: at start, and again when a reopened tunnel has a new URL. */
  'webhook-url': [url: string]
}

export class SessionContext {
  readonly events = new EventEmitter<SessionEvents>()
  /** Put into the bot's environment (BOT_DEV_SESSION), so a later session can tell our bot from a reused pid. */
  readonly marker = randomBytes(8).toString('hex')
  /** Our hold on the bot's webhook at Telegram (set, delete, restore). */
  readonly webhook: SessionWebhook
  /** Our hold on the bot's default menu button (--web-app: set to the app, restored on exit). */
  readonly menuButton: SessionMenuButton
  readonly stateDir: string

  /** token: the bot. */
  me: User | undefined
  /** claim: a dead session's record, repaired by webhook-check. */
  previous: SessionState | undefined
  /** webhook-check (webhook mode): the webhook's secret_token (the relay checks it) and its random path. */
  webhookSecret = ''
  webhookPath = ''
  /** recording: the update history, the failing-call lines and the trigger engine behind trigger/replay. */
  recording: SessionRecording | undefined
  /** api-proxy: the bot's BOT_API_ROOT when its calls go through the recording proxy. */
  botApiRoot: string | undefined
  /** inspector: the page's address (with its key). */
  inspectorUrl: string | undefined
  /** inspector: a one-time address for a browser `bot dev` starts (no key in its public argv). */
  inspectorOpenUrl: (() => string) | undefined
  /** inspector: the chat page's address (with the key): offline over the emulator, online over the session's record. */
  chatUrl: string | undefined
  /** inspector: a one-time address of the chat page for a browser `bot dev` starts (`w`, `:w`). */
  chatOpenUrl: (() => string) | undefined
  /** poller-check: another program long-polling this bot, looked for while the session starts until the answer is asked for. */
  pollers: {answer(): Promise<PollerFound | undefined>} | undefined
  /** relay: the relay and the bot's PORT. */
  relay: Relay | undefined
  botPort = 0
  /** bot: the user's bot process, restarted on change. */
  runner: BotRunner | undefined
  /** forward (--forward-to): the user's own server gets the updates; no bot process. */
  forwardTo: string | undefined
  /** delivery: how updates reach the bot now (tunnel, bridge or the bot's own polling). */
  delivery: Delivery | undefined
  /** watcher: files are watched. */
  watching = false
  /** The bot was seen polling (its getUpdates): no webhook is set from now on, the session switches to polling. */
  botPolls = false

  /**
   * Settles once the session's webhook URL is known (the tunnel delivery is setting it), or the
   * delivery's start ended without one (the bridge, a failure): the bot's first start in tunnel
   * mode waits for it, so WEBHOOK_URL is in its env from the first start.
   */
  readonly webhookUrlKnown: Promise<void>
  urlSettled: () => void = () => {}

  #state: SessionState | undefined
  readonly #stopReason: () => StopReason | undefined

  constructor(
    readonly options: DevSessionOptions,
    readonly signal: AbortSignal,
    readonly emit: DevEventSink,
    stopReason: () => StopReason | undefined,
  ) {
    this.#stopReason = stopReason
    this.stateDir = options.stateDir as string
    this.webhookUrlKnown = new Promise<void>((resolve) => {
      this.urlSettled = resolve
    })
    this.webhook = new SessionWebhook({
      api: options.api,
      secret: () => this.webhookSecret,
      maxConnections: options.maxConnections,
      allowedUpdates: options.allowedUpdates,
      dropPendingUpdates: options.dropPendingUpdates,
      restoreSecret: options.restoreSecret,
      saveState: (patch) => this.saveState(patch),
      onUrl: (url) => {
        this.urlSettled()
        this.events.emit('webhook-url', url)
      },
    })
    this.menuButton = new SessionMenuButton(options.api, (patch) => this.saveState(patch))
  }

  /**
   * Where the app is served, the session's public URL + `/app/` (WEB_APP_URL), once the tunnel delivery has one:
   * --web-app's dev server, else the bot's own `/app/` (the relay forwards both, relay/app.ts); `webhookUrl` (a new
   * webhook URL being set) gives it for that URL. Undefined without a public URL, and with --forward-to (no bot).
   */
  webAppUrl(webhookUrl?: string): string | undefined {
    if (!this.options.webApp && this.options.forwardTo) return undefined
    if (webhookUrl !== undefined && this.webhookPath && webhookUrl.endsWith(this.webhookPath))
      return joinUrl(webhookUrl.slice(0, -this.webhookPath.length), APP_PATH)
    const delivery = this.delivery
    if (delivery?.name !== 'tunnel' || !delivery.url) return undefined
    return joinUrl(delivery.url, APP_PATH)
  }

  get api(): DevSessionOptions['api'] {
    return this.options.api
  }

  get stopReason(): StopReason | undefined {
    return this.#stopReason()
  }

  /** Throws when the session is stopping (between steps of a start). */
  check(): void {
    if (this.signal.aborted) throw this.signal.reason
  }

  /** The session's state file, once claimed (claim part); later patches are written through. */
  claimed(state: SessionState): void {
    this.#state = state
  }

  saveState(patch: Partial<SessionState>): void {
    if (!this.#state) return
    this.#state = {...this.#state, ...patch}
    for (const key of Object.keys(patch) as Array<keyof SessionState>)
      if (patch[key] === undefined) delete this.#state[key]
    writeState(this.#state, this.stateDir)
  }

  /** A start-up step: a `start` line, then `ok` with the text of its value, or `fail`. */
  async step<T>(step: StepId, startText: string, fn: () => Promise<T>, okText: (value: T) => string): Promise<T> {
    this.emit({type: 'step', step, status: 'start', text: startText})
    try {
      const value = await fn()
      this.emit({type: 'step', step, status: 'ok', text: okText(value)})
      return value
    } catch (error) {
      if (!this.signal.aborted || this.stopReason === 'error')
        this.emit({type: 'step', step, status: 'fail', text: `${startText.replace(/…$/, '')}: failed`})
      throw error
    }
  }

  /** What a delivery may use of the session. */
  deliveryContext(): DeliveryContext {
    const o = this.options
    return {
      api: o.api,
      token: o.token,
      signal: this.signal,
      emit: this.emit,
      webhook: this.webhook,
      relay: this.relay,
      webhookPath: this.webhookPath,
      webhookSecret: this.webhookSecret,
      maxConnections: o.maxConnections,
      allowedUpdates: o.allowedUpdates,
      dropPendingUpdates: o.dropPendingUpdates,
      botPolls: () => this.botPolls,
      // The early check for another poller is read once (a swapped-in bridge does not warn again).
      pollers: () => {
        const found = this.pollers?.answer() ?? Promise.resolve(undefined)
        this.pollers = undefined
        return found
      },
      step: (id, text, fn, ok) => this.step(id, text, fn, ok),
    }
  }
}

/**
 * A `bot dev` session: the lifecycle around the user's bot.
 *
 * Start-up: getMe → session state (refuse a live session, repair a dead one) → getWebhookInfo
 * (refuse a foreign webhook unless forced) → relay → bot (in parallel with) tunnel → setWebhook
 * → watch. Every resource registers its cleanup as it is created; teardown runs them in reverse
 * order, once, bounded by a deadline: watcher, tunnel keeper, webhook (delete or restore),
 * tunnel, bot, relay, state file.
 *
 * One AbortController per session; stop() (or a signal) aborts start-up steps and starts the
 * teardown; a second signal exits at once but still tries to delete the webhook.
 *
 * Everything injectable (the BotApi client, the tunnel provider, the event sink) so the offline
 * mode can run the same session against the emulator with the loopback provider.
 */
import {randomBytes} from 'node:crypto'
import {readFileSync} from 'node:fs'
import {constants as osConstants} from 'node:os'

import {FixableError} from '../lib/errors.js'
import type {BotApi, User, WebhookInfo} from '../telegram/index.js'
import type {Tunnel, TunnelProvider} from '../tunnel/types.js'
import {BotProcess, botEnv, type BotExit, type BotMode} from './bot-process.js'
import type {BotCommand} from './command.js'
import type {DevEvent, DevEventSink, StepId} from './events.js'
import {Relay, type RelayRejectedEvent, type RelayUpdateEvent} from './relay.js'
import {claimState, isPidAlive, loadOrCreateSecret, readState, removeState, stateDir as defaultStateDir, writeState, type ReplacedWebhook, type SessionState} from './state.js'
import {TunnelKeeper} from './tunnel-keeper.js'
import {watchProject} from './watch.js'
import {classifyWebhook, deleteDevWebhook, describeWebhook, foreignWebhookError, joinUrl, randomWebhookPath, restoreWebhook, setDevWebhook} from './webhook.js'

export interface DevSessionOptions {
  /** Bot API client for the user's token (or the emulator's). */
  api: BotApi
  /** The token given to the bot (BOT_TOKEN); never printed or stored. */
  token: string
  /** The api root the bot should use; passed as BOT_API_ROOT unless `passApiRoot` is false. */
  apiRoot: string
  passApiRoot?: boolean
  mode: BotMode
  /** How the relay becomes reachable (webhook mode): localtunnel, a public URL, loopback. */
  tunnel?: TunnelProvider
  command: BotCommand
  cwd: string
  /** The bot's PORT (webhook mode); default a free port. */
  port?: number
  /** The relay's port (what the tunnel forwards to); default a free port. */
  relayPort?: number
  watch?: boolean
  debounceMs?: number
  force?: boolean
  restoreSecret?: string
  allowedUpdates?: string[]
  maxConnections?: number
  dropPendingUpdates?: boolean
  holdTimeoutMs?: number
  /** SIGTERM → SIGKILL grace for the bot. Default 3000. */
  stopGraceMs?: number
  /** Upper bound of the whole teardown. Default 10000. */
  teardownTimeoutMs?: number
  tunnelOpenTimeoutMs?: number
  tunnelRetries?: number
  tunnelBackoffMs?: number
  probeIntervalMs?: number
  /** Watch the tunnel (probes and 'down'); default: on for localtunnel only. */
  monitorTunnel?: boolean
  /** Warn when the bot has not opened PORT after this long. Default 30000. */
  slowStartMs?: number
  stateDir?: string
  /** Extra variables for the bot's environment. */
  env?: Record<string, string>
  onEvent: DevEventSink
  /** Install SIGINT/SIGTERM/SIGHUP handlers for the session's lifetime. */
  handleSignals?: boolean
  /** Stop the session when this aborts. */
  signal?: AbortSignal
}

export interface DevSummary {
  relayed: number
  failures: number
  rejected: number
  /** Telegram's retries of updates the bot had already answered (answered again, not re-sent to the bot). */
  repeats: number
  restarts: number
  durationMs: number
  exitCode: number
  reason: string
  mode: BotMode
}

interface Cleanup {
  name: string
  run: () => Promise<void>
  /** Minimum time this step gets even when the teardown deadline has passed. */
  minMs?: number
}

type StopReason = 'SIGINT' | 'SIGTERM' | 'SIGHUP' | 'bot-exit' | 'aborted' | 'error' | 'stop'

const SIGNAL_EXIT: Record<string, number> = {SIGINT: 130, SIGTERM: 143, SIGHUP: 129}

function signalExitCode(signal: string | null): number {
  if (!signal) return 1
  const n = (osConstants.signals as Record<string, number>)[signal]
  return n ? 128 + n : 1
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

function clock(iso: string): string {
  return iso.slice(11, 19)
}

/** One `bot dev` run. `run()` resolves with the summary once everything is cleaned up. */
export class DevSession {
  readonly #o: DevSessionOptions
  readonly #controller = new AbortController()
  readonly #cleanups: Cleanup[] = []
  readonly #started = performance.now()
  #emit: DevEventSink
  #stopReason: StopReason | undefined
  #stopRequested!: () => void
  readonly #stopPromise = new Promise<void>((resolve) => {
    this.#stopRequested = resolve
  })
  #teardown: Promise<void> | undefined
  #forceExit: ((code: number) => void) | undefined
  #stateDir: string
  #me: User | undefined
  #state: SessionState | undefined
  #mode: BotMode
  #relay: Relay | undefined
  #keeper: TunnelKeeper | undefined
  #tunnel: Tunnel | undefined
  #port = 0
  #secret = ''
  #path = ''
  #webhookUrl: string | undefined
  /** Our webhook is currently set at Telegram. */
  #webhookSet = false
  #webhookCleanFailed = false
  #webhookRestored = false
  #replaced: ReplacedWebhook | undefined
  #bot: BotProcess | undefined
  #lastExit: BotExit | undefined
  #crashed = false
  #restarts = 0
  #restarting: Promise<void> | undefined
  #restartQueued: string[] | undefined
  #watching = false
  #marker = randomBytes(8).toString('hex')
  #signalHandlers: Array<[NodeJS.Signals, () => void]> = []
  #readyEmitted = false
  #startedUp = false

  constructor(options: DevSessionOptions) {
    this.#o = options
    this.#emit = (event: DevEvent) => {
      try {
        options.onEvent(event)
      } catch {
        // a broken sink must not break the session
      }
    }
    this.#mode = options.mode
    this.#stateDir = options.stateDir ?? defaultStateDir()
  }

  get signal(): AbortSignal {
    return this.#controller.signal
  }

  /** Ask the session to end (teardown follows). Safe to call many times. */
  stop(reason: StopReason = 'stop'): void {
    if (this.#stopReason) return
    this.#stopReason = reason
    this.#controller.abort(new Error(`stopped (${reason})`))
    this.#stopRequested()
  }

  async run(): Promise<DevSummary> {
    if (this.#o.handleSignals) this.#installSignals()
    const external = this.#o.signal
    const onExternalAbort = () => this.stop('aborted')
    if (external?.aborted) this.stop('aborted')
    else external?.addEventListener('abort', onExternalAbort, {once: true})
    // A second signal (see #emergency) ends the run at once, even during start-up or teardown.
    const forcedExit = new Promise<number>((resolve) => {
      this.#forceExit = resolve
    })
    try {
      let startError: unknown
      const lifetime = (async () => {
        try {
          await this.#startUp()
        } catch (error) {
          if (!this.#stopReason) {
            startError = error
            this.#stopReason = 'error'
            this.#controller.abort(error)
          }
        }
        if (!startError) await this.#stopPromise
        return -1
      })()
      let forced = await Promise.race([lifetime, forcedExit])
      if (forced < 0) forced = await Promise.race([this.#runTeardown().then(() => -1), forcedExit])
      if (startError && forced < 0) throw startError
      const summary = this.#summary(forced >= 0 ? forced : this.#exitCode())
      this.#emit({type: 'summary', ...summary, text: this.#summaryText(summary)})
      return summary
    } finally {
      external?.removeEventListener('abort', onExternalAbort)
      this.#removeSignals()
    }
  }

  // ── start-up ─────────────────────────────────────────────────────────────

  async #step<T>(step: StepId, startText: string, fn: () => Promise<T>, okText: (value: T) => string): Promise<T> {
    this.#emit({type: 'step', step, status: 'start', text: startText})
    try {
      const value = await fn()
      this.#emit({type: 'step', step, status: 'ok', text: okText(value)})
      return value
    } catch (error) {
      if (!this.#controller.signal.aborted || this.#stopReason === 'error')
        this.#emit({type: 'step', step, status: 'fail', text: `${startText.replace(/…$/, '')}: failed`})
      throw error
    }
  }

  #check(): void {
    if (this.#controller.signal.aborted) throw this.#controller.signal.reason
  }

  async #startUp(): Promise<void> {
    const o = this.#o
    const signal = this.#controller.signal
    if (this.#mode === 'webhook' && !o.tunnel) throw new Error('webhook mode needs a tunnel provider')

    const me = await this.#step('token', 'Checking the token…', () => o.api.getMe({signal}), (u) => `Bot @${u.username ?? u.id} (id ${u.id})`)
    this.#me = me
    this.#check()

    const previous = await this.#step('session', 'Checking for another `bot dev` on this bot…', async () => this.#claimSession(), (p) =>
      p ? `Previous session (pid ${p.pid}) ended without cleaning up` : 'No other session',
    )
    this.#check()

    await this.#step('webhook-check', 'Reading the current webhook…', async () => this.#checkWebhook(previous), (text) => text)
    this.#check()

    if (this.#mode === 'webhook') await this.#startWebhookMode()
    else await this.#startPollingMode()
    this.#check()

    if (o.watch) {
      await this.#step(
        'watch',
        'Starting the file watcher…',
        async () => {
          const watcher = watchProject({
            cwd: o.cwd,
            debounceMs: o.debounceMs,
            onChange: (files) => void this.#restart(files),
            onError: (error) => this.#emit({type: 'warn', text: `File watching failed: ${error.message}`}),
          })
          this.#register('watch', () => watcher.close())
          await watcher.ready
          this.#watching = true
        },
        () => `Watching ${o.cwd} for changes (node_modules, dist and .git ignored)`,
      )
    }
    this.#startedUp = true
    this.#maybeReady()
  }

  /** Refuse when another live session owns this bot; return a dead one's state (to repair). */
  #claimSession(): SessionState | undefined {
    const me = this.#me!
    const fresh = (): SessionState => ({
      version: 1,
      botId: me.id,
      ...(me.username ? {botUsername: me.username} : {}),
      pid: process.pid,
      startedAt: new Date().toISOString(),
      cwd: this.#o.cwd,
      mode: this.#mode,
      apiRoot: this.#o.apiRoot,
    })
    for (let attempt = 0; attempt < 3; attempt++) {
      const existing = readState(me.id, this.#stateDir)
      if (existing && existing.pid !== process.pid && isPidAlive(existing.pid)) {
        throw new FixableError(
          `Another \`bot dev\` is already running for @${me.username ?? me.id}: pid ${existing.pid}, started ${existing.startedAt} in ${existing.cwd}.`,
          {code: 'session_running', fix: `Stop it first (Ctrl-C in its terminal, or \`kill ${existing.pid}\`): two sessions would fight over the webhook.`},
        )
      }
      if (existing) {
        // Dead: keep its record for the repair, and take over the file.
        const state: SessionState = {...fresh(), ...(existing.webhook ? {webhook: existing.webhook} : {}), ...(existing.replaced ? {replaced: existing.replaced} : {})}
        writeState(state, this.#stateDir)
        this.#state = state
        this.#registerState()
        return existing
      }
      const state = fresh()
      if (claimState(state, this.#stateDir)) {
        this.#state = state
        this.#registerState()
        return undefined
      }
    }
    throw new FixableError(`Could not claim the session file in ${this.#stateDir}.`, {fix: 'Another `bot dev` is starting for this bot; try again.'})
  }

  #registerState(): void {
    this.#register('state', async () => {
      if (this.#webhookCleanFailed) return // keep the record so the next run (or bot doctor) can repair
      removeState(this.#me!.id, this.#stateDir)
    })
  }

  #saveState(patch: Partial<SessionState>): void {
    if (!this.#state) return
    this.#state = {...this.#state, ...patch}
    for (const key of Object.keys(patch) as Array<keyof SessionState>) if (patch[key] === undefined) delete this.#state[key]
    writeState(this.#state, this.#stateDir)
  }

  async #checkWebhook(previous: SessionState | undefined): Promise<string> {
    const o = this.#o
    const signal = this.#controller.signal
    let info: WebhookInfo = await o.api.getWebhookInfo({signal})
    let repairedText = ''
    if (previous) {
      this.#killOrphan(previous)
      if (classifyWebhook(info, previous) === 'ours') {
        // The dead session's webhook is still set: put back what it replaced, or delete it.
        try {
          if (previous.replaced) await restoreWebhook(o.api, previous.replaced, o.restoreSecret)
          else await deleteDevWebhook(o.api)
        } catch (error) {
          this.#webhookCleanFailed = true // keep the record for the next try
          throw error
        }
        const what = previous.replaced ? `restored the webhook it had replaced (${previous.replaced.url})` : 'deleted its webhook (pending updates kept)'
        this.#emit({
          type: 'repaired',
          pid: previous.pid,
          text: `Repaired: the previous \`bot dev\` (pid ${previous.pid}, started ${previous.startedAt}) died and left its webhook set; ${what}.`,
        })
        repairedText = ' (repaired a dead session)'
        this.#saveState({webhook: undefined, replaced: undefined})
        info = await o.api.getWebhookInfo({signal})
      } else this.#saveState({webhook: undefined, replaced: undefined})
    }
    const owner = classifyWebhook(info, undefined)
    if (owner === 'none') return `No webhook set: the bot is on long polling${repairedText}`
    if (!o.force) throw foreignWebhookError(info, this.#mode)
    this.#replaced = describeWebhook(info)
    this.#saveState({replaced: this.#replaced})
    if (this.#replaced.hasCustomCertificate)
      this.#emit({type: 'warn', text: 'The webhook being replaced uses a self-signed certificate, which cannot be read back: it will be restored without it.', fix: 'Run `bot webhook set … --certificate FILE` after this session.'})
    if (!o.restoreSecret)
      this.#emit({type: 'warn', text: 'No --restore-secret / BOT_RESTORE_SECRET: the replaced webhook will be restored without a secret_token.', fix: 'Pass --restore-secret with the production secret if your server checks it.'})
    return `Taking over the webhook ${info.url} for this session (--force); it is restored on exit`
  }

  /** Stop a bot process left behind by a session killed with SIGKILL (only if its env carries that session's marker). */
  #killOrphan(previous: SessionState): void {
    const bot = previous.bot
    if (!bot || process.platform !== 'linux' || !isPidAlive(bot.pid)) return
    try {
      const environ = readFileSync(`/proc/${bot.pid}/environ`, 'utf8')
      if (!environ.split('\0').includes(`BOT_DEV_SESSION=${bot.marker}`)) return
      process.kill(-bot.pid, 'SIGTERM')
      this.#emit({type: 'info', text: `Stopped the bot process (pid ${bot.pid}) left running by that session.`})
    } catch {
      // not ours or already gone
    }
  }

  async #startWebhookMode(): Promise<void> {
    const o = this.#o
    const signal = this.#controller.signal
    this.#secret = loadOrCreateSecret(this.#me!.id, this.#stateDir)
    this.#path = randomWebhookPath()
    if (o.port !== undefined) this.#port = o.port
    else {
      const {default: getPort} = await import('get-port')
      this.#port = await getPort({host: '127.0.0.1'})
    }

    const relay = await this.#step(
      'relay',
      'Starting the relay…',
      async () => {
        const r = new Relay({
          secret: this.#secret,
          path: this.#path,
          holdTimeoutMs: o.holdTimeoutMs,
          port: o.relayPort,
          onUpdate: (e) => this.#emit({type: 'update', ...e, text: this.#updateText(e)}),
          onRejected: (e) => this.#emit({type: 'rejected', ...e, text: this.#rejectedText(e)}),
        })
        await r.listen()
        return r
      },
      (r) => `Relay on http://127.0.0.1:${r.port} → bot on port ${this.#port}`,
    )
    this.#relay = relay
    this.#register('relay', () => relay.close())
    this.#register('bot', () => this.#stopBot(), 1000)
    this.#check()

    // The bot starts while the tunnel opens; the relay holds updates until it listens.
    this.#launch()

    const keeper = new TunnelKeeper({
      provider: o.tunnel!,
      port: relay.port,
      healthPath: relay.healthPath,
      expect: relay.nonce,
      monitor: o.monitorTunnel ?? o.tunnel!.name === 'localtunnel',
      probeIntervalMs: o.probeIntervalMs,
      retries: o.tunnelRetries,
      backoffMs: o.tunnelBackoffMs,
      openTimeoutMs: o.tunnelOpenTimeoutMs,
      signal,
      onDown: (error) => this.#emit({type: 'tunnel-down', error, text: `! The tunnel is down (${error ?? 'no reason given'}); reconnecting…`}),
      onRetry: (attempt, of, delayMs, error) =>
        this.#emit({type: 'tunnel-retry', attempt, of, delayMs, error, text: `  tunnel attempt ${attempt}/${of}${delayMs ? ` in ${(delayMs / 1000).toFixed(1)}s` : ''}${error ? ` (last error: ${error})` : ''}`}),
      onReconnected: async (tunnel) => {
        const url = joinUrl(tunnel.url, this.#path)
        await this.#setWebhook(url)
        this.#tunnel = tunnel
        this.#emit({type: 'tunnel-reconnected', url: tunnel.url, text: `✓ Tunnel back at ${tunnel.url}; webhook updated`})
      },
      onGiveUp: (error) => void this.#fallbackToPolling(error),
    })
    this.#keeper = keeper
    const name = o.tunnel!.name
    const tunnel = await this.#step(
      'tunnel',
      name === 'loopback' ? 'Using loopback (no tunnel)…' : name === 'public-url' ? 'Using your public URL (no tunnel)…' : `Opening a tunnel (${name})…`,
      () => keeper.open(),
      (t) => (name === 'loopback' ? `Loopback URL ${t.url} (no tunnel)` : name === 'public-url' ? `Public URL ${t.url} → relay port ${relay.port}` : `Tunnel ${t.url}`),
    )
    this.#tunnel = tunnel
    this.#register('tunnel', () => keeper.close(), 2000)
    this.#check()

    const url = joinUrl(tunnel.url, this.#path)
    const prefix = new URL(tunnel.url).pathname.replace(/\/+$/, '')
    if (prefix) relay.addAlias(prefix + this.#path)
    this.#register('webhook', () => this.#cleanWebhook(), 3000)
    await this.#step('webhook', 'Setting the webhook…', () => this.#setWebhook(url), () => `Webhook set to ${tunnel.url}/webhook/… with a secret token${o.dropPendingUpdates ? ' (pending updates dropped, as asked)' : ''}`)
    this.#register('tunnel-keeper', async () => keeper.stop())
    this.#maybeReady()
  }

  async #setWebhook(url: string): Promise<void> {
    const o = this.#o
    // Recorded before the call: a crash right after it still leaves a repairable record.
    const record = {url, ...(o.maxConnections !== undefined ? {maxConnections: o.maxConnections} : {}), ...(o.allowedUpdates ? {allowedUpdates: o.allowedUpdates} : {})}
    this.#saveState({webhook: record, mode: 'webhook'})
    // From here on, exit deletes it (deleting an absent webhook is harmless).
    this.#webhookSet = true
    await setDevWebhook(o.api, {
      url,
      secret: this.#secret,
      maxConnections: o.maxConnections,
      allowedUpdates: o.allowedUpdates,
      dropPendingUpdates: o.dropPendingUpdates && !this.#webhookUrl,
      signal: this.#controller.signal.aborted ? undefined : this.#controller.signal,
    })
    this.#webhookUrl = url
  }

  async #startPollingMode(): Promise<void> {
    const o = this.#o
    // Teardown stops the poller before restoring a webhook (else its getUpdates gets 409).
    if (this.#replaced) this.#register('webhook', () => this.#cleanWebhook(), 3000)
    this.#register('bot', () => this.#stopBot(), 1000)
    if (this.#replaced) {
      await this.#step('webhook', 'Deleting the webhook (pending updates kept)…', () => deleteDevWebhook(o.api, {signal: this.#controller.signal}), () => 'Webhook deleted for this session (restored on exit)')
    } else if (o.dropPendingUpdates) {
      await o.api.deleteWebhook({drop_pending_updates: true}, {signal: this.#controller.signal})
      this.#emit({type: 'info', text: 'Pending updates dropped, as asked (--drop-pending-updates).'})
    }
    this.#check()
    this.#launch()
  }

  // ── the bot ──────────────────────────────────────────────────────────────

  #launch(): BotProcess {
    const o = this.#o
    const mode = this.#mode
    const env = {
      ...botEnv({
        token: o.token,
        apiRoot: o.passApiRoot === false ? undefined : o.apiRoot,
        mode,
        port: this.#port,
        webhookPath: this.#path,
        webhookSecret: this.#secret,
        webhookUrl: this.#webhookUrl ?? (this.#tunnel ? joinUrl(this.#tunnel.url, this.#path) : undefined),
        marker: this.#marker,
      }),
      ...o.env,
    }
    const bot = new BotProcess({
      command: o.command,
      cwd: o.cwd,
      env,
      onOutput: (stream, line) => this.#emit({type: 'bot-output', stream, line, text: line}),
    })
    this.#bot = bot
    this.#crashed = false
    this.#saveState({bot: bot.pid > 0 ? {pid: bot.pid, marker: this.#marker} : undefined})
    this.#emit({type: 'bot-start', pid: bot.pid, mode, command: o.command.display, text: `▶ ${o.command.display} (${bot.pid > 0 ? `pid ${bot.pid}, ` : ''}${mode === 'webhook' ? `webhook mode, PORT=${this.#port}` : 'long polling'})`})
    void bot.exited.then((exit) => this.#onBotExit(bot, exit))
    if (mode === 'webhook') {
      const started = performance.now()
      void bot
        .waitListening(this.#port, {
          signal: this.#controller.signal,
          slowAfterMs: o.slowStartMs,
          onSlow: () =>
            this.#emit({
              type: 'warn',
              text: `The bot has not opened port ${this.#port} after ${Math.round((o.slowStartMs ?? 30_000) / 1000)}s; updates are being held.`,
              fix: 'In webhook mode the bot must serve POST process.env.WEBHOOK_PATH on process.env.PORT (see `bot dev --help`).',
            }),
        })
        .then((host) => {
          if (!host || this.#bot !== bot || !bot.alive || bot.stopping) return
          this.#relay?.setTarget({host, port: this.#port, path: this.#path})
          this.#emit({type: 'bot-listening', port: this.#port, host, ms: Math.round(performance.now() - started), text: `✓ Bot listening on port ${this.#port} (${Math.round(performance.now() - started)} ms)`})
          this.#maybeReady()
        })
    }
    return bot
  }

  #onBotExit(bot: BotProcess, exit: BotExit): void {
    if (bot !== this.#bot) return
    this.#relay?.setTarget(undefined)
    this.#lastExit = exit
    if (exit.expected) return
    const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`
    const crashed = exit.code !== 0
    this.#crashed = crashed
    const text = exit.spawnError
      ? `✗ Could not start the bot (${this.#o.command.display}): ${exit.spawnError}.`
      : `${crashed ? '✗' : '■'} The bot ${how}${exit.code === 127 ? ' (command not found?)' : ''}.`
    this.#emit({type: 'bot-exit', code: exit.code, signal: exit.signal, crashed, text})
    if (this.#stopReason) return
    if (this.#o.watch) this.#emit({type: 'info', text: 'Waiting for a file change to restart it (updates are held, then answered 503 so Telegram retries).'})
    else this.stop('bot-exit')
  }

  async #stopBot(): Promise<void> {
    const bot = this.#bot
    if (!bot) return
    this.#relay?.setTarget(undefined)
    const exit = await bot.stop(this.#o.stopGraceMs ?? 3000)
    if (bot === this.#bot) this.#lastExit = this.#lastExit && !bot.alive && !exit.expected ? this.#lastExit : exit
  }

  async #restart(files: string[], why?: string): Promise<void> {
    if (this.#stopReason) return
    if (this.#restarting) {
      this.#restartQueued = [...(this.#restartQueued ?? []), ...files]
      return this.#restarting
    }
    this.#restarting = (async () => {
      const shown = files.slice(0, 3).join(', ') + (files.length > 3 ? ` and ${files.length - 3} more` : '')
      this.#emit({type: 'restart', files, text: why ?? `↻ ${shown} changed; restarting the bot (updates are held meanwhile)`})
      this.#restarts++
      await this.#stopBot()
      if (this.#stopReason) return
      this.#launch()
    })()
    try {
      await this.#restarting
    } finally {
      this.#restarting = undefined
    }
    const queued = this.#restartQueued
    this.#restartQueued = undefined
    if (queued && !this.#stopReason) await this.#restart(queued)
  }

  #maybeReady(): void {
    if (this.#readyEmitted || this.#stopReason || !this.#startedUp) return
    if (this.#mode === 'webhook' && (!this.#webhookUrl || !this.#relay?.target)) return
    if (!this.#bot) return
    this.#readyEmitted = true
    const o = this.#o
    const url = this.#tunnel?.url
    this.#emit({
      type: 'ready',
      mode: this.#mode,
      ...(url ? {url} : {}),
      ...(this.#mode === 'webhook' ? {port: this.#port} : {}),
      command: o.command.display,
      text:
        this.#mode === 'webhook'
          ? `Ready: updates reach the bot through ${url}${this.#watching ? '; restarting on file changes' : ''}. Ctrl-C stops and puts the bot back on long polling.`
          : `Ready: the bot runs on long polling${this.#watching ? '; restarting on file changes' : ''}. Ctrl-C stops.`,
    })
  }

  // ── tunnel loss ──────────────────────────────────────────────────────────

  async #fallbackToPolling(error: string | undefined): Promise<void> {
    if (this.#stopReason || this.#mode === 'polling') return
    this.#emit({
      type: 'fallback',
      mode: 'polling',
      text: `✗ The tunnel could not be reopened (${error ?? 'unknown error'}). Switching to long polling: the webhook is deleted (pending updates kept) and the bot restarts with BOT_MODE=polling. Restart \`bot dev\` to get webhook mode back.`,
    })
    this.#mode = 'polling'
    this.#relay?.setTarget(undefined)
    for (let attempt = 0; attempt < 3 && this.#webhookSet && !this.#stopReason; attempt++) {
      try {
        await deleteDevWebhook(this.#o.api, {timeoutMs: 5000})
        this.#webhookSet = false
        this.#saveState({webhook: undefined, mode: 'polling'})
      } catch (e) {
        this.#emit({type: 'warn', text: `deleteWebhook failed: ${errorMessage(e)}`})
      }
    }
    if (this.#webhookSet) {
      this.#emit({type: 'warn', text: 'The webhook could not be deleted, so long polling would get 409; stopping.', fix: 'Run `bot webhook delete`, then `bot dev --mode polling`.'})
      this.stop('error')
      return
    }
    await this.#restart([], '↻ Restarting the bot with BOT_MODE=polling')
  }

  // ── teardown ─────────────────────────────────────────────────────────────

  #register(name: string, run: () => Promise<void>, minMs?: number): void {
    this.#cleanups.push({name, run, minMs})
  }

  async #cleanWebhook(): Promise<void> {
    const o = this.#o
    if (this.#replaced) {
      if (this.#webhookRestored) return
      await restoreWebhook(o.api, this.#replaced, o.restoreSecret, {timeoutMs: 3000})
      this.#webhookSet = false
      this.#webhookRestored = true
      this.#emit({type: 'teardown', step: 'webhook', ok: true, text: `✓ Restored the previous webhook ${this.#replaced.url}${o.restoreSecret ? ' with its secret' : ''}`})
      return
    }
    if (!this.#webhookSet) return
    await deleteDevWebhook(o.api, {timeoutMs: 3000})
    this.#webhookSet = false
    this.#emit({type: 'teardown', step: 'webhook', ok: true, text: '✓ Webhook deleted (pending updates kept): the bot is back on long polling'})
  }

  #runTeardown(): Promise<void> {
    this.#teardown ??= (async () => {
      this.#controller.abort(new Error('teardown'))
      const deadline = performance.now() + (this.#o.teardownTimeoutMs ?? 10_000)
      const steps = [...this.#cleanups].reverse()
      this.#cleanups.length = 0
      for (const step of steps) {
        const budget = Math.max(deadline - performance.now(), step.minMs ?? 200)
        let timer: NodeJS.Timeout | undefined
        try {
          await Promise.race([
            step.run(),
            new Promise<never>((_, reject) => {
              timer = setTimeout(() => reject(new Error(`timed out after ${Math.round(budget)} ms`)), budget)
            }),
          ])
        } catch (error) {
          if (step.name === 'webhook') {
            this.#webhookCleanFailed = true
            this.#emit({
              type: 'teardown',
              step: step.name,
              ok: false,
              text: `✗ Could not ${this.#replaced ? 'restore' : 'delete'} the webhook: ${errorMessage(error)}`,
            })
            this.#emit({type: 'warn', text: 'The webhook still points at this (now closed) session.', fix: 'Run `bot webhook delete` (pending updates kept) or `bot dev` again, which repairs it.'})
          } else this.#emit({type: 'teardown', step: step.name, ok: false, text: `! ${step.name} cleanup: ${errorMessage(error)}`})
        } finally {
          clearTimeout(timer)
        }
      }
    })()
    return this.#teardown
  }

  /** Second Ctrl-C: kill the bot, try once (quickly) to delete/restore the webhook, exit. */
  async #emergency(signal: NodeJS.Signals): Promise<void> {
    this.#emit({type: 'warn', text: `${signal} again: exiting now.`})
    this.#bot?.kill()
    let code = SIGNAL_EXIT[signal] ?? 1
    if (this.#webhookSet || (this.#replaced && !this.#webhookRestored)) {
      try {
        if (this.#replaced) await restoreWebhook(this.#o.api, this.#replaced, this.#o.restoreSecret, {timeoutMs: 1500})
        else await deleteDevWebhook(this.#o.api, {timeoutMs: 1500})
        this.#webhookSet = false
        if (this.#replaced) this.#webhookRestored = true
        this.#emit({type: 'teardown', step: 'webhook', ok: true, text: this.#replaced ? '✓ Restored the previous webhook' : '✓ Webhook deleted (pending updates kept)'})
        removeState(this.#me!.id, this.#stateDir)
      } catch (error) {
        this.#webhookCleanFailed = true
        this.#emit({type: 'warn', text: `Could not delete the webhook: ${errorMessage(error)}`, fix: 'Run `bot webhook delete` (pending updates kept) or `bot dev` again, which repairs it.'})
        code = code || 1
      }
    } else if (this.#me) removeState(this.#me.id, this.#stateDir)
    void this.#relay?.close()
    void this.#keeper?.close().catch(() => {})
    this.#forceExit?.(code)
  }

  #installSignals(): void {
    for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as NodeJS.Signals[]) {
      const handler = () => {
        if (!this.#stopReason) this.stop(sig as StopReason)
        else void this.#emergency(sig)
      }
      process.on(sig, handler)
      this.#signalHandlers.push([sig, handler])
    }
  }

  #removeSignals(): void {
    for (const [sig, handler] of this.#signalHandlers) process.off(sig, handler)
    this.#signalHandlers = []
  }

  // ── results ──────────────────────────────────────────────────────────────

  #exitCode(): number {
    const reason = this.#stopReason
    const exit = this.#lastExit
    if (reason === 'bot-exit' || this.#crashed) {
      if (!exit) return 1
      return exit.code ?? signalExitCode(exit.signal)
    }
    if (reason === 'error') return 1
    if (!exit) return reason && SIGNAL_EXIT[reason] ? SIGNAL_EXIT[reason] : 0
    // Stopped by us: an exit code is the bot's answer; our own signal is not a failure.
    if (exit.code !== null) return exit.code
    return 0
  }

  #summary(exitCode: number): DevSummary {
    const stats = this.#relay?.stats ?? {relayed: 0, failures: 0, rejected: 0, repeats: 0}
    return {
      relayed: stats.relayed,
      failures: stats.failures,
      rejected: stats.rejected,
      repeats: stats.repeats,
      restarts: this.#restarts,
      durationMs: Math.round(performance.now() - this.#started),
      exitCode,
      reason: this.#stopReason ?? 'stop',
      mode: this.#mode,
    }
  }

  #summaryText(s: DevSummary): string {
    const secs = s.durationMs / 1000
    const duration = secs < 60 ? `${secs.toFixed(1)}s` : `${Math.floor(secs / 60)}m${Math.round(secs % 60)}s`
    const parts = [`${s.relayed} update${s.relayed === 1 ? '' : 's'} relayed`, `${s.failures} failure${s.failures === 1 ? '' : 's'}`]
    if (s.rejected) parts.push(`${s.rejected} rejected`)
    if (s.repeats) parts.push(`${s.repeats} repeated by Telegram (answered without the bot)`)
    if (s.restarts) parts.push(`${s.restarts} restart${s.restarts === 1 ? '' : 's'}`)
    return `■ bot dev ended after ${duration}: ${parts.join(', ')}; exit code ${s.exitCode}.`
  }

  #updateText(e: RelayUpdateEvent): string {
    const id = e.updateId !== undefined ? `#${e.updateId}` : '#?'
    const chat = e.chatId !== undefined ? ` chat ${e.chatId}` : ''
    const preview = e.preview !== undefined ? ` ${JSON.stringify(e.preview)}` : ''
    const held = e.heldMs > 50 ? `, held ${e.heldMs} ms` : ''
    const mark = e.repeat ? '↺' : e.status >= 200 && e.status < 300 ? '←' : '✗'
    const repeat = e.repeat ? ' (sent again by Telegram: the bot already answered it; same answer returned, the bot does not see it twice)' : ''
    return `${clock(e.time)} ${mark} ${id} ${e.updateType ?? 'update'}${chat}${preview} → ${e.status} ${e.ms} ms${held}${repeat}${e.error ? ` (${e.error})` : ''}`
  }

  #rejectedText(e: RelayRejectedEvent): string {
    const why = e.reason === 'secret' ? 'wrong or missing secret token' : e.reason === 'path' ? 'unknown path' : e.reason === 'method' ? 'not a POST' : 'body too large'
    return `${clock(e.time)} ✗ refused ${e.method} ${e.reason === 'path' ? e.path : '(webhook path)'} → ${e.status} (${why}; not forwarded)`
  }
}

/** Run a dev session to its end. */
export function runDevSession(options: DevSessionOptions): Promise<DevSummary> {
  return new DevSession(options).run()
}


/**
 * A `bot dev` session: a short supervisor over the user's bot (bot-runner.ts), the relay
 * (relay.ts) and ONE delivery (delivery/: tunnel + webhook, the polling bridge, or the bot's own
 * long polling). A tunnel that cannot be opened or kept is replaced by the bridge: "swap the
 * delivery", the bot untouched.
 *
 * Start-up: getMe → session state (refuse a live session, repair a dead one: repair.ts) →
 * getWebhookInfo (refuse a foreign webhook unless forced) → relay → bot (in parallel with) the
 * delivery → watch. Every resource registers its cleanup as it is created (teardown.ts); they run
 * in reverse order, once, bounded by a deadline. A second signal exits at once but still tries to
 * delete the webhook. The ending (teardown lines, the second signal, the summary): session-end.ts;
 * the current delivery and its swap for the bridge: session-delivery.ts.
 */
import {randomBytes} from 'node:crypto'

import type {User} from '../telegram/index.js'
import {BotRunner} from './bot/runner.js'
import {createDelivery, DeliveryStartError, type DeliveryContext} from './delivery/index.js'
import type {DevEvent, DevEventSink, StepId} from './events.js'
import {SessionDelivery} from './session-delivery.js'
import {cleanWebhook, emergencyExit, runTeardown, sessionSummary} from './session-end.js'
import {freshState, type DevSessionOptions, type StopReason} from './session-options.js'
import type {Relay} from './relay/relay.js'
import {startRelay} from './relay/start.js'
import {readyText, summaryText, type DevSummary} from './render.js'
import {checkWebhook, claimSession} from './repair.js'
import {recordTunnelProcess} from './orphan.js'
import {findRunningPoller, type PollerFound} from './poller-check.js'
import {SessionInspector} from './session-inspector.js'
import {SessionWebhook} from './webhook/session-webhook.js'
import {
  loadOrCreateSecret,
  removeRestoreSecret,
  removeState,
  stateDir as defaultStateDir,
  writeState,
  type SessionState,
} from '../session-store/state.js'
import {onSignals, Teardown} from './teardown.js'
import {watchProject} from './watch.js'
import {randomWebhookPath} from './webhook/operations.js'

export type {DevSummary} from './render.js'
export type {DevSessionOptions} from './session-options.js'

/** One `bot dev` run. `run()` resolves with the summary once everything is cleaned up. */
export class DevSession {
  readonly #o: DevSessionOptions
  readonly #controller = new AbortController()
  readonly #teardown = new Teardown()
  readonly #started = performance.now()
  readonly #emit: DevEventSink
  readonly #stateDir: string
  readonly #marker = randomBytes(8).toString('hex')
  readonly #webhook: SessionWebhook
  readonly #inspector: SessionInspector
  /** The bot's BOT_API_ROOT when it goes through the api proxy. */
  #botApiRoot: string | undefined
  #stopReason: StopReason | undefined
  #stopRequested!: () => void
  readonly #stopPromise = new Promise<void>((resolve) => {
    this.#stopRequested = resolve
  })
  #forceExit: ((code: number) => void) | undefined
  #me: User | undefined
  #state: SessionState | undefined
  #relay: Relay | undefined
  readonly #delivery: SessionDelivery
  #runner: BotRunner | undefined
  #secret = ''
  #path = ''
  #port = 0
  #watching = false
  #removeSignals: () => void = () => {}
  #readyEmitted = false
  #startedUp = false
  #botUp = false
  /** The check for another poller, started as early as possible (it takes ~1 s). */
  #pollers: Promise<PollerFound | undefined> | undefined
  /** Update lines emitted (polling mode: the updates the api proxy saw the bot fetch). */
  #updates = 0

  constructor(options: DevSessionOptions) {
    this.#o = options
    this.#emit = (event: DevEvent) => {
      try {
        this.#inspector.decorate(event)
        if (event.type === 'update') this.#updates++
        options.onEvent(event)
      } catch {
        // a broken sink must not break the session
      }
    }
    this.#stateDir = options.stateDir ?? defaultStateDir()
    this.#inspector = new SessionInspector({
      ...options,
      stateDir: this.#stateDir,
      controlDir: options.controlDir ?? this.#stateDir,
      emit: this.#emit,
      register: (name, run, minMs) => this.#teardown.register(name, run, minMs),
    })
    this.#webhook = new SessionWebhook({
      api: options.api,
      secret: () => this.#secret,
      maxConnections: options.maxConnections,
      allowedUpdates: options.allowedUpdates,
      dropPendingUpdates: options.dropPendingUpdates,
      restoreSecret: options.restoreSecret,
      saveState: (patch) => this.#saveState(patch),
    })
    this.#delivery = new SessionDelivery({
      fallback: options.fallback ?? false,
      context: () => this.#deliveryContext(),
      emit: this.#emit,
      stopped: () => this.#stopReason !== undefined,
      stop: (reason) => this.stop(reason),
      onSwapped: () => this.#maybeReady(),
    })
  }

  get signal(): AbortSignal {
    return this.#controller.signal
  }

  /** Ask the session to end (teardown follows). Safe to call many times. */
  stop(reason: StopReason = 'stop'): void {
    if (this.#stopReason) return
    this.#stopReason = reason
    this.#runner?.close()
    this.#controller.abort(new Error(`stopped (${reason})`))
    this.#stopRequested()
  }

  async run(): Promise<DevSummary> {
    if (this.#o.handleSignals) this.#installSignals()
    const external = this.#o.signal
    const onExternalAbort = () => this.stop(external?.reason === 'SIGPIPE' ? 'SIGPIPE' : 'aborted')
    if (external?.aborted) onExternalAbort()
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
            this.stop('error')
          }
        }
        if (!startError) await this.#stopPromise
        return -1
      })()
      let forced = await Promise.race([lifetime, forcedExit])
      if (forced < 0) forced = await Promise.race([this.#runTeardown().then(() => -1), forcedExit])
      if (startError && forced < 0) throw startError
      const summary = sessionSummary(
        {
          mode: this.#o.mode,
          apiProxy: this.#o.apiProxy,
          stopReason: this.#stopReason,
          runner: this.#runner,
          stats: this.#relay?.stats,
          cleanFailed: this.#webhook.cleanFailed,
          updates: this.#updates,
          started: this.#started,
        },
        forced >= 0 ? forced : undefined,
      )
      this.#emit({type: 'summary', ...summary, text: summaryText(summary)})
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
    if (o.mode === 'webhook' && !o.tunnel && !o.bridge)
      throw new Error('webhook mode needs a tunnel provider or the bridge')

    const me = await this.#step(
      'token',
      'Checking the token…',
      () => o.api.getMe({signal}),
      (u) => `Bot @${u.username ?? u.id} (id ${u.id})`,
    )
    this.#me = me
    this.#check()

    const previous = await this.#step(
      'session',
      'Checking for another `bot dev` on this bot…',
      async () => this.#claim(me),
      (p) => (p ? `Previous session (pid ${p.pid}) ended without cleaning up` : 'No other session'),
    )
    this.#check()

    const checkMode = o.mode === 'webhook' && !o.bridge ? 'webhook' : 'polling'
    await this.#step(
      'webhook-check',
      'Reading the current webhook…',
      () =>
        checkWebhook(
          {
            api: o.api,
            me,
            stateDir: this.#stateDir,
            mode: checkMode,
            force: o.force,
            restoreSecret: o.restoreSecret,
            stopGraceMs: o.stopGraceMs ?? 3000,
            webhook: this.#webhook,
            signal,
            emit: this.#emit,
            saveState: (p) => this.#saveState(p),
          },
          previous,
        ),
      (text) => text,
    )
    this.#check()
    if (o.mode === 'webhook')
      [this.#secret, this.#path] = [loadOrCreateSecret(me.id, this.#stateDir), randomWebhookPath()]
    // History, api proxy, inspector page, control port (none of them may show the secret or path): before the relay and the bot.
    this.#inspector.addSecrets(this.#secret, this.#path)
    this.#botApiRoot = await this.#inspector.start(me)
    this.#check()

    // Before anything takes the updates: is another program polling this bot? (runs meanwhile)
    if (o.checkPollers && o.mode === 'webhook')
      this.#pollers = findRunningPoller(o.api, o.token, {signal, seconds: 0.5, excludeMarker: this.#marker}).catch(
        () => undefined,
      )
    if (o.mode === 'webhook') await this.#startRelay()
    this.#runner = this.#newRunner()
    const delivery = createDelivery(
      o.tunnel ? {...o, tunnel: recordTunnelProcess(o.tunnel, (p) => this.#saveState(p))} : o,
      this.#deliveryContext(),
    )
    this.#delivery.use(delivery)
    // Teardown order (reverse of registration): watch, delivery stop, webhook (tunnel/bridge), tunnel close, bot, webhook (polling: after the poller stopped), relay, state.
    const cleanWebhook = () => this.#cleanWebhook()
    if (o.mode === 'polling') this.#teardown.register('webhook', cleanWebhook, 3000)
    this.#teardown.register('bot', () => this.#runner!.stop(), 1000)
    this.#teardown.register('tunnel', () => this.#delivery.current!.close(), 2000)
    if (o.mode !== 'polling') this.#teardown.register('webhook', cleanWebhook, 3000)
    this.#teardown.register('delivery', () => this.#delivery.current!.stop(), 2000)

    // Polling: the webhook goes first (else the bot's getUpdates gets 409). Webhook mode: the bot
    // starts while the tunnel opens; the relay holds updates until it listens.
    if (o.mode === 'polling') await delivery.start()
    this.#check()
    this.#runner.launch()
    if (o.mode === 'webhook') {
      try {
        await delivery.start()
      } catch (error) {
        if (!(error instanceof DeliveryStartError) || !o.fallback || signal.aborted) throw error
        await this.#delivery.fallBack(delivery, error.message)
      }
    }
    this.#check()

    if (o.watch) {
      await this.#step(
        'watch',
        'Starting the file watcher…',
        async () => {
          const watcher = watchProject({
            cwd: o.cwd,
            debounceMs: o.debounceMs,
            onChange: (files) => void this.#runner?.restart(files),
            onError: (error) => this.#emit({type: 'warn', text: `File watching failed: ${error.message}`}),
          })
          this.#teardown.register('watch', () => watcher.close())
          await watcher.ready
          this.#watching = true
        },
        () => `Watching ${o.cwd} for changes (node_modules, dist and .git ignored)`,
      )
    }
    this.#startedUp = true
    this.#maybeReady()
  }

  #claim(me: User): SessionState | undefined {
    const {state, previous} = claimSession(me, freshState(me, this.#o), this.#stateDir)
    this.#state = state
    this.#teardown.register('state', async () => {
      if (this.#webhook.cleanFailed) return // keep the record so the next run (or bot doctor) can repair
      removeState(me.id, this.#stateDir)
      removeRestoreSecret(me.id, this.#stateDir)
    })
    return previous
  }

  #saveState(patch: Partial<SessionState>): void {
    if (!this.#state) return
    this.#state = {...this.#state, ...patch}
    for (const key of Object.keys(patch) as Array<keyof SessionState>)
      if (patch[key] === undefined) delete this.#state[key]
    writeState(this.#state, this.#stateDir)
  }

  async #startRelay(): Promise<void> {
    const o = this.#o
    const {relay, botPort} = await this.#step(
      'relay',
      'Starting the relay…',
      () =>
        startRelay({
          secret: this.#secret,
          path: this.#path,
          token: o.token,
          holdTimeoutMs: o.holdTimeoutMs,
          port: o.relayPort,
          botPort: o.port,
          emit: this.#emit,
          // A failing or long-held delivery: a good moment to look at the webhook.
          onStall: () => this.#delivery.current?.nudge?.(),
        }),
      (r) => `Relay on http://127.0.0.1:${r.relay.port} → bot on port ${r.botPort}`,
    )
    this.#port = botPort
    this.#relay = relay
    this.#inspector.attachRelay(relay)
    this.#teardown.register('relay', () => relay.close())
    this.#check()
  }

  #newRunner(): BotRunner {
    const o = this.#o
    return new BotRunner({
      command: o.command,
      cwd: o.cwd,
      token: o.token,
      apiRoot: this.#botApiRoot ?? (o.passApiRoot === false ? undefined : o.apiRoot),
      env: o.env,
      mode: o.mode,
      port: this.#port,
      path: this.#path,
      secret: this.#secret,
      marker: this.#marker,
      relay: this.#relay,
      stopGraceMs: o.stopGraceMs ?? 3000,
      slowStartMs: o.slowStartMs,
      signal: this.#controller.signal,
      emit: this.#emit,
      saveState: (p) => this.#saveState(p),
      webhookUrl: () => this.#webhook.url,
      onUp: () => {
        this.#botUp = true
        this.#delivery.current?.nudge?.()
        this.#maybeReady()
      },
      onExit: () => {
        this.#botUp = false
        if (this.#stopReason) return
        if (o.watch)
          this.#emit({
            type: 'info',
            text: 'Waiting for a file change to restart it (updates are held, then answered 503 so Telegram retries).',
          })
        else this.stop('bot-exit')
      },
    })
  }

  #deliveryContext(): DeliveryContext {
    const o = this.#o
    return {
      api: o.api,
      token: o.token,
      signal: this.#controller.signal,
      emit: this.#emit,
      webhook: this.#webhook,
      relay: this.#relay,
      path: this.#path,
      secret: this.#secret,
      maxConnections: o.maxConnections,
      allowedUpdates: o.allowedUpdates,
      dropPendingUpdates: o.dropPendingUpdates,
      pollers: () => {
        const found = this.#pollers ?? Promise.resolve(undefined)
        this.#pollers = undefined
        return found
      },
      step: (id, text, fn, ok) => this.#step(id, text, fn, ok),
    }
  }

  #maybeReady(): void {
    if (this.#readyEmitted || this.#stopReason || !this.#startedUp || !this.#runner?.bot) return
    const delivery = this.#delivery.current!
    if (this.#o.mode === 'webhook' && (!this.#botUp || (delivery.name === 'tunnel' && !this.#webhook.url))) return
    this.#readyEmitted = true
    const url = delivery.url
    const text = readyText(delivery.name, url, this.#watching)
    const inspectorUrl = this.#inspector.url
    this.#emit({
      type: 'ready',
      mode: this.#o.mode,
      delivery: delivery.name,
      ...(url ? {url} : {}),
      ...(this.#o.mode === 'webhook' ? {port: this.#port} : {}),
      ...(inspectorUrl ? {inspectorUrl} : {}),
      command: this.#o.command.display,
      text,
    })
  }

  // ── teardown ─────────────────────────────────────────────────────────────

  #cleanWebhook(): Promise<void> {
    return cleanWebhook(this.#webhook, this.#emit)
  }

  #runTeardown(): Promise<void> {
    this.#controller.abort(new Error('teardown'))
    this.#runner?.close()
    return runTeardown(this.#teardown, this.#o.teardownTimeoutMs ?? 10_000, this.#webhook, this.#emit)
  }

  /** Second Ctrl-C: kill the bot, try once (quickly) to delete/restore the webhook, exit. */
  async #emergency(signal: NodeJS.Signals): Promise<void> {
    const code = await emergencyExit(
      {
        emit: this.#emit,
        webhook: this.#webhook,
        inspector: this.#inspector,
        stateDir: this.#stateDir,
        me: () => this.#me,
        runner: () => this.#runner,
        delivery: () => this.#delivery.current,
        relay: () => this.#relay,
      },
      signal,
    )
    this.#forceExit?.(code)
  }

  #installSignals(): void {
    this.#removeSignals = onSignals((sig) => {
      if (!this.#stopReason) this.stop(sig as StopReason)
      else void this.#emergency(sig)
    })
  }
}

/** Run a dev session to its end. */
export function runDevSession(options: DevSessionOptions): Promise<DevSummary> {
  return new DevSession(options).run()
}

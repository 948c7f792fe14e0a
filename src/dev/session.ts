/**
 * A `bot dev` session: the runner of its parts (parts.ts). It starts them in order, turns what
 * they report into the next step (the bot is up: maybe Ready; files changed: restart the bot; a
 * part lost for good: swap in its fallback, the bot untouched) and stops the started ones in
 * reverse, once, within a deadline. A second signal exits at once, each part letting go of what
 * it holds (the webhook still deleted when it can be, quickly).
 */
import {waitAtMost} from '../lib/deadline.js'
import {stateDir as defaultStateDir} from '../session-store/state.js'
import {SessionContext} from './part.js'
import {SIGNAL_EXIT, sessionSummary, type StopReason} from './ending.js'
import type {DevEvent} from './events.js'
import {abandonWindow, type DevSessionOptions} from './options.js'
import {ReplaceablePartError, type SessionPart} from './part.js'
import {setupSessionParts} from './parts.js'
import {errorMessage, readyText, summaryText, type DevSummary} from './render.js'
import {onSignals, Teardown} from './teardown.js'

export type {DevSummary} from './render.js'

/** A bot that exits within this long of its (re)start has not really started (see DevSessionOptions.endOnEarlyExit). */
const EARLY_EXIT_MS = 5000
export type {DevSessionOptions} from './options.js'

/** One `bot dev` run. `run()` resolves with the summary once everything is cleaned up. */
export class DevSession {
  readonly #options: DevSessionOptions
  readonly #controller = new AbortController()
  readonly #started = performance.now()
  readonly #ctx: SessionContext
  readonly #parts: SessionPart[]
  /** The parts whose start was called, in order (a swapped part takes its predecessor's place). */
  readonly #running: SessionPart[] = []
  #stopReason: StopReason | undefined
  #stopRequested!: () => void
  readonly #stopPromise = new Promise<void>((resolve) => {
    this.#stopRequested = resolve
  })
  #forceExit: ((code: number) => void) | undefined
  #removeSignals: () => void = () => {}
  #readyEmitted = false
  #startedUp = false
  #botUp = false
  /** Update lines emitted (polling mode: the updates the api proxy saw the bot fetch). */
  #updates = 0
  /** How updates reach the bot: a webhook session switches to polling when the bot polls by itself. */
  #mode: 'webhook' | 'polling'
  /** The switch to polling: under way or done (the bot's held getUpdates go through once it settled). */
  #switch: Promise<void> | undefined
  #switchSettled = false
  /** The bot's getUpdates held by the api proxy until the switch settled. */
  readonly #heldPolls: Array<() => void> = []

  /** `parts`: the session's parts, in start order (default: what setupSessionParts chooses for `options`). */
  constructor(options: DevSessionOptions, parts?: SessionPart[]) {
    this.#options = {...options, stateDir: options.stateDir ?? defaultStateDir()}
    this.#mode = options.mode
    const emit = (event: DevEvent) => {
      try {
        this.#ctx.recording?.decorate(event)
        // Counted for polling: the updates the bot got (a webhook session's unanswered tries before a switch are not).
        if (event.type === 'update' && event.status >= 200 && event.status < 300 && !event.repeat) this.#updates++
        options.onEvent(event)
      } catch {
        // a broken sink must not break the session
      }
    }
    this.#ctx = new SessionContext(this.#options, this.#controller.signal, emit, () => this.#stopReason)
    this.#parts = parts ?? setupSessionParts(this.#options)
    const events = this.#ctx.events
    events.on('bot-up', () => {
      this.#botUp = true
      this.#ctx.delivery?.nudge?.()
      this.#maybeReady()
    })
    events.on('bot-exit', () => {
      this.#botUp = false
      if (this.#stopReason) return
      if (!this.#options.watch) return this.stop('bot-exit')
      const runner = this.#ctx.runner
      if (this.#options.endOnEarlyExit && runner?.exitedEarly(EARLY_EXIT_MS)) {
        const last = runner.lastLines
        emit({
          type: 'warn',
          text: `The bot exited before it was ${runner.restarts > 0 ? 'up again after the restart' : 'ready'}, and nobody is at a terminal to fix it (stdin is not a terminal, or CI is set): ending the session instead of waiting for a file change.`,
          fix: last.length > 0 ? `Its last lines:\n${last.map((l) => `    ${l}`).join('\n')}` : 'It printed nothing.',
        })
        return this.stop('bot-failed')
      }
      emit({type: 'info', text: `Waiting for a file change to restart it (${this.#whileDown()}).`})
    })
    events.on('stall', () => this.#ctx.delivery?.nudge?.())
    events.on('lost', (part, reason) => void this.#lost(part, reason))
    events.on('bot-polls', (letThrough) => this.#botPolls(letThrough))
  }

  /** What happens to updates while the bot is down, in this session's words. */
  #whileDown(): string {
    // Polling: nobody fetches them, so they wait at the Bot API (the emulator offline).
    if (this.#mode === 'polling')
      return this.#options.offline ? 'messages wait in the emulator meanwhile' : 'updates wait at Telegram meanwhile'
    if (this.#options.offline) return 'updates are held meanwhile'
    if (this.#options.bridge) return 'updates are held meanwhile, then left at Telegram for later'
    return 'updates are held, then answered 503 so Telegram retries'
  }

  get signal(): AbortSignal {
    return this.#controller.signal
  }

  /** The inspector's URL (with its key) once it is serving; undefined before, or with --no-inspect. */
  get inspectorUrl(): string | undefined {
    return this.#ctx.inspectorUrl
  }

  /** A one-time inspector address for a browser this session starts (`o`, `:o`); undefined without an inspector. */
  inspectorOpenUrl(): string | undefined {
    try {
      return this.#ctx.inspectorOpenUrl?.()
    } catch {
      return undefined
    }
  }

  /** The chat page's URL (with the inspector's key) when the session serves it (offline), else undefined. */
  get chatUrl(): string | undefined {
    return this.#ctx.chatUrl
  }

  /** A one-time chat page address for a browser this session starts (`w`, `:w`); undefined without the page. */
  chatOpenUrl(): string | undefined {
    try {
      return this.#ctx.chatOpenUrl?.()
    } catch {
      return undefined
    }
  }

  /** Ask the session to end (teardown follows). Safe to call many times. */
  stop(reason: StopReason = 'stop'): void {
    if (this.#stopReason) return
    this.#stopReason = reason
    this.#controller.abort(new Error(`stopped (${reason})`))
    this.#stopRequested()
    for (const letThrough of this.#heldPolls.splice(0)) letThrough()
  }

  /**
   * Restart the bot now, as a file change would (updates are held meanwhile); `by` says who asked
   * (e.g. "r pressed"). Nothing happens before the bot was started, once the session is stopping, or
   * without a bot process (--forward-to: that is said once).
   */
  restartBot(by: string): void {
    if (this.#stopReason) return
    if (!this.#ctx.runner) {
      if (this.#ctx.forwardTo)
        this.#ctx.emit({
          type: 'info',
          text: `No bot to restart: your server at ${this.#ctx.forwardTo} is yours to restart.`,
        })
      return
    }
    this.#ctx.events.emit('restart-requested', `↻ Restarting the bot (${by}; updates are held meanwhile)`)
  }

  async run(): Promise<DevSummary> {
    if (this.#options.handleSignals) this.#installSignals()
    const external = this.#options.signal
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
      if (forced < 0) forced = await Promise.race([this.#teardown().then(() => -1), forcedExit])
      if (startError && forced < 0) throw startError
      const ctx = this.#ctx
      const summary = sessionSummary(
        {
          mode: this.#mode,
          apiProxy: this.#options.apiProxy,
          stopReason: this.#stopReason,
          bot: ctx.runner,
          noBot: this.#options.forwardTo !== undefined,
          stats: ctx.relay?.stats,
          cleanFailed: ctx.webhook.cleanFailed,
          updates: this.#updates,
          started: this.#started,
          failedCalls: ctx.recording?.failedCalls,
        },
        forced >= 0 ? forced : undefined,
      )
      ctx.emit({type: 'summary', ...summary, text: summaryText(summary)})
      return summary
    } finally {
      external?.removeEventListener('abort', onExternalAbort)
      this.#removeSignals()
    }
  }

  async #startUp(): Promise<void> {
    for (const part of this.#parts) {
      this.#ctx.check()
      this.#running.push(part)
      await this.#start(part)
    }
    this.#ctx.check()
    // The bot polled while the session started: switch before saying Ready.
    if (this.#ctx.botPolls) await this.#switchToPolling()
    this.#ctx.check()
    this.#startedUp = true
    this.#maybeReady()
  }

  /**
   * The bot called getUpdates (held by the api proxy). In a webhook session that means it polls by
   * itself: switch to polling delivery (once start-up is over), then let its calls through.
   */
  #botPolls(letThrough: () => void): void {
    if (this.#mode === 'polling' || this.#switchSettled || this.#stopReason) return letThrough()
    this.#heldPolls.push(letThrough)
    this.#ctx.botPolls = true
    // During start-up the switch comes at its end (the delivery part sets no webhook meanwhile).
    if (this.#startedUp) void this.#switchToPolling()
  }

  /** The delivery that takes the updates gives way to polling delivery; the bot keeps running. */
  #switchToPolling(): Promise<void> {
    this.#switch ??= (async () => {
      const ctx = this.#ctx
      try {
        const part = this.#running.find((p) => p.pollingSuccessor)
        const next = part?.pollingSuccessor?.()
        if (!part || !next || this.#stopReason) return
        // The poller check must be over: its getUpdates would cut off the bot's.
        await ctx.pollers?.answer()
        await this.#swap(part, next)
        if (this.#stopReason) return
        this.#mode = 'polling'
        ctx.recording?.switchToPolling()
        ctx.runner?.switchToPolling()
      } catch (error) {
        ctx.emit({type: 'warn', text: `Could not switch to polling: ${errorMessage(error)}`})
        this.stop('error')
      } finally {
        this.#switchSettled = true
        for (const letThrough of this.#heldPolls.splice(0)) letThrough()
      }
    })()
    return this.#switch
  }

  /** Start a part; one that cannot start but has a fallback is replaced by it. */
  async #start(part: SessionPart): Promise<void> {
    try {
      await part.start(this.#ctx)
    } catch (error) {
      if (!(error instanceof ReplaceablePartError) || this.#controller.signal.aborted) throw error
      const next = part.fallback?.(error.message)
      if (!next) throw error
      await this.#swap(part, next)
    }
  }

  /** A running part is lost for good: its fallback takes its place, or the session stops. */
  async #lost(part: SessionPart, reason: string): Promise<void> {
    if (this.#stopReason || !this.#running.includes(part)) return
    const next = part.fallback?.(reason)
    if (!next) return this.stop('error')
    try {
      await this.#swap(part, next)
    } catch (error) {
      this.#ctx.emit({type: 'warn', text: errorMessage(error)})
      this.stop('error')
    }
  }

  /** `next` in the place of `part`, once `part` gave back what it held (else the session stops). */
  async #swap(part: SessionPart, next: SessionPart): Promise<void> {
    if (!(await (part.handOver?.() ?? Promise.resolve(true))) || this.#stopReason) return this.stop('error')
    this.#running[this.#running.indexOf(part)] = next
    await next.start(this.#ctx)
    if (this.#startedUp) this.#maybeReady()
  }

  #maybeReady(): void {
    const ctx = this.#ctx
    if (this.#readyEmitted || this.#stopReason || !this.#startedUp || !(ctx.runner?.bot || ctx.forwardTo)) return
    const delivery = ctx.delivery!
    if (this.#mode === 'webhook' && (!this.#botUp || (delivery.name === 'tunnel' && !ctx.webhook.url))) return
    // The bot polls by itself: Ready once the session switched.
    if (this.#mode === 'webhook' && ctx.botPolls) return
    this.#readyEmitted = true
    const url = delivery.url
    ctx.emit({
      type: 'ready',
      mode: this.#mode,
      delivery: delivery.name,
      ...(url ? {url} : {}),
      ...(this.#mode === 'webhook' ? {port: ctx.botPort} : {}),
      ...(ctx.inspectorUrl ? {inspectorUrl: ctx.inspectorUrl} : {}),
      ...(ctx.chatUrl ? {chatUrl: ctx.chatUrl} : {}),
      ...(ctx.forwardTo ? {forwardTo: ctx.forwardTo} : {}),
      ...(ctx.menuButton.url ? {webAppUrl: ctx.menuButton.url} : {}),
      command: this.#options.command?.display ?? '',
      text:
        readyText(delivery.name, url, ctx.watching, ctx.forwardTo) +
        (ctx.chatUrl && !this.#options.offline ? ` Chat page: ${ctx.chatUrl}` : ''),
    })
  }

  /** Stop every part whose start was called, in reverse, each within what is left of the deadline. */
  #teardown(): Promise<void> {
    this.#controller.abort(new Error('teardown'))
    const teardown = new Teardown()
    for (const part of this.#running) if (part.stop) teardown.register(part.name, () => part.stop!(), part.stopMinMs)
    return teardown.run(this.#options.teardownTimeoutMs ?? 10_000, (step, error) =>
      this.#ctx.emit({type: 'teardown', step, ok: false, text: `! ${step} cleanup: ${errorMessage(error)}`}),
    )
  }

  /** Second Ctrl-C: every part lets go at once (the bot killed, the webhook deleted if it can be, quickly); then exit. */
  async #emergency(signal: NodeJS.Signals): Promise<void> {
    this.#ctx.emit({type: 'warn', text: `${signal} again: exiting now.`})
    const letGo = [...this.#running].reverse().map(async (part) => part.abandon?.())
    await waitAtMost(Promise.allSettled(letGo), abandonWindow(this.#options))
    const code = SIGNAL_EXIT[signal] ?? 1
    this.#forceExit?.(this.#ctx.webhook.cleanFailed ? code || 1 : code)
  }

  /** A signal arrived (handleSignals installs this for SIGINT, SIGTERM and SIGHUP): the first stops, a second exits at once. */
  signalled(signal: NodeJS.Signals): void {
    if (!this.#stopReason) this.stop(signal as StopReason)
    else void this.#emergency(signal)
  }

  #installSignals(): void {
    this.#removeSignals = onSignals((sig) => this.signalled(sig))
  }
}

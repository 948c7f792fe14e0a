/**
 * The trigger engine (TriggerEngine): what `bot trigger`, `bot replay` and the inspector's Replay
 * ask a running session to do (SessionActions), for each way the session runs:
 * - webhook mode (tunnel or bridge): the update goes to the bot through `relay.inject`, past the
 *   answer cache (a replay of an answered update_id reaches the bot again), held while it restarts;
 * - offline: a trigger is the emulator user's action (sendUserMessage / sendCallbackQuery /
 *   injectUpdate), so the emulator's state stays right; a replay goes through the relay in webhook
 *   mode and into the emulator's queue in polling mode;
 * - long polling against Telegram: nothing can be put into the bot's getUpdates, so 409.
 * Each resolves once the bot answered (or the delivery failed), within a deadline.
 */
import type {Update} from '../emulator/index.js'
import type {UpdateHistory} from '../inspector/history/history.js'
import type {LocalAnswers, QueryKind} from '../inspector/proxy/local-answers.js'
import type {UpdateEntry} from '../inspector/types.js'
import {messageOf} from '../lib/errors.js'
import {BotWaits, handled} from './bot-waits.js'
import {
  allowedUpdatesFix,
  droppedError,
  droppedReason,
  emulatorTrigger,
  updateIdsOf,
  withoutUpdateId,
  withUpdateId,
} from './emulator-trigger.js'
import {noButton, resolveParties} from './fill.js'
import {FixtureTriggers} from './fixture-trigger.js'
import type {OfflineTarget, Sent} from './offline-trigger.js'
import {
  ActionError,
  type ActionOutcome,
  type SessionActions,
  type TriggerRequest,
  type TriggerResult,
} from './protocol.js'
import {isJsonObject} from './requests.js'
import {SessionFacts} from './session-facts.js'
import {checkUpdateObject, syntheticUpdate, updateContent, withCurrentDate} from './synthetic.js'
import type {JsonObject as Json} from '../lib/json-object.js'

/** Where a webhook-mode session hands an update straight to the bot (the relay, past its answer cache). */
export interface UpdateInjector {
  inject(
    body: string,
    options: {source: 'trigger' | 'replay'; replayOf?: number},
  ): Promise<{status: number; record?: unknown}>
}

export type {OfflineTarget}

export interface TriggerEngineOptions {
  mode: 'webhook' | 'polling'
  offline?: OfflineTarget
  timeoutMs: number
  history: () => UpdateHistory | undefined
  relay: () => UpdateInjector | undefined
  nextUpdateId: () => number
  /** The bot (the author of a message whose button a synthetic callback presses). */
  bot: () => {id: number; first_name?: string; username?: string} | undefined
  /** Nothing will see an update put into the emulator (polling without the api proxy): record it on the way in. */
  recordDirectly: boolean
  /** What the session has seen: the last chat and user, the bot's messages (default: an empty record). */
  facts?: SessionFacts
  /** The api proxy's answers to made-up ids (synthetic queries, files, charges). */
  local?: LocalAnswers
  /** How long the bot has to answer a synthetic pre-checkout query (default 10 s, as on Telegram). */
  preCheckoutWindowMs?: number
  /**
   * Why the bot cannot take an update now ("The bot exited with code 3": it waits for a file change
   * or `r`), else undefined. A trigger or replay then fails at once instead of waiting out the hold.
   */
  botDown?: () => string | undefined
}

const POLLING_ONLINE = new ActionError(
  409,
  'This session runs the bot on long polling against Telegram, which cannot be handed an update from `bot dev`.',
  'Run `bot dev` in webhook mode (the default, or --tunnel none without a public URL), or `bot dev --offline`.',
)

/** The query kinds the api proxy answers for a synthetic update of that type. */
const QUERY_TYPES: Record<string, QueryKind> = {
  callback_query: 'callback_query',
  inline_query: 'inline_query',
  shipping_query: 'shipping_query',
  pre_checkout_query: 'pre_checkout_query',
}

export class TriggerEngine implements SessionActions {
  readonly #options: TriggerEngineOptions
  readonly #facts: SessionFacts
  readonly #waits: BotWaits
  readonly #fixtures: FixtureTriggers

  constructor(o: TriggerEngineOptions) {
    this.#options = o
    this.#facts = o.facts ?? new SessionFacts()
    this.#waits = new BotWaits({
      timeoutMs: o.timeoutMs,
      history: () => o.history(),
      recordDirectly: o.recordDirectly,
      ...(o.botDown ? {botDown: o.botDown} : {}),
    })
    this.#fixtures = new FixtureTriggers({
      offline: o.offline,
      facts: this.#facts,
      local: o.local,
      preCheckoutWindowMs: o.preCheckoutWindowMs,
      bot: () => o.bot(),
      nextUpdateId: () => o.nextUpdateId(),
      injectSynthetic: (update) => this.#injectSynthetic(update),
      inject: (update, source) => this.#inject(update, source),
      viaEmulatorMany: (type, send) => this.#viaEmulatorMany(type, send),
      expect: (updateId, source) => this.#waits.expect(updateId, source),
      deadline: (promise, who) => this.#waits.deadline(promise, who),
    })
  }

  /** How an update the session sees now was sent, when it was put into the emulator by an action. */
  expected(updateId: number): ReturnType<BotWaits['expected']> {
    return this.#waits.expected(updateId)
  }

  /** An entry got its answer (or was seen, in polling mode): an action waiting for it resolves. */
  settled(entry: UpdateEntry): void {
    this.#waits.settled(entry)
  }

  async trigger(request: TriggerRequest): Promise<TriggerResult> {
    this.#waits.checkBotUp()
    return this.#counted(await this.#trigger(request))
  }

  async replay(updateId: number | 'last', edited?: Record<string, unknown>): Promise<UpdateEntry> {
    this.#waits.checkBotUp()
    return this.#counted(await this.#replay(updateId, edited))
  }

  /**
   * Offline (`bot mcp`): the emulator user's action `name` of the table (src/emulator/actions), with input as JSON
   * carries it (checked by the table: its errors are 400 with the emulator's words), then the updates it queued,
   * once the bot handled them (webhook: answered; polling: polled past), within the deadline.
   */
  async emulatorAction(name: string, input: Record<string, unknown>): Promise<ActionOutcome> {
    this.#waits.checkBotUp()
    const offline = this.#options.offline
    if (!offline)
      throw new ActionError(409, `${name} is an action of the emulator's user: this session runs against Telegram.`)
    const history = this.#options.history()
    const since = history?.last()?.seq ?? 0
    let result: unknown
    try {
      result = await offline.emulator.runAction(offline.token, name, input)
    } catch (error) {
      const status = typeof error === 'object' && error !== null && 'status' in error ? error.status : undefined
      throw new ActionError(
        typeof status === 'number' ? status : 400,
        `The emulator refused ${name}: ${messageOf(error)}.`,
        'Fix the input as the message says (the tool lists its fields).',
      )
    }
    this.#counted(result)
    const ids = updateIdsOf(result)
    const dropped = ids.length === 0 ? droppedReason(result) : undefined
    if (dropped) {
      const {reason} = dropped
      throw new ActionError(
        422,
        `The emulator sent the bot nothing: ${typeof reason === 'string' ? reason : "the bot's allowed_updates leave this update out"}.`,
        typeof reason === 'string' && !reason.includes('allowed_updates')
          ? 'See docs/emulator.md for when Telegram sends this update.'
          : allowedUpdatesFix(name),
      )
    }
    if (!history || this.#options.recordDirectly || ids.length === 0) return {action: name, result, entries: []}
    const wait = handled(history, ids, since)
    try {
      return {action: name, result, entries: await this.#waits.deadline(wait.promise, 'The bot')}
    } finally {
      wait.cancel()
    }
  }

  #counted<T>(entry: T): T {
    try {
      this.#options.offline?.onSent?.()
    } catch {
      // a counter that throws does not undo a delivery
    }
    return entry
  }

  async #trigger(request: TriggerRequest): Promise<TriggerResult> {
    const offline = this.#options.offline
    if (!offline && this.#options.mode === 'polling') throw POLLING_ONLINE
    if (request.kind === 'fixture') return this.#fixtures.run(request)
    if (offline) return this.#viaEmulator('trigger', undefined, () => emulatorTrigger(offline, request))
    if (request.kind === 'update') {
      let update: Json
      try {
        update = syntheticUpdate(request, {updateId: this.#options.nextUpdateId()})
      } catch (error) {
        throw new ActionError(400, messageOf(error), 'See `bot trigger --help`.')
      }
      return this.#injectSynthetic(update)
    }
    const parties = resolveParties(request, this.#facts.lastParty())
    const bot = this.#options.bot()
    const updateId = this.#options.nextUpdateId()
    let update: Json
    if (request.kind === 'message') {
      update = syntheticUpdate(
        {...request, chatId: parties.chatId, userId: parties.userId},
        {
          updateId,
          user: parties.user,
          chat: parties.chat,
          messageId: this.#facts.nextMessageId(parties.chatId),
          ...(bot ? {bot} : {}),
        },
      )
    } else {
      const pressed =
        request.messageId === undefined
          ? this.#facts.button(parties.chatId, request.data)
          : this.#facts.botMessage(parties.chatId, request.messageId)
      if (!pressed && request.messageId === undefined) throw noButton(parties.chatId, request.data)
      update = syntheticUpdate(
        {
          ...request,
          chatId: parties.chatId,
          userId: parties.userId,
          messageId: pressed?.messageId ?? request.messageId,
        },
        {
          updateId,
          user: parties.user,
          chat: parties.chat,
          ...(pressed ? {message: pressed.message} : {}),
          ...(bot ? {bot} : {}),
        },
      )
    }
    return this.#injectSynthetic(update)
  }

  /** Webhook mode: a synthetic update whose query id the api proxy will answer, through the relay. */
  #injectSynthetic(update: Json): Promise<UpdateEntry> {
    const {type, content} = updateContent(update)
    const kind = type === undefined ? undefined : QUERY_TYPES[type]
    if (kind && content && (typeof content.id === 'string' || typeof content.id === 'number'))
      this.#options.local?.addQuery(kind, String(content.id))
    return this.#inject(update, 'trigger')
  }

  // ---------------------------------------------------------------- replays and deliveries
  async #replay(updateId: number | 'last', edited?: Record<string, unknown>): Promise<UpdateEntry> {
    const history = this.#options.history()
    const entry = updateId === 'last' ? history?.last() : history?.find(updateId)
    if (!entry)
      throw new ActionError(
        404,
        updateId === 'last'
          ? 'No update has been recorded in this session yet.'
          : `Update ${updateId} is not in this session's history (the newest 1000 updates are kept).`,
        'Send the bot a message first, or pick an update_id from the inspector or the `bot dev` log (`bot replay --last` replays the newest).',
      )
    // The one Update check (the control port applies it too; the inspector's replay comes here).
    const bad = edited === undefined ? undefined : checkUpdateObject(edited, 'the edited update')
    if (bad)
      throw new ActionError(
        400,
        bad.error.replace(/^./, (c) => c.toUpperCase()),
        bad.fix,
      )
    if (!edited && entry.truncated)
      throw new ActionError(
        422,
        `Update ${entry.updateId} was larger than 64 KiB and is not kept whole, so it cannot be replayed as it was.`,
        'Replay it with an edited body (Edit and replay in the inspector).',
      )
    const recorded = edited ?? entry.update
    if (!isJsonObject(recorded))
      throw new ActionError(
        422,
        `Update ${entry.updateId} is not a JSON object, so it cannot be replayed as it was.`,
        'Replay it with an edited body (Edit and replay in the inspector).',
      )
    // A replay is a new delivery: dated now (Telegram would not deliver a message more than a day old).
    const body = withCurrentDate(recorded)
    if (this.#options.mode === 'polling') {
      const offline = this.#options.offline
      if (!offline) throw POLLING_ONLINE
      return this.#viaEmulator('replay', entry.updateId, () =>
        offline.emulator.injectUpdate(offline.token, withoutUpdateId(body)),
      )
    }
    const id = typeof body.update_id === 'number' ? body.update_id : entry.updateId
    return this.#inject(withUpdateId(body, id), 'replay', entry.updateId)
  }

  /** Webhook mode: straight to the bot through the relay. */
  async #inject(
    update: Record<string, unknown>,
    source: 'trigger' | 'replay',
    replayOf?: number,
  ): Promise<UpdateEntry> {
    const relay = this.#options.relay()
    if (!relay)
      throw new ActionError(
        503,
        'The session is not ready to deliver updates yet.',
        'Wait for the `Ready` line, then try again.',
      )
    const result = await this.#waits.deadline(
      relay.inject(JSON.stringify(update), {source, ...(replayOf !== undefined ? {replayOf} : {})}),
      'The bot',
    )
    // The session's recorder (src/dev/recording.ts) returns the history's entry from the relay's begin.
    const entry = result.record as UpdateEntry | undefined
    if (!entry)
      throw new ActionError(500, `The update was delivered (the bot answered ${result.status}) but not recorded.`)
    return entry
  }

  /** Offline: put the update into the emulator and wait until the bot got it (and, in webhook mode, answered). */
  async #viaEmulator(
    source: 'trigger' | 'replay',
    replayOf: number | undefined,
    send: () => Update,
  ): Promise<UpdateEntry> {
    let update: Update
    try {
      update = send()
    } catch (error) {
      if (error instanceof ActionError) throw error
      throw new ActionError(
        400,
        `The emulator refused the update: ${messageOf(error)}`,
        'Check the ids given (chat, user, message id of the pressed button).',
      )
    }
    if (!update.update_id) throw droppedError(update)
    const direct = this.#waits.recordDirectly(update, source, replayOf)
    if (direct) return direct
    const wait = this.#waits.expect(update.update_id, source, replayOf)
    try {
      return await this.#waits.deadline(wait.promise, 'The bot')
    } finally {
      wait.cancel()
    }
  }

  /** Offline: an emulator action that may queue several updates (a join: chat_member and its service message). */
  async #viaEmulatorMany(type: string, send: () => Sent): Promise<TriggerResult> {
    let sent: Sent
    try {
      sent = send()
    } catch (error) {
      throw new ActionError(
        400,
        `The emulator refused the ${type}: ${messageOf(error)}`,
        'Check the chat, user and values given (--chat, --user, --set).',
      )
    }
    const delivered = sent.filter((u) => u.update_id)
    const skipped = sent.filter((u) => !u.update_id)
    if (delivered.length === 0) {
      const reason = skipped.find((u) => u.reason)?.reason
      if (reason)
        throw new ActionError(
          422,
          `The emulator sent the bot nothing: ${reason}.`,
          reason.includes('allowed_updates')
            ? allowedUpdatesFix(/leave out (\w+)/.exec(reason)?.[1] ?? type)
            : 'See docs/emulator.md for when Telegram sends this update.',
        )
      throw droppedError(sent[0] ?? {})
    }
    const entries: UpdateEntry[] = []
    const waits = delivered.map((u) => {
      const direct = this.#waits.recordDirectly(u, 'trigger')
      if (direct) return {promise: Promise.resolve(direct), cancel: () => {}}
      return this.#waits.expect(u.update_id, 'trigger')
    })
    try {
      entries.push(...(await this.#waits.deadline(Promise.all(waits.map((w) => w.promise)), 'The bot')))
    } finally {
      for (const w of waits) w.cancel()
    }
    const main = entries[0]
    if (entries.length === 1 && skipped.length === 0) return main
    const notSent = skipped.map(
      (u) =>
        `${updateContent(u).type ?? 'an update'} not sent (${u.reason ?? 'Telegram would not send it to this bot: its allowed_updates or its rights in the chat leave it out'})`,
    )
    return {
      ...main,
      flow: {
        kind: type,
        status: 'delivered',
        ok: true,
        text: `✓ ${type}: ${entries.length} update${entries.length === 1 ? '' : 's'} delivered${notSent.length ? `; ${notSent.join('; ')}` : ''}`,
        entries,
      },
    }
  }
}

/**
 * What `bot trigger`, `bot replay` and the inspector's Replay ask a running session to do
 * (SessionActions), for each way the session runs:
 * - webhook mode (tunnel or bridge): the update goes to the bot through `relay.inject`, past the
 *   answer cache (a replay of an answered update_id reaches the bot again), held while it restarts;
 * - offline: a trigger is the emulator user's action (sendUserMessage / sendCallbackQuery /
 *   injectUpdate), so the emulator's state stays right; a replay goes through the relay in webhook
 *   mode and into the emulator's queue in polling mode;
 * - long polling against Telegram: nothing can be put into the bot's getUpdates, so 409.
 * Each resolves once the bot answered (or the delivery failed), within a deadline.
 */
import type {BotApiEmulator} from '../emulator/index.js'
import type {UpdateHistory} from '../inspector/history/history.js'
import {checkUpdateObject, expiredDate, syntheticUpdate, updateContent, withCurrentDate} from './synthetic.js'
import type {EntrySource, UpdateEntry} from '../inspector/types.js'
import {ActionError, type SessionActions, type TriggerRequest} from './protocol.js'

/** Where a webhook-mode session hands an update straight to the bot (the relay, past its answer cache). */
export interface UpdateInjector {
  inject(
    body: string,
    options: {source: 'trigger' | 'replay'; replayOf?: number},
  ): Promise<{status: number; record?: unknown}>
}

/** Who offline triggers speak as, and where they go. */
export interface OfflineTarget {
  emulator: Pick<BotApiEmulator, 'sendUserMessage' | 'sendCallbackQuery' | 'injectUpdate'>
  token: string
  user: {userId: number; chatId: number; firstName?: string; username?: string}
  /** A trigger or replay reached the bot (the offline summary counts them with the chat's lines). */
  onSent?: () => void
}

export interface InspectorActionsOptions {
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
}

interface Expected {
  source: EntrySource
  replayOf?: number
  resolve: (entry: UpdateEntry) => void
}

const POLLING_ONLINE = new ActionError(
  409,
  'This session runs the bot on long polling against Telegram, which cannot be handed an update from `bot dev`.',
  'Run `bot dev` in webhook mode (the default, or --tunnel none without a public URL), or `bot dev --offline`.',
)

export class InspectorActions implements SessionActions {
  readonly #o: InspectorActionsOptions
  /** update_ids put into the emulator, waiting for the bot to get them. */
  readonly #expected = new Map<number, Expected>()

  constructor(o: InspectorActionsOptions) {
    this.#o = o
  }

  /** How an update the session sees now was sent, when it was put into the emulator by an action. */
  expected(updateId: number): Pick<Expected, 'source' | 'replayOf'> | undefined {
    return this.#expected.get(updateId)
  }

  /** An entry got its answer (or was seen, in polling mode): an action waiting for it resolves. */
  settled(entry: UpdateEntry): void {
    const waiting = this.#expected.get(entry.updateId)
    if (!waiting || waiting.source !== entry.source) return
    this.#expected.delete(entry.updateId)
    waiting.resolve(entry)
  }

  async trigger(request: TriggerRequest): Promise<UpdateEntry> {
    return this.#counted(await this.#trigger(request))
  }

  async replay(updateId: number | 'last', edited?: Record<string, unknown>): Promise<UpdateEntry> {
    return this.#counted(await this.#replay(updateId, edited))
  }

  #counted(entry: UpdateEntry): UpdateEntry {
    try {
      this.#o.offline?.onSent?.()
    } catch {
      // a counter that throws does not undo a delivery
    }
    return entry
  }

  async #trigger(request: TriggerRequest): Promise<UpdateEntry> {
    const offline = this.#o.offline
    if (offline) return this.#viaEmulator('trigger', undefined, () => emulatorTrigger(offline, request))
    if (this.#o.mode === 'polling') throw POLLING_ONLINE
    let update: Record<string, unknown>
    try {
      const bot = this.#o.bot()
      update = syntheticUpdate(request, {updateId: this.#o.nextUpdateId(), ...(bot ? {bot} : {})})
    } catch (error) {
      throw new ActionError(400, (error as Error).message, 'See `bot trigger --help`.')
    }
    return this.#inject(update, 'trigger')
  }

  async #replay(updateId: number | 'last', edited?: Record<string, unknown>): Promise<UpdateEntry> {
    const history = this.#o.history()
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
    // A replay is a new delivery: dated now (Telegram would not deliver a message more than a day old).
    const body = withCurrentDate((edited ?? entry.update) as Record<string, unknown>)
    if (this.#o.mode === 'polling') {
      const offline = this.#o.offline
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
    const relay = this.#o.relay()
    if (!relay)
      throw new ActionError(
        503,
        'The session is not ready to deliver updates yet.',
        'Wait for the `Ready` line, then try again.',
      )
    const result = await this.#deadline(
      relay.inject(JSON.stringify(update), {source, ...(replayOf !== undefined ? {replayOf} : {})}),
      'The bot',
    )
    const entry = result.record as UpdateEntry | undefined
    if (!entry)
      throw new ActionError(500, `The update was delivered (the bot answered ${result.status}) but not recorded.`)
    return entry
  }

  /** Offline: put the update into the emulator and wait until the bot got it (and, in webhook mode, answered). */
  async #viaEmulator(
    source: 'trigger' | 'replay',
    replayOf: number | undefined,
    send: () => {update_id: number},
  ): Promise<UpdateEntry> {
    let update: {update_id: number}
    try {
      update = send()
    } catch (error) {
      throw new ActionError(
        400,
        `The emulator refused the update: ${(error as Error).message}`,
        'Check the ids given (chat, user, message id of the pressed button).',
      )
    }
    if (!update.update_id) throw droppedError(update as unknown as Record<string, unknown>)
    if (this.#o.recordDirectly) {
      const history = this.#o.history()
      if (history) {
        const entry = history.begin(update, source, replayOf)
        history.finish(entry, null, 0)
        return entry
      }
    }
    const seen = new Promise<UpdateEntry>((resolve) =>
      this.#expected.set(update.update_id, {source, ...(replayOf !== undefined ? {replayOf} : {}), resolve}),
    )
    try {
      return await this.#deadline(seen, 'The bot')
    } finally {
      this.#expected.delete(update.update_id)
    }
  }

  #deadline<T>(promise: Promise<T>, who: string): Promise<T> {
    const seconds = Math.round(this.#o.timeoutMs / 1000)
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new ActionError(
              504,
              `${who} did not take the update within ${seconds}s.`,
              'Look at the bot’s output in `bot dev`; the inspector shows the update once it is answered.',
            ),
          ),
        this.#o.timeoutMs,
      )
      timer.unref()
    })
    return Promise.race([promise, late]).finally(() => clearTimeout(timer))
  }
}

/** The emulator user's action for a trigger request. */
function emulatorTrigger(offline: OfflineTarget, request: TriggerRequest): {update_id: number} {
  const {emulator, token, user} = offline
  // A user id without a chat: that user's private chat; neither: the terminal user's chat.
  const chatId =
    'chatId' in request && request.chatId !== undefined
      ? request.chatId
      : 'userId' in request && request.userId !== undefined
        ? undefined
        : user.chatId
  const userId = 'userId' in request && request.userId !== undefined ? request.userId : user.userId
  const who = {
    userId,
    ...(chatId !== undefined ? {chatId} : {}),
    ...(userId === user.userId && user.firstName ? {firstName: user.firstName} : {}),
    ...(userId === user.userId && user.username ? {username: user.username} : {}),
  }
  if (request.kind === 'message') return emulator.sendUserMessage(token, {text: request.text, ...who})
  if (request.kind === 'callback')
    return emulator.sendCallbackQuery(token, {data: request.data, messageId: request.messageId, ...who})
  return emulator.injectUpdate(token, withoutUpdateId(withCurrentDate(request.update)))
}

/** Why the emulator dropped an update (its answer's update_id is 0), as Telegram would have. */
export function droppedError(update: Record<string, unknown>, now = Date.now()): ActionError {
  const date = expiredDate(update, now)
  if (date !== undefined)
    return new ActionError(
      422,
      `The emulator dropped the update: it is dated ${new Date(date * 1000).toISOString()}, more than 24 hours ago, and Telegram never delivers an update that old.`,
      'Date it within the last 24 hours.',
    )
  const type = updateContent(update).type ?? 'unknown'
  return new ActionError(
    422,
    `The emulator dropped the update: the bot's allowed_updates exclude its type (${type}).`,
    'Trigger an update type the bot asked for, or change allowed_updates.',
  )
}

/** The update with `update_id` first (as Telegram writes it: the relay and tools read it from the start). */
function withUpdateId(update: Record<string, unknown>, updateId: number): Record<string, unknown> {
  return {update_id: updateId, ...withoutUpdateId(update)}
}

function withoutUpdateId(update: Record<string, unknown>): Record<string, unknown> {
  const {update_id: _ignored, ...rest} = update
  return rest
}

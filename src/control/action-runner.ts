/**
 * A user action of the table (src/emulator/actions) run in a session, as `POST /actions/{name}` and `bot mcp` ask:
 * offline it is that action of the emulator's user (TriggerEngine.emulatorAction) with the defaults a person would
 * mean filled in (their own chat, the bot's newest message, poll or invoice, a button by its label); online it becomes
 * the synthetic update `bot trigger` sends (online-actions.ts). Buttons are found as the session saw the bot's
 * messages (its api proxy), offline without one in the emulator's record of the bot's calls.
 */
import {listActions} from '../emulator/actions/index.js'
import type {UpdateEntry} from '../inspector/types.js'
import type {TriggerEngine} from './actions.js'
import {hasField, intOf, reactionOf} from './action-input.js'
import {buttonChoice, ephemeralButtonData, pressedButton} from './bot-buttons.js'
import {resolveParties} from './fill.js'
import type {OfflineTarget} from './offline-trigger.js'
import {onlineRequest, runsOnline} from './online-actions.js'
import {ActionError, type ActionOutcome, type TriggerResult} from './protocol.js'
import {factsFromCalls, type BotMessage, type SessionFacts} from './session-facts.js'
import type {JsonObject as Json} from './requests.js'

/** Actions whose chat defaults to the user's private chat (the session's user offline, the last one seen online). */
const CHAT_SCOPED = new Set(['send_message', 'send_media', 'press_button', 'react', 'pay_invoice'])

export interface ActionRunnerOptions {
  engine: TriggerEngine
  facts: SessionFacts
  /** Offline: the emulator and its user. */
  offline?: OfflineTarget
}

export class ActionRunner {
  readonly #engine: TriggerEngine
  readonly #facts: SessionFacts
  readonly #offline: OfflineTarget | undefined

  constructor(o: ActionRunnerOptions) {
    this.#engine = o.engine
    this.#facts = o.facts
    this.#offline = o.offline
  }

  async act(name: string, input: Record<string, unknown>): Promise<ActionOutcome> {
    const known = listActions().some((a) => a.name === name)
    if (!known)
      throw new ActionError(
        404,
        `There is no user action "${name}".`,
        `Use one of: ${listActions()
          .map((a) => a.name)
          .join(', ')}.`,
      )
    const offline = this.#offline
    if (offline) return this.#offlineAct(offline, name, {...input})
    if (!runsOnline(name))
      throw new ActionError(
        409,
        `${name} needs an offline session: against Telegram only what \`bot trigger\` can fake is sent.`,
        'Run `bot mcp --offline` (or `bot dev --offline`), or send the update yourself with the trigger tool (type update).',
      )
    const request = onlineRequest(name, input, (given) => {
      const party = this.#party(given)
      const choice = buttonChoice(given)
      return {...pressedButton(this.#botMessages(party.chatId), party.chatId, choice), ...party}
    })
    return outcome(name, await this.#engine.trigger(request))
  }

  /** The user and chat an action defaults to: offline the session's user, online the last real ones seen. */
  #party(input: Json): {chatId: number; userId: number} {
    const chatId = intOf(input.chat_id, 'chat_id')
    const userId = intOf(input.user_id, 'user_id')
    const offline = this.#offline
    if (offline) {
      if (chatId === undefined && userId === undefined)
        return {chatId: offline.user.chatId, userId: offline.user.userId}
      if (chatId === undefined) return {chatId: userId ?? offline.user.chatId, userId: userId ?? offline.user.userId}
      return {chatId, userId: userId ?? (chatId > 0 ? chatId : offline.user.userId)}
    }
    const parties = resolveParties(
      {...(chatId !== undefined ? {chatId} : {}), ...(userId !== undefined ? {userId} : {})},
      this.#facts.lastParty(),
    )
    return {chatId: parties.chatId, userId: parties.userId}
  }

  /** The bot's messages in a chat as the session saw them (offline without the api proxy: the emulator's record). */
  #botMessages(chatId: number): BotMessage[] {
    const seen = this.#facts.botMessages(chatId)
    const offline = this.#offline
    if (seen.length > 0 || !offline) return seen
    return factsFromCalls(offline.emulator.sentMessages(offline.token, {chatId})).botMessages(chatId)
  }

  #offlineAct(offline: OfflineTarget, name: string, input: Json): Promise<ActionOutcome> {
    if (CHAT_SCOPED.has(name) && input.chat_id === undefined) {
      const {chatId, userId} = this.#party(input)
      input.chat_id = chatId
      input.user_id ??= userId
    } else if (input.user_id === undefined && name !== 'choose_inline_result' && hasField(name, 'user_id'))
      input.user_id = offline.user.userId
    const chatId = typeof input.chat_id === 'number' ? input.chat_id : offline.user.chatId
    if (name === 'press_button' && input.ephemeral_message_id !== undefined) {
      input.data = ephemeralButtonData(() => offline.emulator.ephemeralMessages(offline.token), input, chatId)
      delete input.label
    } else if (name === 'press_button') {
      const choice = buttonChoice(input)
      const {data, messageId} = pressedButton(this.#botMessages(chatId), chatId, choice)
      delete input.label
      input.data = data
      input.message_id = messageId
    }
    if (name === 'react' && input.message_id === undefined) input.message_id = this.#newest(chatId, 'message')
    if (name === 'react') input.reaction = reactionOf(input.reaction)
    if (name === 'vote_poll' && input.poll_id === undefined) input.poll_id = this.#newest(chatId, 'poll')
    if (name === 'pay_invoice' && input.invoice === undefined) input.invoice = this.#newest(chatId, 'invoice')
    return this.#engine.emulatorAction(name, input)
  }

  /** The bot's newest message, poll id or invoice message id in the chat; refused when it sent none. */
  #newest(chatId: number, what: 'message' | 'poll' | 'invoice'): number | string {
    const messages = this.#botMessages(chatId)
    const found =
      what === 'message'
        ? messages[0]
        : what === 'poll'
          ? messages.find((m) => m.poll)
          : messages.find((m) => m.invoice)
    if (!found)
      throw new ActionError(
        404,
        `The bot has sent no ${what === 'message' ? 'message' : what} in chat ${chatId} that this session saw.`,
        `Make the bot send one first, or pass ${what === 'message' ? 'message_id' : what === 'poll' ? 'poll_id' : 'invoice'}.`,
      )
    if (what === 'poll' && found.poll) return found.poll.id
    return found.messageId
  }
}

/** A trigger's result as an action's outcome: every update it delivered, oldest first. */
function outcome(name: string, result: TriggerResult): ActionOutcome {
  const {flow, ...entry} = result
  const delivered: UpdateEntry = entry
  return {action: name, entries: flow?.entries ?? [delivered], ...(flow ? {flow} : {})}
}

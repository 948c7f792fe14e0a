/**
 * The Bot API emulator: a local, offline Bot API server for tests and `bot dev --offline`.
 *
 * ```ts
 * import {BotApiEmulator} from 'bot-cli/emulator'
 * const emu = await BotApiEmulator.start()
 * const {token} = emu.createBot({username: 'test_bot'})
 * // run the bot with apiRoot = emu.apiRoot, then:
 * emu.sendUserMessage(token, {text: '/start'})
 * const reply = await emu.waitForBotMessage(token)
 * await emu.stop()
 * ```
 */
export {BotApiEmulator, type EmulatorEvents} from './emulator.js'
export type * from './types.js'
export type {BotUser, CallbackQuery, Chat, ChatMember, Message, User} from './telegram.js'
export {UPDATE_TYPES} from './state/updates.js'
export type {ConversationOptions, ConversationUser} from './conversation.js'
export type {FaultSpec} from './state/faults.js'
export type {PayOptions} from './user/payments.js'
export type {PaymentAttempt, PaymentStatus} from './state/payments.js'
export type {ReactionOptions} from './user/reactions.js'
export type {JoinRequestOptions, MemberChange} from './user/members.js'
export type {BusinessMessageOptions, ConnectOptions} from './user/business.js'
export type {BoostOptions} from './user/boosts.js'
export type {GuestOptions} from './user/guests.js'
export type {SharedWidgetQueryOptions, WidgetQueryOptions} from './user/widgets.js'
export type {SubscriptionOptions} from './user/subscriptions.js'
export type {StopGenerationOptions} from './user/generation.js'
export type {VoteOptions} from './user/polls.js'
export type {InlineQueryOptions} from './user/inline.js'
export {InputError, listActions} from './actions/index.js'
export type {ActionInfo, ActionInput, ActionName, ActionResult} from './actions/index.js'
export type {MessageView} from './client-view.js'
export {parseChatScript, ChatScriptError, type ParseOptions} from './scripts/parse.js'
export {runChatScript} from './scripts/api.js'
export {updateChatScript} from './scripts/update.js'
export {canonicalExpectation, eventsOf, type BotEvent} from './scripts/expect.js'
export type {
  BotExpectation,
  ChatScript,
  ChatStep,
  ChatType,
  ScriptUser,
  TextMatcher,
} from './scripts/format.js'
export type {
  ChatScriptFailure,
  ChatScriptOptions,
  ChatScriptResult,
  ChatScriptSegment,
  ChatScriptSummary,
} from './scripts/run.js'

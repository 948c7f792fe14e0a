/**
 * The table of user actions: everything a user (or Telegram on a user's behalf) can do to a bot, declared once.
 * Each entry (action.ts) has its name, its checked parameters, what it does and what it returns; the surfaces are
 * views of it: BotApiEmulator's methods and `runAction`, the conversation API (../conversation.ts), the control
 * API's routes (control/actions.ts), and through those the offline chat and `bot trigger --offline`.
 *
 * Adding an action: its implementation in ../user/, its entry in a file of this folder, its line below, its docs
 * (docs/emulator.md, "The table of user actions").
 */
import type {BotState} from '../state/bot.js'
import {type Action, type ActionContext, type ActionInfo, checkInput, describeAction} from './action.js'
import {InputError} from './fields.js'
import {pressButton, sendMedia, sendMessage} from './messages.js'
import {votePoll} from './polls.js'
import {chooseInlineResult, inlineQuery} from './inline.js'
import {buyPaidMedia, payInvoice, renewSubscription} from './payments.js'
import {react} from './reactions.js'
import {blockBot, joinChat, leaveChat, requestJoin, setBotStatus, setMemberStatus, unblockBot} from './members.js'
import {
  connectBusiness,
  deleteBusinessMessages,
  editBusinessConnection,
  editBusinessMessage,
  sendBusinessMessage,
} from './business.js'
import {boostChat, removeChatBoost} from './boosts.js'
import {openWebAppQuery, sendWebAppData} from './web-apps.js'
import {launchWebApp} from './web-app-launch.js'
import {webAppCloudStorage} from './cloud-storage.js'
import {summonGuest} from './guests.js'
import {sharedWidgetQuery, widgetQuery} from './widgets.js'
import {updateSubscription} from './subscriptions.js'
import {stopGeneration} from './generation.js'
import {shareChat, shareContact, shareLocation, shareUsers} from './shares.js'
import {addToCommunity, joinFromCommunity, removeFromCommunity} from './communities.js'
import {allowWriteAccess} from './write-access.js'

const TABLE = {
  send_message: sendMessage,
  send_media: sendMedia,
  press_button: pressButton,
  vote_poll: votePoll,
  inline_query: inlineQuery,
  choose_inline_result: chooseInlineResult,
  pay_invoice: payInvoice,
  renew_subscription: renewSubscription,
  buy_paid_media: buyPaidMedia,
  react,
  set_member_status: setMemberStatus,
  join_chat: joinChat,
  leave_chat: leaveChat,
  request_join: requestJoin,
  set_bot_status: setBotStatus,
  block_bot: blockBot,
  unblock_bot: unblockBot,
  connect_business: connectBusiness,
  edit_business_connection: editBusinessConnection,
  send_business_message: sendBusinessMessage,
  edit_business_message: editBusinessMessage,
  delete_business_messages: deleteBusinessMessages,
  boost_chat: boostChat,
  remove_chat_boost: removeChatBoost,
  send_web_app_data: sendWebAppData,
  open_web_app_query: openWebAppQuery,
  launch_web_app: launchWebApp,
  web_app_cloud_storage: webAppCloudStorage,
  summon_guest: summonGuest,
  widget_query: widgetQuery,
  shared_widget_query: sharedWidgetQuery,
  update_subscription: updateSubscription,
  stop_generation: stopGeneration,
  share_contact: shareContact,
  share_location: shareLocation,
  share_users: shareUsers,
  share_chat: shareChat,
  add_to_community: addToCommunity,
  remove_from_community: removeFromCommunity,
  join_from_community: joinFromCommunity,
  allow_write_access: allowWriteAccess,
} satisfies Record<string, Action>

export type ActionName = keyof typeof TABLE
export type ActionInput<K extends ActionName> = Parameters<(typeof TABLE)[K]['run']>[1]
/** What `run` returns: a Promise for an action that settles later (pay_invoice). */
export type ActionResult<K extends ActionName> = ReturnType<(typeof TABLE)[K]['run']>

/**
 * The table, each entry typed by its own input and result: `ACTIONS[name]` for a name `K` known only as a type
 * parameter runs with `ActionInput<K>` and returns `ActionResult<K>`.
 */
export const ACTIONS: {[K in ActionName]: Action<ActionInput<K>, ActionResult<K>>} = TABLE
/** Run an action with its options (typed, unchecked: the JavaScript API's callers are checked by TypeScript). */
export type Act = <K extends ActionName>(name: K, input: ActionInput<K>) => ActionResult<K>

export type {Action, ActionContext, ActionInfo} from './action.js'
export {InputError} from './fields.js'

/** Every action: its name, one-line description, parameters (one JSON Schema object), result, control API route. */
export function listActions(): ActionInfo[] {
  return Object.values(ACTIONS).map((action) => describeAction(action))
}

/** The action of a name, or an InputError naming the actions there are. */
export function actionNamed(name: string): Action {
  if (!isActionName(name))
    throw new InputError(`there is no user action "${name}"; the actions are ${Object.keys(ACTIONS).join(', ')}`, 404)
  return ACTIONS[name]
}

/** Whether the table has an action of this name (its own key, not one an object inherits). */
export function isActionName(name: string): name is ActionName {
  return Object.hasOwn(ACTIONS, name)
}

/**
 * Run the action `name` with input as JSON carries it (snake_case, unchecked): checked by the table (an
 * InputError in our words), run, and its result as JSON. `path` holds a control API route's path segments.
 */
export async function invokeAction(
  ctx: ActionContext,
  name: string,
  input: unknown,
  path: Record<string, string> = {},
): Promise<unknown> {
  const action = actionNamed(name)
  const options = checkInput(action, input, ctx.bot, path)
  return action.json(await action.run(ctx, options))
}

/** Check input without running it: the options the implementation would get (for a caller that runs it later). */
export function checkAction(bot: BotState, name: string, input: unknown): unknown {
  return checkInput(actionNamed(name), input, bot)
}

/**
 * The user actions of the table (src/emulator/actions) against Telegram: each becomes the synthetic update `bot
 * trigger` sends (a message, a button press, a fixture), so the same MCP tool works in webhook mode; and the list of
 * actions a session offers (`GET /actions`), offline the whole table, online those it can fake.
 */
import {listActions} from '../emulator/actions/index.js'
import {intOf, paramsOf, reactionOf} from './action-input.js'
import type {FixtureType} from './fixtures.js'
import {ActionError, type FixtureSet, type SessionAction, type TriggerRequest} from './protocol.js'
import type {JsonObject as Json} from './requests.js'
import {isJsonObject} from '../lib/json-object.js'

/** The actions a session against Telegram can run, each as the fixture (or built-in kind) `bot trigger` sends. */
const ONLINE: Record<string, {fixture?: FixtureType; summary: string}> = {
  send_message: {summary: 'a synthetic message from the user'},
  press_button: {summary: 'a synthetic callback_query'},
  send_media: {fixture: 'photo', summary: 'a synthetic photo message (photos only)'},
  react: {fixture: 'reaction', summary: 'a synthetic message_reaction'},
  vote_poll: {fixture: 'poll-answer', summary: 'a synthetic poll_answer'},
  inline_query: {fixture: 'inline', summary: 'a synthetic inline_query (the api proxy answers answerInlineQuery)'},
  pay_invoice: {fixture: 'payment', summary: 'a synthetic pre_checkout_query, then successful_payment'},
  block_bot: {fixture: 'member-blocked', summary: 'a synthetic my_chat_member (kicked)'},
  unblock_bot: {fixture: 'member-unblocked', summary: 'a synthetic my_chat_member (member)'},
  join_chat: {fixture: 'member-joined', summary: 'a synthetic chat_member (joined)'},
  leave_chat: {fixture: 'member-left', summary: 'a synthetic chat_member (left)'},
  request_join: {fixture: 'join-request', summary: 'a synthetic chat_join_request'},
  send_business_message: {fixture: 'business-message', summary: 'a synthetic business_message'},
  send_web_app_data: {fixture: 'web-app-data', summary: 'a synthetic web_app_data message'},
  widget_query: {fixture: 'widget-query', summary: 'a synthetic widget_query'},
  update_subscription: {fixture: 'subscription', summary: 'a synthetic subscription update'},
  stop_generation: {fixture: 'stopped-generation', summary: 'a synthetic stopped_message_generation'},
}

/** Fields MCP adds to the table's (press_button by label). */
const LABEL = {type: 'string', description: "the button's label as shown (instead of data)"}

/** Whether a session against Telegram can fake the action `name`. */
export function runsOnline(name: string): boolean {
  return Object.hasOwn(ONLINE, name)
}

/**
 * The user actions a session runs (offline: the whole table; online: those `bot trigger` can fake), each with the
 * table's input schema, relaxed where the session fills a default in: press_button by `label` or `data` on the
 * bot's newest message that has it, react to the bot's newest message, vote in its newest poll, pay its newest
 * invoice.
 */
export function sessionActions(offline: boolean): SessionAction[] {
  return listActions()
    .filter((a) => offline || runsOnline(a.name))
    .map((a) => {
      const {required: given, ...rest}: Json = JSON.parse(JSON.stringify(a.params))
      const properties = {...(isJsonObject(rest.properties) ? rest.properties : {})}
      let required = Array.isArray(given) ? given.filter((r) => typeof r === 'string') : []
      if (a.name === 'press_button') {
        properties.label = LABEL
        required = []
      }
      if (a.name === 'react' || a.name === 'vote_poll' || a.name === 'pay_invoice')
        required = required.filter((r) => !['chat_id', 'message_id', 'poll_id', 'invoice'].includes(r))
      return {
        name: a.name,
        description: offline ? a.description : `${a.description} (online: ${ONLINE[a.name].summary})`,
        params: {...rest, properties, ...(required.length > 0 ? {required} : {})},
        result: a.result,
      }
    })
}

/**
 * An action against Telegram as the synthetic update `bot trigger` sends for it; `press` finds the button a
 * press_button means (and its chat and user).
 */
export function onlineRequest(
  name: string,
  input: Json,
  press: (input: Json) => {data: string; messageId: number; chatId: number; userId: number},
): TriggerRequest {
  const allowed = new Set([...Object.keys(paramsOf(name)), ...(name === 'press_button' ? ['label'] : [])])
  for (const key of Object.keys(input))
    if (!allowed.has(key))
      throw new ActionError(400, `unknown field "${key}"; the fields are ${[...allowed].join(', ')}.`, 'Leave it out.')
  const given = {
    ...(input.chat_id !== undefined ? {chatId: intOf(input.chat_id, 'chat_id')} : {}),
    ...(input.user_id !== undefined ? {userId: intOf(input.user_id, 'user_id')} : {}),
  }
  if (name === 'send_message') {
    if (typeof input.text !== 'string' || input.text === '')
      throw new ActionError(400, 'text is required (the message text).', 'Pass {"text": "hello"}.')
    return {kind: 'message', text: input.text, ...given}
  }
  if (name === 'press_button') {
    if (input.ephemeral_message_id !== undefined)
      throw new ActionError(
        409,
        "Against Telegram a press on an ephemeral message can't be faked.",
        'Use an offline session to press buttons of ephemeral messages.',
      )
    return {kind: 'callback', ...press(input)}
  }
  const fixture = ONLINE[name]?.fixture
  if (fixture === undefined) throw new TypeError(`${name} is not an action a session against Telegram can fake`)
  const {sets, file} = fixtureValues(name, input)
  return {kind: 'fixture', type: fixture, ...(sets.length > 0 ? {sets} : {}), ...(file ? {file} : {}), ...given}
}

/** Where each input field of an online action goes in its fixture (a --set path); react and send_media add theirs. */
const FIXTURE_PATHS: Record<string, Array<[field: string, path: string]>> = {
  send_media: [['caption', 'message.caption']],
  react: [['message_id', 'message_reaction.message_id']],
  vote_poll: [
    ['poll_id', 'poll_answer.poll_id'],
    ['option_ids', 'poll_answer.option_ids'],
  ],
  inline_query: [['query', 'inline_query.query']],
  send_business_message: [['text', 'business_message.text']],
  send_web_app_data: [
    ['data', 'message.web_app_data.data'],
    ['button_text', 'message.web_app_data.button_text'],
  ],
  widget_query: [['data', 'widget_query.data']],
  update_subscription: [['state', 'subscription.state']],
  stop_generation: [['draft_id', 'stopped_message_generation.draft_id']],
}

/** The --set values (and photo) of the fixture an online action sends, from its input. */
function fixtureValues(name: string, input: Json): {sets: FixtureSet[]; file?: {base64: string; name?: string}} {
  const file = name === 'send_media' ? photoOf(input) : undefined
  const sets: FixtureSet[] = []
  for (const [field, path] of FIXTURE_PATHS[name] ?? [])
    if (input[field] !== undefined) sets.push({path: path.split('.'), value: input[field]})
  if (name === 'react' && input.reaction !== undefined)
    sets.push({path: ['message_reaction', 'new_reaction'], value: reactionOf(input.reaction)})
  return {sets, ...(file ? {file} : {})}
}

/** send_media against Telegram: a photo only, its bytes given as base64. */
function photoOf(input: Json): {base64: string; name?: string} {
  if (input.kind !== 'photo')
    throw new ActionError(
      409,
      `Against Telegram only a photo can be faked (kind "${String(input.kind)}").`,
      'Send kind "photo", or use an offline session for other media.',
    )
  const f = isJsonObject(input.file) ? input.file : {}
  if (typeof f.data !== 'string') throw new ActionError(400, 'file.data (base64) is required.', 'Pass the image.')
  return {base64: f.data, ...(typeof f.filename === 'string' ? {name: f.filename} : {})}
}

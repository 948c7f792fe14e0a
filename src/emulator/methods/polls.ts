/**
 * sendPoll and stopPoll: the server's reading of the parameters (Client.cpp process_send_poll_query) and td's
 * rules and texts (options 1-12, option ≤ 100, question ≤ 300, a quiz's correct options non-empty, increasing and
 * in range, voters restricted only in channels), every field of the Poll, `open_period`/`close_date` (the poll then
 * closes by itself and a `poll` update says so), `is_closed`. Votes come from users (user/polls.ts).
 */
import type {BotState} from '../state/bot.js'
import type {Core, Handler} from './core.js'
import {badRequest} from '../errors.js'
import {entitiesJson, formatText} from '../format/index.js'
import {toBool, type Params} from '../http/params.js'
import {finishSend, prepareSend} from './send.js'
import {type PollState, pollJson} from '../state/polls.js'
import type {TgObject} from '../types.js'
import type {Message} from '../telegram.js'
import {markupOf} from './message-params.js'
import {integerFieldText, parseJsonBounded} from '../json.js'
import {toInteger} from '../integer.js'
import {INT32_MAX, INT32_MIN, integerArg, stringsParam, jsonArg} from './args.js'
import {isObject} from '../telegram.js'

/** `<text>, <entities>` of an optional formatted parameter (explanation, description). */
function formattedOf(params: Params, name: string): {text: string; entities: TgObject[]} | undefined {
  const raw = params.get(name)
  if (!raw) return undefined
  const finish = formatText({
    raw,
    kind: 'caption',
    parseMode: params.get(`${name}_parse_mode`),
    entities: params.get(`${name}_entities`),
  })
  const {text, entities} = finish()
  return text === '' ? undefined : {text, entities: entitiesJson(entities)}
}

/** get_input_poll_options: strings or InputPollOption objects. */
function readOptions(params: Params): Array<{text: string; entities?: unknown[]}> {
  const value = jsonArg(params.get('options') ?? '', "can't parse options JSON object")
  if (!Array.isArray(value)) throw badRequest('expected an Array of String as options')
  return value.map((option) => {
    if (typeof option === 'string') return {text: option}
    if (!isObject(option)) throw badRequest('expected an option to be of type String')
    const o = option
    if (!('text' in o)) throw badRequest('can\'t find field "text"')
    if (typeof o.text !== 'string') throw badRequest('field "text" must be of type String')
    return {text: o.text, ...(Array.isArray(o.text_entities) ? {entities: o.text_entities} : {})}
  })
}

/** correct_option_ids (a JSON array of numbers), or the legacy correct_option_id. */
function readCorrect(params: Params): number[] {
  const raw = params.get('correct_option_ids')
  if (raw !== undefined) {
    const value = jsonArg(raw, "can't parse correct option identifiers JSON object")
    if (!Array.isArray(value)) throw badRequest('expected an Array of correct option identifiers')
    // process_send_poll_query: td::to_integer_safe<int32>(the number as written): the literal must be the integer's
    // own decimal form (`1.0`, `1e0`, `-0` or 2147483648 are refused)
    return value.map((v, i) => {
      if (typeof v !== 'number') throw badRequest('correct option identifier must be of type Number')
      const literal = integerFieldText(value, String(i))!
      const n = toInteger(literal, 32)
      if (String(n) !== literal) throw badRequest('invalid correct option identifier specified')
      return n
    })
  }
  // process_send_poll_query: get_integer_arg(query, "correct_option_id", -1), td::to_integer<int32>
  if (params.get('correct_option_id') === undefined) return []
  return [integerArg(params, 'correct_option_id', -1, INT32_MIN, INT32_MAX)]
}

const questionLength = (text: string): number => [...text].length

export const sendPoll: Handler = (bot, params, core) => {
  const question = params.get('question') ?? ''
  const options = readOptions(params)
  const typeParam = params.get('type') ?? ''
  if (typeParam !== '' && typeParam !== 'quiz' && typeParam !== 'regular')
    throw badRequest('unsupported poll type specified')
  const quiz = typeParam === 'quiz'
  const correct = quiz ? readCorrect(params) : []
  const explanation = quiz ? formattedOf(params, 'explanation') : undefined
  const description = formattedOf(params, 'description')
  const isAnonymous = params.has('is_anonymous') ? toBool(params.get('is_anonymous')) : true
  const allowsRevoting = params.has('allows_revoting') ? toBool(params.get('allows_revoting')) : !quiz
  const openPeriod = Math.min(2628000, Math.max(0, toInteger(params.get('open_period') ?? '', 32)))
  const closeDateParam = Math.max(0, toInteger(params.get('close_date') ?? '', 32))
  const membersOnly = toBool(params.get('members_only'))
  stringsParam(params, 'country_codes', 12) // process_send_poll_query: get_strings(query, 12, "country_codes")
  const prepared = prepareSend(bot, params)
  // td's rules, after the chat
  // td MessageContent.cpp get_input_message_content (inputMessagePoll) and PollOption.cpp get_poll_option read the
  // question and each option with get_formatted_text(allow_empty = false): MessageEntity.cpp fix_formatted_text
  if (question.trim() === '') throw badRequest('text must be non-empty')
  if (questionLength(question) > 300) throw badRequest('poll question length must not exceed 300')
  if (options.length === 0) throw badRequest('poll must have at least one answer option')
  if (options.length > 12) throw badRequest("poll can't have more than 12 options")
  for (const option of options) {
    if (option.text.trim() === '') throw badRequest('text must be non-empty')
    if ([...option.text].length > 100) throw badRequest('poll options length must not exceed 100')
  }
  if (quiz) {
    if (correct.length === 0) throw badRequest('correct quiz option list must be non-empty')
    for (let i = 1; i < correct.length; i++)
      if (correct[i] <= correct[i - 1]) throw badRequest('correct quiz option list must be increasing')
    if (correct.some((c) => c < 0 || c >= options.length)) throw badRequest('wrong quiz correct_option_id')
  }
  if (membersOnly && prepared.chat.type !== 'channel')
    throw badRequest('poll voters can be restricted only in channel chats')
  const now = Math.floor(Date.now() / 1000)
  const closeDate = openPeriod > 0 ? now + openPeriod : closeDateParam > now ? closeDateParam : undefined
  const questionEntities = safeJson(params.get('question_entities'))
  const poll: PollState = {
    id: bot.polls.nextId(bot.id),
    chatId: prepared.chat.id,
    messageId: 0,
    question,
    ...(Array.isArray(questionEntities) ? {questionEntities} : {}),
    options: options.map((o, i) => ({
      id: String(i),
      text: o.text,
      ...(o.entities ? {entities: o.entities} : {}),
      voters: 0,
    })),
    isClosed: toBool(params.get('is_closed')),
    isAnonymous,
    type: quiz ? 'quiz' : 'regular',
    allowsMultipleAnswers: toBool(params.get('allows_multiple_answers')),
    allowsRevoting,
    membersOnly,
    correctOptionIds: correct,
    ...(explanation ? {explanation: explanation.text, explanationEntities: explanation.entities} : {}),
    ...(closeDate ? {openPeriod: closeDate - now, closeDate} : {}),
    ...(description ? {description: description.text, descriptionEntities: description.entities} : {}),
    votes: new Map(),
  }
  const message = finishSend(bot, prepared, {poll: pollJson(poll)})
  poll.messageId = message.message_id
  bot.polls.add(poll)
  if (closeDate && !poll.isClosed) scheduleClose(bot, core, poll, (closeDate - now) * 1000)
  return {result: message}
}

function safeJson(raw: string | undefined): unknown {
  try {
    return raw ? parseJsonBounded(raw) : undefined
  } catch {
    return undefined
  }
}

/** At its close_date the poll closes by itself, and the bot gets the `poll` update (its own poll). */
function scheduleClose(bot: BotState, core: Core, poll: PollState, ms: number): void {
  poll.cancelClose = core.later(() => {
    if (poll.isClosed || bot.polls.get(poll.id) !== poll) return
    poll.isClosed = true
    refreshMessage(bot, poll)
    core.inject(bot, {poll: pollJson(poll, true)})
  }, core.scale(ms))
}

/** The poll's message carries its current state. */
export function refreshMessage(bot: BotState, poll: PollState, keyboard?: TgObject | null): void {
  const stored = bot.messages.get(poll.chatId, poll.messageId)
  if (!stored) return
  const next: Message = {...stored.message, poll: pollJson(poll)}
  if (keyboard === null) delete next.reply_markup
  else if (keyboard) next.reply_markup = keyboard
  bot.messages.put(next, stored.byBot)
}

/** stopPoll (Client.cpp process_stop_poll_query): the stopped Poll, with its new keyboard on the message. */
export const stopPoll: Handler = (bot, params) => {
  const markup = markupOf(params)
  const raw = params.get('chat_id') ?? ''
  if (raw.trim() === '') throw badRequest('chat_id is empty')
  const chat = bot.findChat(raw.trim())
  if (!chat) throw badRequest('chat not found')
  const id = toInteger(params.get('message_id') ?? '', 32)
  const stored = id > 0 ? bot.messages.get(chat.id, id) : undefined
  if (!stored || stored.deleted) throw badRequest('message with poll to stop not found')
  if (!stored.message.poll) throw badRequest('message is not a poll')
  const poll = bot.polls.ofMessage(chat.id, id)
  if (!stored.byBot || !poll) throw badRequest("poll can't be stopped")
  if (poll.isClosed) throw badRequest('poll has already been closed')
  const keyboard = markup()
  poll.isClosed = true
  poll.cancelClose?.()
  refreshMessage(bot, poll, keyboard ?? null)
  return {result: pollJson(poll)}
}

export const POLL_METHODS: Record<string, Handler> = {sendpoll: sendPoll, stoppoll: stopPoll}

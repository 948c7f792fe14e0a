/**
 * The generic parameter checks of the catalogue: what the server's shared argument readers answer (BA Client.cpp
 * get_user_id, get_message_ids, get_location, get_input_file, get_required_string_arg, check_chat, check_user,
 * check_message), applied to a method from its documented parameters. Methods with a handler of their own run
 * their own checks (in the server's order); every other method of the catalogue goes through these.
 */
import type {BotState} from '../../state/bot.js'
import {badRequest} from '../../errors.js'
import type {Params} from '../../http/params.js'
import type {Chat, Message} from '../../telegram.js'
import type {FieldSpec, MethodSpec} from './index.js'
import {parseJsonBounded} from '../../json.js'
import {toInteger} from '../../integer.js'
import {checkSuggestedPost} from '../message-params.js'

/** `<what> not found`: the message a method's message_id names (BA check_message's message_type). */
export const MESSAGE_TARGETS: Readonly<Record<string, string>> = {
  pinchatmessage: 'message to pin',
  unpinchatmessage: 'message to unpin',
  setmessagereaction: 'message to react',
  deletemessagereaction: 'message to delete reactions',
  setgamescore: 'message to set game score',
  getgamehighscores: 'message to get game high scores',
  approvesuggestedpost: 'suggested post',
  declinesuggestedpost: 'suggested post',
  forwardmessage: 'message to forward',
  copymessage: 'message to copy',
  stoppoll: 'message with poll to stop',
  deletemessage: 'message to delete',
  editmessagechecklist: 'message to edit',
}

/** The words of `can't parse … JSON object` where they are not the parameter's name (BA Client.cpp). */
const JSON_NAMES: Readonly<Record<string, string>> = {
  rights: 'ChatAdministratorRights',
  reaction: 'reaction types',
  custom_emoji_ids: 'custom emoji identifiers',
  checklist: 'InputChecklist',
  content: 'story content',
  areas: 'story areas',
  scope: 'BotCommandScope',
  result: 'inline query result',
}

/** Types that are read as text (the rest of the documented types are JSON). */
const SCALARS = new Set([
  'String',
  'Integer',
  'Float',
  'Boolean',
  'Integer or String',
  'InputFile or String',
  'InputFile',
])

export const QUERY_ID_INVALID = 'query is too old and response timeout expired or query ID is invalid'

/**
 * The parameters the server reads with `get_required_string_arg` (BA Client.cpp; also through get_input_media,
 * get_input_message_contents, get_paid_media, get_input_checklist, get_input_message_invoice and
 * get_shipping_options), by lower-cased method: only these answer `parameter "X" is required`. Every other
 * documented String the server reads with `query->arg` and hands on (an empty one fails later, in td or in a chat,
 * user or business connection check).
 */
export const REQUIRED_STRING_ARGS: Readonly<Record<string, readonly string[]>> = {
  sendgame: ['game_short_name'],
  sendcontact: ['phone_number', 'first_name'],
  forwardmessage: ['from_chat_id'],
  forwardmessages: ['from_chat_id'],
  copymessage: ['from_chat_id'],
  copymessages: ['from_chat_id'],
  repoststory: ['from_chat_id'],
  refundstarpayment: ['telegram_payment_charge_id'],
  setbusinessaccountname: ['first_name'],
  getcustomemojistickers: ['custom_emoji_ids'],
  sendinvoice: ['title', 'description', 'payload', 'currency', 'prices'],
  createinvoicelink: ['title', 'description', 'payload', 'currency', 'prices'],
  sendmediagroup: ['media'],
  sendpaidmedia: ['media'],
  editmessagemedia: ['media'],
  sendchecklist: ['checklist'],
  editmessagechecklist: ['checklist'],
}

/** The newest Bot API version whose methods the server's source (tdlib/telegram-bot-api Client.cpp) has. */
const SOURCE_VERSION = 10.0

/** Whether a method is in the server's source: newer ones keep the documented required parameters' check. */
const inSource = (spec: MethodSpec): boolean => spec.since.startsWith('≤') || Number(spec.since) <= SOURCE_VERSION

/** What the server answers for a missing JSON parameter whose reader has words of its own (BA Client.cpp). */
const MISSING_JSON: Readonly<Record<string, string>> = {
  // get_input_chat_photo
  photo: "photo isn't specified",
  // get_input_story_content
  content: "story content isn't specified",
  // get_accepted_gift_types
  accepted_gift_types: "accepted gift types aren't specified",
}

/**
 * The arrays the server checks item by item, by method and parameter (BA Client.cpp): process_set_sticker_keywords_query
 * (`keywords`), get_passport_element_errors (`errors`).
 */
function checkArray(method: string, name: string, value: unknown): void {
  if (method === 'setstickerkeywords' && name === 'keywords') {
    if (!Array.isArray(value)) throw badRequest('field "keywords" must be an Array')
    for (const item of value) if (typeof item !== 'string') throw badRequest('keyword must be a string')
  }
  if (method === 'setpassportdataerrors' && name === 'errors' && !Array.isArray(value))
    throw badRequest('expected an Array of PassportElementError')
}

/** The parameter naming the chat that check_business_connection_chat_id reads first (BA Client.cpp). */
const BUSINESS_CHAT_PARAM: Readonly<Record<string, string>> = {
  readbusinessmessage: 'chat_id',
  transfergift: 'new_owner_chat_id',
}

/** A parameter that holds JSON (an object type or an array). */
export const isJsonParam = (p: FieldSpec): boolean => !SCALARS.has(p.type)

/** What the checks found, for the result builder: the chat named by chat_id and the decoded JSON parameters. */
export interface Checked {
  chat?: Chat
  message?: Message
  json: Record<string, unknown>
}

/**
 * The generic checks in the server's order: first what is read from the request (ids, required strings, JSON,
 * files), then the chat, then the user, then the message. Throws the ApiError the server answers.
 */
export function checkParams(bot: BotState, spec: MethodSpec, params: Params): Checked {
  const lower = spec.name.toLowerCase()
  const json: Record<string, unknown> = {}
  let userId: number | undefined
  const source = inSource(spec)
  const requiredStrings = REQUIRED_STRING_ARGS[lower] ?? []
  const isRequired = (p: FieldSpec): boolean => (source ? requiredStrings.includes(p.name) : p.required)
  if (lower === 'sendgift' && (params.get('chat_id') ?? '') === '' && toInteger(params.get('user_id') ?? '') <= 0)
    throw badRequest('invalid user_id specified') // process_send_gift_query: a user when no chat_id is given
  for (const p of spec.params) {
    const raw = params.get(p.name)
    const present = raw !== undefined && raw !== ''
    if (p.name === 'chat_id' || p.name === 'message_id') continue
    if (p.name === 'business_connection_id' && source) continue // check_business_connection, below
    // get_sticker_input_file: a sticker's file identifier, trimmed
    if (p.name === 'sticker' && p.type === 'String' && source) {
      if (p.required && (raw ?? '').trim() === '') throw badRequest('sticker is not specified')
      continue
    }
    if (/(^|_)user_id$/.test(p.name) && p.type === 'Integer') {
      if (!p.required && !present) continue
      const id = Math.max(0, toInteger(raw ?? '')) // Client::get_user_id
      if (id === 0) throw badRequest(`invalid ${p.name} specified`)
      if (p.name === 'user_id') userId = id
      continue
    }
    if (p.name === 'message_ids') {
      json[p.name] = messageIds(raw, p.name)
      continue
    }
    if (p.type === 'Float' && (p.name === 'latitude' || p.name === 'longitude')) {
      if (p.required && (raw ?? '').trim() === '') throw badRequest(`${p.name} is empty`)
      continue
    }
    if (p.type === 'InputFile' || p.type === 'InputFile or String') {
      if (p.required && !params.has(p.name)) throw badRequest(`there is no ${p.name.replace(/_/g, ' ')} in the request`)
      continue
    }
    if (isJsonParam(p)) {
      if (!present) {
        if (p.required && MISSING_JSON[p.name] !== undefined && source) throw badRequest(MISSING_JSON[p.name])
        if (p.required && (isRequired(p) || !source)) throw badRequest(`parameter "${p.name}" is required`)
        continue
      }
      try {
        json[p.name] = parseJsonBounded(raw)
      } catch {
        throw badRequest(`can't parse ${JSON_NAMES[p.name] ?? p.name.replace(/_/g, ' ')} JSON object`)
      }
      if (source) checkArray(lower, p.name, json[p.name])
      continue
    }
    if (
      (p.type === 'String' || p.name === 'from_chat_id') &&
      isRequired(p) &&
      !present &&
      !p.name.endsWith('_query_id')
    )
      throw badRequest(`parameter "${p.name}" is required`)
  }
  // get_input_suggested_post_info: the sends, copies and forwards read it before the chat (do_send_message and the
  // batch methods' process_*_query)
  if (
    lower === 'forwardmessages' ||
    lower === 'copymessages' ||
    spec.params.some((p) => p.name === 'suggested_post_parameters')
  )
    checkSuggestedPost(params)
  // check_business_connection_chat_id reads the chat first; check_business_connection then looks the connection up
  const businessChat = BUSINESS_CHAT_PARAM[lower]
  if (businessChat !== undefined && (params.get(businessChat) ?? '') === '')
    throw badRequest('chat identifier is empty')
  // (sendChecklist and editMessageChecklist without one run in the chat: do_send_message, check_chat)
  if (
    source &&
    lower !== 'sendchecklist' &&
    lower !== 'editmessagechecklist' &&
    spec.params.some((p) => p.name === 'business_connection_id' && p.required)
  )
    bot.business.require(params.get('business_connection_id') ?? '')
  for (const p of spec.params) {
    // ids of queries the emulator never made (web app, guest, join request queries): Telegram's QUERY_ID_INVALID
    if (p.name.endsWith('_query_id') && (p.required || params.get(p.name))) throw badRequest(QUERY_ID_INVALID)
  }
  const checked: Checked = {json}
  const chatParam = spec.params.find((p) => p.name === 'chat_id')
  if (chatParam && (chatParam.required || (params.get('chat_id') ?? '') !== '')) {
    const raw = params.get('chat_id') ?? ''
    if (raw === '') throw badRequest('chat_id is empty')
    checked.chat = bot.findChat(raw)
    if (!checked.chat) throw badRequest('chat not found')
  }
  if (userId !== undefined && userId !== bot.id && !bot.findChat(String(userId))) throw badRequest('user not found')
  const target = MESSAGE_TARGETS[lower]
  const messageParam = spec.params.find((p) => p.name === 'message_id')
  if (messageParam && checked.chat && (messageParam.required || params.get('message_id'))) {
    const id = toInteger(params.get('message_id') ?? '', 32) // Client::get_message_id
    const message = id > 0 ? bot.message(checked.chat.id, id) : undefined
    if (!message) throw badRequest(`${target ?? 'message'} not found`)
    checked.message = message
  }
  return checked
}

/** get_message_ids: a JSON array of 1..100 positive integers (as numbers or strings), with the server's texts. */
export function messageIds(raw: string | undefined, name = 'message_ids', max = 100): number[] {
  if (raw === undefined || raw === '') throw badRequest('message identifiers are not specified')
  let value: unknown
  try {
    value = parseJsonBounded(raw)
  } catch {
    throw badRequest(`can't parse ${name} JSON object`)
  }
  if (!Array.isArray(value)) throw badRequest('expected an Array of message identifiers')
  if (value.length > max) throw badRequest('too many message identifiers specified')
  const ids = value.map((v) => {
    if (typeof v !== 'number' && typeof v !== 'string') throw badRequest('message identifier must be a Number')
    const text = String(v)
    if (!/^-?\d+$/.test(text.trim()) || Math.abs(Number(text)) > 2147483647)
      throw badRequest("can't parse message identifier as a Number")
    const id = Number(text)
    if (id <= 0) throw badRequest('invalid message identifier specified')
    return id
  })
  // Client.cpp process_forward_messages_query, process_copy_messages_query, process_delete_messages_query: an empty list
  if (ids.length === 0) throw badRequest('message identifiers are not specified')
  return ids
}

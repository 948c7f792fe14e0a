/**
 * A recorded conversation as a chat script (`*.chat.yml`): each update a user sent becomes a step (text, a button
 * pressed by its label, a file, a payment, a vote, a reaction, an inline query…) and each call the bot made for it
 * an exact expectation (`bot:` for what lands in the chat: messages, edits, deletions; `call:` for the rest, such
 * as answerCallbackQuery). Pure: the caller hands over the turns (the emulator's own record, record.ts, or the
 * inspector's history) and writes the text and the fixture files where it wants (save.ts).
 *
 * What is not a user action of the emulator's table (a location, a contact, a service message) is left out and
 * listed in `skipped`, so the header can say so; so are the bot's calls that failed and those that show nothing
 * (sendChatAction, getFile, getChat…).
 */
import {Document, isMap, isNode, isScalar, isSeq, visit, YAMLMap, YAMLSeq} from 'yaml'

import {formatText} from '../format/index.js'
import type {RecordedCall} from '../types.js'
import {canonicalExpectation, eventsOf} from './expect.js'
import {mediaStep} from './format.js'
import {isMessageKind} from './telegram.js'
import {isObject} from '../telegram.js'
import {MEDIA_KINDS} from '../media-kinds.js'

/** One update the bot got, and the calls it made while handling it (oldest first). */
export interface RecordedTurn {
  update: Record<string, unknown>
  calls: RecordedBotCall[]
}

/** One call of the bot: its method, its parameters (scalars as text or as values), whether it succeeded. */
export interface RecordedBotCall {
  method: string
  params: Record<string, unknown>
  /** false: the call failed (it is no expectation). Default true. */
  ok?: boolean
  /** What it returned, when known (a Message: its text is what the user saw). */
  result?: unknown
}

/** A file a user sent: the script names a fixture for it (save.ts writes its bytes). */
export interface FixtureRequest {
  /** The step it becomes: photo, file (a document), voice, video, audio, animation, sticker, video_note. */
  step: string
  fileId: string
  /** The name the user's app gave it (documents, audio, video), if any. */
  fileName?: string
  mimeType?: string
  /** The index of the turn (0-based). */
  turn: number
}

export interface WriteOptions {
  /** `bot:` of the script: the command that runs the bot (omitted: what `bot dev` would run). */
  bot?: string
  /** Comment lines at the top of the file (without `#`). */
  header?: string[]
  /**
   * The path (relative to the script) a user's file is written at, or undefined when there is none (the step is
   * then skipped). Default: `fixtures/<name>`.
   */
  fixture?: (file: FixtureRequest) => string | undefined
  /**
   * A text of the bot's that was cut before it reached the record (the inspector keeps 200 characters): the
   * expectation to write instead (a regular expression of its start), or undefined when the text is whole.
   */
  truncated?: (text: string) => string | undefined
}

export interface WrittenScript {
  /** The file's text. */
  yaml: string
  /** Steps written (the user's and the bot's). */
  steps: number
  /** What was left out, one line each ("update 4: a location (no step for it)"). */
  skipped: string[]
  /** The users of the script, by key (ada → Ada), in the order they first acted. */
  users: Record<string, Record<string, unknown>>
}

type Obj = Record<string, unknown>
type Step = Record<string, unknown>

const str = (value: unknown): string | undefined =>
  typeof value === 'string'
    ? value
    : typeof value === 'number' || typeof value === 'boolean'
      ? String(value)
      : undefined

/** A parameter that may have come as JSON text (a form or multipart body). */
function json(value: unknown): unknown {
  if (typeof value !== 'string') return value
  const t = value.trim()
  if (!t.startsWith('{') && !t.startsWith('[')) return value
  try {
    return JSON.parse(t)
  } catch {
    return value
  }
}

/** Calls that show the user nothing and check nothing a test would want: never expectations. */
const QUIET = /^(get|sendchataction$|setwebhook$|deletewebhook$|logout$|close$|setmy|deletemy|downloadfile$)/

/** Parameters a `call:` never names: they are the script's own chats, messages and queries, new on every run. */
const ID_PARAMS = new Set([
  'chat_id',
  'message_id',
  'message_ids',
  'user_id',
  'from_chat_id',
  'callback_query_id',
  'inline_query_id',
  'pre_checkout_query_id',
  'shipping_query_id',
  'business_connection_id',
  'message_thread_id',
  'reply_parameters',
  'reply_to_message_id',
  'inline_message_id',
  'telegram_payment_charge_id',
  'web_app_query_id',
  'guest_query_id',
  'widget_query_id',
])

const EDIT_RE = /^(editmessage|stopmessagelivelocation|stoppoll)/
const DELETE_RE = /^deletemessages?$/
const SEND_RE = /^(send|copymessage|forwardmessage)/

/** A text or caption as the user sees it (parse_mode applied), or the raw text when it does not parse. */
function shownText(raw: unknown, parseMode: unknown, kind: 'text' | 'caption'): string | undefined {
  const text = str(raw)
  if (text === undefined) return undefined
  const mode = str(parseMode)
  if (!mode) return text
  try {
    return formatText({raw: text, parseMode: mode, kind})().text
  } catch {
    return text
  }
}

/**
 * The message a send made, as far as the call tells: its result, completed from its parameters where the result
 * is short (the inspector keeps `{message_id, chat, date}`) or missing (a webhook reply).
 */
function sentMessage(method: string, p: Obj, result: unknown): Obj {
  const made: Obj = {message_id: 0}
  const chatId = Number(p.chat_id)
  if (Number.isFinite(chatId)) made.chat = {id: chatId}
  const text = shownText(p.text, p.parse_mode, 'text') ?? shownText(p.caption, p.parse_mode, 'caption')
  if (text !== undefined) made[p.text !== undefined ? 'text' : 'caption'] = text
  const markup = json(p.reply_markup)
  if (isObject(markup) && Array.isArray(markup.inline_keyboard)) made.reply_markup = markup
  const kind = method
    .replace(/^send/, '')
    .replace(/([a-z])([A-Z])/g, '$1_$2')
    .toLowerCase()
  if (isMessageKind(kind)) {
    if (kind === 'poll') made.poll = {question: p.question}
    else if (kind === 'invoice' || kind === 'game') made[kind] = {title: p.title}
    else if (kind === 'dice') made.dice = {emoji: p.emoji ?? '🎲'}
    else if (kind === 'contact') made.contact = {phone_number: p.phone_number}
    else if (kind === 'venue') made.location = {}
    else made[kind] = {}
  }
  return isObject(result) ? {...made, ...result} : made
}

/** A parameter as a script writes it: `"true"` as true, `"42"` as 42 (the runner compares them as text anyway). */
function natural(value: unknown): unknown {
  if (typeof value !== 'string') return value
  if (value === 'true' || value === 'false') return value === 'true'
  if (/^-?\d{1,15}$/.test(value) && String(Number(value)) === value) return Number(value)
  return value
}

/** A bot text that reads as a regular expression (`/…/flags`) when written plainly: it is quoted (exact). */
const REGEXP_LIKE = /^\/(.+)\/([dgimsuyv]*)$/s

/** A regular expression the writer means as one (a cut text's start): written unquoted. */
export class Pattern {
  constructor(readonly source: string) {}
}

/**
 * What one call of the bot is as steps: `bot:` for each message it sent, edited or deleted (the canonical form the
 * runner compares: a plain text for a message with only text, else a mapping), `call:` for another call that did
 * something (answerCallbackQuery…), nothing for a failed call or one that shows nothing (sendChatAction, get…).
 * `chatName` names the user whose private chat a message went to, when it is not the acting user's.
 */
export function callSteps(
  call: RecordedBotCall,
  options: Pick<WriteOptions, 'truncated'> & {chatName?: (chatId: number) => string | undefined} = {},
): Step[] {
  if (call.ok === false) return []
  const method = call.method.toLowerCase()
  const p = call.params
  // The runner's own reading of a call (expect.ts): its events and their canonical form, what it compares.
  const results = Array.isArray(call.result) ? call.result : [call.result]
  // a send's messages, completed from its parameters: a list when the call answered one (sendMediaGroup)
  const sent = SEND_RE.test(method) ? results.map((r) => sentMessage(call.method, p, r)) : undefined
  const recorded: RecordedCall = {
    seq: 0,
    at: 0,
    source: 'http',
    method: call.method,
    params: p,
    result: sent
      ? Array.isArray(call.result)
        ? sent
        : sent[0]
      : EDIT_RE.test(method) && !isObject(call.result)
        ? undefined
        : call.result,
  }
  const events = eventsOf(recorded, () => undefined)
  if (events.length > 0)
    return events.map((event) => {
      const name = options.chatName?.(event.chatId)
      return {bot: withPatterns(canonicalExpectation(event, name), options.truncated)}
    })
  if (SEND_RE.test(method) || EDIT_RE.test(method) || DELETE_RE.test(method) || QUIET.test(method)) return []
  return [{call: callParams(call)}]
}

/** A text the record cut (options.truncated) as a Pattern of its start, wherever the expectation has it. */
function withPatterns(value: unknown, truncated: WriteOptions['truncated']): unknown {
  if (!truncated) return value
  const cut = (text: unknown) => {
    if (typeof text !== 'string') return text
    const source = truncated(text)
    return source !== undefined ? new Pattern(source) : text
  }
  if (typeof value === 'string') return cut(value)
  if (!isObject(value)) return value
  const out: Obj = {...value}
  for (const key of ['text', 'edit']) if (key in out) out[key] = cut(out[key])
  return out
}

/** A `call:` step: the method and its parameters, leaving out the ids of this run's chats, messages and queries. */
function callParams(call: RecordedBotCall): Obj {
  const out: Obj = {method: call.method}
  for (const [key, value] of Object.entries(call.params)) {
    if (ID_PARAMS.has(key) || value === undefined || value === null) continue
    const v = json(value)
    // A file the bot uploaded is named by its upload, not its bytes: a call step cannot compare it.
    if (isObject(v) && ('filename' in v || 'file' in v) && 'size' in v) continue
    // A cut parameter (the inspector keeps 200 characters) cannot be compared whole: left out.
    if (typeof v === 'string' && /… \[cut: \d+ characters in all\]$/.test(v)) continue
    out[key] = natural(v)
  }
  return out
}

/** The payload of an update: its one field besides update_id, and that field's name. */
function payloadOf(update: Obj): {type: string; payload: Obj} | undefined {
  for (const [key, value] of Object.entries(update))
    if (key !== 'update_id' && isObject(value)) return {type: key, payload: value}
  return undefined
}

/** The user who made the update (from, or user for the updates that carry it so). */
export function actorOf(update: Obj): Obj | undefined {
  const found = payloadOf(update)
  if (!found) return undefined
  const {payload} = found
  const who =
    payload.from ?? payload.user ?? (isObject(payload.new_chat_member) ? payload.new_chat_member.user : undefined)
  return isObject(who) ? who : undefined
}

/** The chat of an update, when it names one. */
export function chatOf(update: Obj): Obj | undefined {
  const found = payloadOf(update)
  if (!found) return undefined
  const {payload} = found
  const chat = payload.chat ?? (isObject(payload.message) ? payload.message.chat : undefined)
  return isObject(chat) ? chat : undefined
}

/** The label of the button whose callback_data is `data`, on the message the press came from. */
function pressedLabel(message: unknown, data: string): string | undefined {
  if (!isObject(message)) return undefined
  const markup = message.reply_markup
  if (!isObject(markup) || !Array.isArray(markup.inline_keyboard)) return undefined
  for (const row of markup.inline_keyboard)
    if (Array.isArray(row))
      for (const b of row) if (isObject(b) && b.callback_data === data && typeof b.text === 'string') return b.text
  return undefined
}

/** What a user's update is as a step: a step, 'part' (part of the step before: a payment's next update), or why none. */
type UserStep = {step: Step} | {part: true} | {skip: string}

function userStep(
  update: Obj,
  turn: number,
  fixture: NonNullable<WriteOptions['fixture']>,
  payment: {open: boolean},
): UserStep {
  const found = payloadOf(update)
  if (!found) return {skip: 'an update with nothing in it'}
  const {type, payload} = found
  if (type === 'message' || type === 'business_message') {
    if (payload.successful_payment !== undefined) return payment.open ? {part: true} : {step: {pay: true}}
    if (typeof payload.text === 'string') return {step: {user: payload.text}}
    for (const field of MEDIA_KINDS) {
      const step = mediaStep(field)
      const media = payload[field]
      if (media === undefined) continue
      // A photo comes as its sizes, smallest first: the largest is the one the user sent.
      const file = Array.isArray(media) ? media.at(-1) : media
      if (!isObject(file) || typeof file.file_id !== 'string') return {skip: `a ${field} without a file_id`}
      const path = fixture({
        step,
        fileId: file.file_id,
        ...(typeof file.file_name === 'string' ? {fileName: file.file_name} : {}),
        ...(typeof file.mime_type === 'string' ? {mimeType: file.mime_type} : {}),
        turn,
      })
      if (path === undefined) return {skip: `a ${field} whose file is not at hand`}
      const caption = typeof payload.caption === 'string' ? payload.caption : undefined
      return {step: {[step]: caption !== undefined ? {path, caption} : path}}
    }
    const kind = Object.keys(payload).find((k) => !['message_id', 'from', 'chat', 'date', 'sender_chat'].includes(k))
    return {skip: `a message with ${kind ?? 'nothing'} (no step for it)`}
  }
  if (type === 'callback_query') {
    const data = str(payload.data)
    if (data === undefined) return {skip: 'a button press without callback_data (a game button)'}
    const label = pressedLabel(payload.message, data)
    return label !== undefined
      ? {step: {press: label}}
      : {skip: `a press of a button (data "${data}") not on its message`}
  }
  if (type === 'shipping_query') {
    payment.open = true
    return {step: {pay: true}}
  }
  if (type === 'pre_checkout_query') {
    if (payment.open) return {part: true}
    payment.open = true
    return {step: {pay: true}}
  }
  if (type === 'poll_answer') {
    const ids = Array.isArray(payload.option_ids) ? payload.option_ids : []
    return {step: {vote: ids.length === 1 ? ids[0] : ids}}
  }
  if (type === 'message_reaction') {
    const reactions = Array.isArray(payload.new_reaction) ? payload.new_reaction : []
    const emoji = reactions
      .map((r) => (isObject(r) ? (str(r.emoji) ?? str(r.custom_emoji_id)) : undefined))
      .filter(Boolean)
    return {step: {react: emoji.length === 1 ? emoji[0] : emoji}}
  }
  if (type === 'inline_query') return {step: {inline: str(payload.query) ?? ''}}
  if (type === 'chosen_inline_result') return {step: {choose: str(payload.result_id) ?? ''}}
  if (type === 'chat_member' || type === 'my_chat_member') {
    const status = isObject(payload.new_chat_member) ? str(payload.new_chat_member.status) : undefined
    if (status === 'member') return {step: {join: true}}
    if (status === 'left' || status === 'kicked') return {step: {leave: true}}
    return {skip: `a ${type} update (${status ?? 'no status'})`}
  }
  return {skip: `a ${type} update (no step for it)`}
}

/** A key for a user in `users:` and `as:`: their first name in lower case (ada), made unique (ada2). */
function userKey(user: Obj, taken: Set<string>): string {
  const base =
    (str(user.first_name) ?? 'user')
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '') || 'user'
  let key = base
  for (let n = 2; taken.has(key); n++) key = `${base}${n}`
  taken.add(key)
  return key
}

/** What `users:` says of a user: their profile fields as the Bot API names them. */
function profile(user: Obj): Obj {
  const out: Obj = {}
  for (const field of ['first_name', 'last_name', 'username', 'language_code', 'is_premium'])
    if (user[field] !== undefined && user[field] !== false) out[field] = user[field]
  if (out.first_name === undefined) out.first_name = 'User'
  return out
}

/** The name a fixture gets by default: fixtures/<file name> or fixtures/<step>-<turn>.<extension>. */
export function defaultFixture(file: FixtureRequest): string {
  if (file.fileName) return `fixtures/${file.fileName.replace(/[^\w.-]+/g, '_')}`
  const ext =
    file.step === 'photo'
      ? 'jpg'
      : file.step === 'voice'
        ? 'ogg'
        : file.step === 'sticker'
          ? 'webp'
          : file.step === 'video' || file.step === 'animation' || file.step === 'video_note'
            ? 'mp4'
            : file.step === 'audio'
              ? 'mp3'
              : 'bin'
  return `fixtures/${file.step}-${file.turn + 1}.${ext}`
}

/** The script of a recorded conversation (see the module comment). */
export function writeChatScript(turns: RecordedTurn[], options: WriteOptions = {}): WrittenScript {
  const fixture = options.fixture ?? defaultFixture
  const skipped: string[] = []
  const users: Record<string, Obj> = {}
  const keys = new Map<number, string>()
  const taken = new Set<string>()
  const steps: Step[] = []
  let acting: string | undefined
  let chatType: string | undefined
  const payment = {open: false}
  turns.forEach((turn, i) => {
    const update = turn.update
    const label = `update ${str(update.update_id) ?? i + 1}`
    const made = userStep(update, i, fixture, payment)
    if ('skip' in made) {
      skipped.push(`${label}: ${made.skip}`)
      return
    }
    if ('step' in made) {
      if (!('pay' in made.step)) payment.open = false
      const actor = actorOf(update)
      if (actor && typeof actor.id === 'number') {
        let key = keys.get(actor.id)
        if (key === undefined) {
          key = userKey(actor, taken)
          keys.set(actor.id, key)
          users[key] = profile(actor)
        }
        if (acting !== undefined && key !== acting) steps.push({as: key})
        acting = key
      }
      chatType ??= str(chatOf(update)?.type)
      steps.push(made.step)
    }
    // A message to another user's private chat names that user (`to:`); the acting user's own needs nothing.
    const chatName = (chatId: number) => {
      const name = keys.get(chatId)
      return name !== undefined && name !== acting ? name : undefined
    }
    for (const call of turn.calls) {
      if (call.ok === false) skipped.push(`${label}: ${call.method} failed (not an expectation)`)
      else steps.push(...callSteps(call, {truncated: options.truncated, chatName}))
    }
  })
  const body: Obj = {}
  if (options.bot) body.bot = options.bot
  if (chatType && chatType !== 'private') body.chat = chatType
  if (Object.keys(users).length > 0) body.users = users
  body.steps = steps
  const patterns = new Set<string>()
  visitPatterns(steps, patterns)
  // A Pattern (a regular expression meant as one) is written as its source, unquoted.
  const doc = new Document(body, (_key: unknown, value: unknown) => (value instanceof Pattern ? value.source : value))
  flowInner(doc.contents)
  quoteRegExpLike(doc.contents, patterns)
  const header = options.header ?? []
  if (header.length > 0) doc.commentBefore = header.map((line) => ` ${line}`.trimEnd()).join('\n')
  return {
    yaml: doc.toString({lineWidth: 0, flowCollectionPadding: false}),
    steps: steps.length,
    skipped,
    users,
  }
}

/** `users:` entries and each step's value as flow collections: `- bot: {text: Menu, buttons: [[A, B]]}`. */
function flowInner(root: unknown): void {
  if (!isMap(root)) return
  for (const pair of root.items) {
    const key = String((isScalar(pair.key) ? pair.key.value : undefined) ?? pair.key)
    const value = pair.value
    if (key === 'users' && isMap(value)) for (const user of value.items) setFlow(user.value)
    if (key === 'steps' && isSeq(value))
      for (const step of value.items) if (isMap(step)) for (const inner of step.items) setFlow(inner.value)
  }
}

/** The sources of the Patterns among the steps. */
function visitPatterns(value: unknown, out: Set<string>): void {
  if (value instanceof Pattern) out.add(value.source)
  else if (Array.isArray(value)) for (const v of value) visitPatterns(v, out)
  else if (isObject(value)) for (const v of Object.values(value)) visitPatterns(v, out)
}

/**
 * A plain `/…/` is a regular expression in a script: a text of that shape is quoted (exact), a Pattern left plain.
 * (A Pattern's source never needs quotes: patternOf writes every character YAML would object to as an escape.)
 */
function quoteRegExpLike(root: unknown, patterns: Set<string>): void {
  if (!isNode(root)) return
  visit(root, {
    Scalar(_key, node) {
      if (typeof node.value !== 'string' || !REGEXP_LIKE.test(node.value)) return
      node.type = patterns.has(node.value) ? 'PLAIN' : 'QUOTE_DOUBLE'
    },
  })
}

/** A regular expression matching texts that start with `prefix`, in characters a plain YAML scalar can hold. */
export function patternOf(prefix: string): string {
  const escaped = [...prefix]
    .map((ch) => {
      if (/[\p{L}\p{N} _!%&;<=>@~-]/u.test(ch)) return ch
      if (/[.*+?^${}()|[\]\\/]/.test(ch)) return `\\${ch}`
      const code = ch.codePointAt(0)!
      // `:` `#` `,` quotes, brackets and controls: what a plain YAML scalar cannot hold (or start with)
      if (code < 0x80) return `\\x${code.toString(16).padStart(2, '0')}`
      return code > 0xffff ? ch : `\\u${code.toString(16).padStart(4, '0')}`
    })
    .join('')
  return `/^${escaped}/`
}

function setFlow(node: unknown): void {
  if (node instanceof YAMLMap || node instanceof YAMLSeq) node.flow = true
}

/**
 * What the bot did, as a chat script sees it: each successful call that sent, edited or deleted a message becomes a
 * BotEvent; a `bot:` expectation matches one (only what it states is checked); `call:` matches a call by a subset of
 * its parameters. Also the canonical form of an event (what `bot test --update` and a recorder write) and the line
 * diff a failure shows.
 */
import type {RecordedCall} from '../types.js'
import {type Message, isObject} from '../telegram.js'
import type {BotExpectation, MessageKind, TextMatcher} from './format.js'
import {
  CONTENT_FIELDS,
  contentOf,
  fieldOf,
  idOf,
  isMessageKind,
  labels,
  markupOf,
  messageOf,
  type ScriptMessage,
} from './telegram.js'

/** One message the bot sent, edited or deleted, in one chat. */
export interface BotEvent {
  event: 'message' | 'edit' | 'delete'
  method: string
  chatId: number
  messageId?: number
  text?: string
  buttons?: string[][]
  keyboard?: string[][] | false
  media?: {kind: MessageKind; text?: string}
  call: RecordedCall
}

const EDIT_RE = /^(editmessage|stopmessagelivelocation|stoppoll)/
const DELETE_RE = /^deletemessages?$/
const SEND_RE = /^(send|copymessage|forwardmessage)/
const NOT_MESSAGES = /^(sendchataction|sendmessagedraft|sendgift|sendinvoice_?link)$|draft/

/** The events of a call (none for a failed call or one that is no message: answerCallbackQuery, sendChatAction…). */
export function eventsOf(
  call: RecordedCall,
  lookup: (chatId: number, messageId: number) => Message | undefined,
): BotEvent[] {
  if (call.error) return []
  const method = call.method.toLowerCase()
  const p = call.params
  if (DELETE_RE.test(method)) {
    const chatId = Number(p.chat_id)
    if (!Number.isFinite(chatId)) return []
    const ids = method === 'deletemessages' ? (Array.isArray(p.message_ids) ? p.message_ids : []) : [p.message_id]
    return ids.map((id) => ({event: 'delete' as const, method: call.method, chatId, messageId: Number(id), call}))
  }
  if (EDIT_RE.test(method)) {
    // an inline message's edit answers true, a chat's the edited Message
    const result = messageOf(call.result)
    const chatId = Number(p.chat_id ?? idOf(fieldOf(call.result, 'chat')))
    if (!Number.isFinite(chatId)) return []
    const kept = result ?? lookup(chatId, Number(p.message_id))
    const event: BotEvent = {event: 'edit', method: call.method, chatId, messageId: Number(p.message_id), call}
    const text =
      method === 'editmessagetext'
        ? p.text
        : method === 'editmessagecaption'
          ? p.caption
          : method === 'editmessagemedia'
            ? fieldOf(p.media, 'caption')
            : undefined
    if (typeof text === 'string') event.text = text
    if (method === 'editmessagemedia') {
      const kind = fieldOf(p.media, 'type')
      if (isMessageKind(kind)) event.media = {kind}
    }
    // an edit without reply_markup takes the inline keyboard away
    event.buttons = inlineLabels(p.reply_markup) ?? inlineLabels(kept?.reply_markup) ?? []
    if (method !== 'editmessagereplymarkup' && p.reply_markup === undefined) event.buttons = []
    return [event]
  }
  if (!SEND_RE.test(method) || NOT_MESSAGES.test(method)) return []
  const results = Array.isArray(call.result) ? call.result : [call.result]
  const out: BotEvent[] = []
  for (const r of results) {
    const result = messageOf(r)
    if (!result) continue
    let chatId = Number(idOf(result.chat) ?? p.chat_id)
    if (!Number.isFinite(chatId)) continue
    // copyMessage answers a MessageId: the message itself is in the chat
    const message = result.chat ? result : (messageOf(lookup(chatId, result.message_id)) ?? result)
    chatId = Number(idOf(message.chat) ?? chatId)
    const event: BotEvent = {event: 'message', method: call.method, chatId, messageId: result.message_id, call}
    const text = message.text ?? message.caption
    if (typeof text === 'string') event.text = text
    const media = mediaOf(message, p)
    if (media) event.media = media
    const buttons = inlineLabels(message.reply_markup) ?? inlineLabels(p.reply_markup)
    if (buttons) event.buttons = buttons
    const markup = markupOf(p.reply_markup)
    if (markup) {
      if (Array.isArray(markup.keyboard)) event.keyboard = labels(markup.keyboard)
      else if (markup.remove_keyboard) event.keyboard = false
    }
    out.push(event)
  }
  return out
}

function mediaOf(message: ScriptMessage, params: RecordedCall['params']): BotEvent['media'] {
  const content = contentOf(message)
  if (!content) return undefined
  const {kind} = content
  let text = content.text
  if (!(kind in CONTENT_FIELDS)) {
    // the file as the bot gave it: its upload's name, a URL or a file_id
    const given = params[kind]
    text = typeof given === 'string' ? given : fieldOf(given, 'filename')
  }
  return typeof text === 'string' && text !== '' ? {kind, text} : {kind}
}

function inlineLabels(markup: unknown): string[][] | undefined {
  const keyboard = markupOf(markup)?.inline_keyboard
  return Array.isArray(keyboard) ? labels(keyboard) : undefined
}

// ---------------------------------------------------------------- matching

export function textMatches(m: TextMatcher, text: string | undefined): boolean {
  if (text === undefined) return false
  return m.kind === 'exact' ? m.text === text : m.regex.test(text)
}

/**
 * Whether the event is what the step expects: its kind (message, edit, delete), and each thing it states.
 * `chatOf(name)` is the chat of the script's user `name`.
 */
export function expectationMatches(e: BotExpectation, event: BotEvent, chatOf: (name: string) => number): boolean {
  if (e.event !== event.event) return false
  if (e.method && e.method.toLowerCase() !== event.method.toLowerCase()) return false
  if (e.to !== undefined && chatOf(e.to) !== event.chatId) return false
  if (e.text && !textMatches(e.text, event.text)) return false
  if (e.buttons && !sameRows(e.buttons, event.buttons ?? [])) return false
  if (e.keyboard !== undefined) {
    if (e.keyboard === false ? event.keyboard !== false : !sameRows(e.keyboard, event.keyboard || [])) return false
  }
  if (e.media) {
    if (event.media?.kind !== e.media.kind) return false
    if (e.media.text && !textMatches(e.media.text, event.media.text)) return false
  }
  return true
}

function sameRows(a: string[][], b: string[][]): boolean {
  return a.length === b.length && a.every((row, i) => row.length === b[i].length && row.every((l, j) => l === b[i][j]))
}

/**
 * Whether `actual` (a call's parameters as recorded: scalars as text, JSON decoded) has everything `expected` states:
 * scalars compared as text, a plain `/…/` string as a regular expression, objects and arrays recursively.
 */
export function paramsMatch(expected: unknown, actual: unknown): boolean {
  if (expected === null || expected === undefined) return actual === undefined || actual === null
  if (Array.isArray(expected)) {
    const list = typeof actual === 'string' ? parseJson(actual) : actual
    return Array.isArray(list) && list.length === expected.length && expected.every((e, i) => paramsMatch(e, list[i]))
  }
  if (typeof expected === 'object') {
    const obj = typeof actual === 'string' ? parseJson(actual) : actual
    if (!isObject(obj)) return false
    return Object.entries(expected).every(([k, v]) => paramsMatch(v, obj[k]))
  }
  if (actual === undefined || actual === null || typeof actual === 'object') return false
  const regex = typeof expected === 'string' ? /^\/(.+)\/([imsuy]*)$/s.exec(expected) : null
  if (regex) {
    try {
      return new RegExp(regex[1], regex[2]).test(String(actual))
    } catch {
      // not a regular expression after all: compared as text below
    }
  }
  return String(expected) === String(actual)
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

// ---------------------------------------------------------------- canonical form and diff

/**
 * The event as a `bot:` step states it (what `--update` and a recorder write): a plain text for a message with only
 * text, else a mapping (`text`, the media, `buttons`, `keyboard`, `to`); `{edit: …}`; `{delete: true}`. `to` is
 * the name of the user whose chat it is, given when the event is not in the acting user's chat.
 */
export function canonicalExpectation(event: BotEvent, to?: string): unknown {
  if (event.event === 'delete') return {delete: true}
  const out: Record<string, unknown> = {}
  if (event.event === 'edit') out.edit = event.text ?? true
  else if (event.text !== undefined) out.text = event.text
  if (event.media) out[event.media.kind] = event.media.text ?? true
  if (event.buttons && event.buttons.length > 0) out.buttons = event.buttons
  else if (event.event === 'edit' && event.buttons && event.call.method.toLowerCase() === 'editmessagereplymarkup')
    out.buttons = []
  if (event.keyboard !== undefined) out.keyboard = event.keyboard
  if (to !== undefined) out.to = to
  const keys = Object.keys(out)
  if (keys.length === 1 && keys[0] === 'text') return out.text
  return out
}

/** The expectation as lines of `key: value` (what a failure shows on its "expected" side). */
export function expectationLines(e: BotExpectation): string[] {
  const lines: string[] = []
  if (e.event === 'delete') return ['delete: true']
  if (e.event === 'edit') lines.push(`edit: ${e.text ? matcherText(e.text) : 'true'}`)
  else if (e.text) lines.push(`text: ${matcherText(e.text)}`)
  if (e.media) lines.push(`${e.media.kind}: ${e.media.text ? matcherText(e.media.text) : 'true'}`)
  if (e.buttons) lines.push(`buttons: ${rowsText(e.buttons)}`)
  if (e.keyboard !== undefined) lines.push(`keyboard: ${e.keyboard === false ? 'false' : rowsText(e.keyboard)}`)
  if (e.to !== undefined) lines.push(`to: ${e.to}`)
  if (e.method) lines.push(`method: ${e.method}`)
  if (lines.length === 0) lines.push('(any message)')
  return lines
}

/** The event as lines of `key: value` (the "actual" side), `to` and `method` shown when the expectation names them. */
export function eventLines(event: BotEvent, options: {to?: string; method?: boolean} = {}): string[] {
  if (event.event === 'delete') return ['delete: true']
  const lines: string[] = []
  if (event.event === 'edit') lines.push(`edit: ${event.text !== undefined ? quote(event.text) : 'true'}`)
  else if (event.text !== undefined) lines.push(`text: ${quote(event.text)}`)
  if (event.media)
    lines.push(`${event.media.kind}: ${event.media.text !== undefined ? quote(event.media.text) : 'true'}`)
  if (event.buttons && (event.buttons.length > 0 || event.event === 'edit'))
    lines.push(`buttons: ${rowsText(event.buttons)}`)
  if (event.keyboard !== undefined)
    lines.push(`keyboard: ${event.keyboard === false ? 'false' : rowsText(event.keyboard)}`)
  if (options.to !== undefined) lines.push(`to: ${options.to}`)
  if (options.method) lines.push(`method: ${event.method}`)
  return lines
}

function matcherText(m: TextMatcher): string {
  return m.kind === 'regex' ? m.source : quote(m.text)
}

function quote(text: string): string {
  return JSON.stringify(text)
}

function rowsText(rows: string[][]): string {
  return `[${rows.map((row) => `[${row.map((l) => quote(l)).join(', ')}]`).join(', ')}]`
}

/** A unified line diff: `- ` expected, `+ ` actual, `  ` both. */
export function lineDiff(expected: string[], actual: string[]): string {
  const n = expected.length
  const m = actual.length
  const lcs: number[][] = Array.from({length: n + 1}, () => new Array<number>(m + 1).fill(0))
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i][j] = expected[i] === actual[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1])
  const out: string[] = []
  let i = 0
  let j = 0
  while (i < n || j < m) {
    if (i < n && j < m && expected[i] === actual[j]) {
      out.push(`  ${expected[i]}`)
      i++
      j++
    } else if (i < n && (j >= m || lcs[i + 1][j] >= lcs[i][j + 1])) {
      out.push(`- ${expected[i]}`)
      i++
    } else {
      out.push(`+ ${actual[j]}`)
      j++
    }
  }
  return out.join('\n')
}

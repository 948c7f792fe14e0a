/**
 * Turns what a bot sent to the Bot API (one recorded call: method + params + result/error) into
 * what a person would see in the chat: text, a one-line description of media, buttons.
 * Pure: no I/O, no emulator import, so it is unit-tested on plain objects.
 */
import {styleIf} from '../lib/color.js'
import {isJsonObject, objectOf} from '../lib/json-object.js'

/** The part of an emulator's recorded call the renderer reads. */
export interface CallLike {
  method: string
  params: Record<string, unknown>
  result?: unknown
  error?: unknown
}

export interface ButtonView {
  /** The label as shown on the button. */
  text: string
  /** inline: callback data (pressable in the chat), url, or another kind; reply: sends its text. */
  kind: 'callback' | 'url' | 'reply' | 'other'
  data?: string
  url?: string
}

export interface KeyboardView {
  type: 'inline' | 'reply'
  rows: ButtonView[][]
}

export interface RenderedCall {
  /** What the call did, in the chat's words. May span several lines. */
  text: string
  /** Secondary information (chat actions, deletions, failed calls): printed dim. */
  dim: boolean
  /** An attached keyboard, when the call carried one. */
  keyboard?: KeyboardView
  /** A reply keyboard was removed or a reply was forced: a short note. */
  markupNote?: string
  /** The chat this call addressed, when it named one. */
  chatId?: number | string
  /** The message the keyboard is attached to (from the call's result), for pressing buttons. */
  messageId?: number
}

export interface RenderOptions {
  /** Show sendChatAction ("typing…") as a dim line. Default false: ignored. */
  showChatActions?: boolean
}

/** JSON-ish parameters may arrive as objects or as their JSON text (form or raw JSON values). */
export function parseMaybeJson(value: unknown): unknown {
  if (typeof value !== 'string') return value
  const t = value.trim()
  if (!(t.startsWith('{') || t.startsWith('['))) return value
  try {
    return JSON.parse(t)
  } catch {
    return value
  }
}

function str(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return undefined
}

function num(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value
  if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim())) return Number(value)
  return undefined
}

const HTML_ENTITIES: Record<string, string> = {'&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&amp;': '&'}

/** Formatted text as a person reads it: HTML tags dropped, MarkdownV2 escapes removed. */
export function plainText(text: string, parseMode?: unknown): string {
  const mode = typeof parseMode === 'string' ? parseMode.toLowerCase() : ''
  if (mode === 'html')
    return text
      .replace(/<br\s*\/?>/gi, '\n')
      .replace(/<[^>]+>/g, '')
      .replace(/&(lt|gt|quot|#39|amp);/g, (m) => HTML_ENTITIES[m] ?? m)
  if (mode === 'markdownv2') return text.replace(/\\([_*[\]()~`>#+\-=|{}.!\\])/g, '$1')
  return text
}

function fileName(value: unknown): string | undefined {
  const v = parseMaybeJson(value)
  if (typeof v === 'string') {
    if (v.startsWith('attach://')) return undefined
    if (/^https?:\/\//i.test(v)) {
      try {
        const last = new URL(v).pathname.split('/').filter(Boolean).pop()
        return last ? decodeURIComponent(last) : v
      } catch {
        return v
      }
    }
    return undefined // a file_id says nothing to a person
  }
  if (isJsonObject(v)) {
    const o = v
    return str(o.filename) ?? str(o.fileName) ?? str(o.file_name) ?? str(o.name)
  }
  return undefined
}

function buttonsOf(raw: unknown, type: 'inline' | 'reply'): ButtonView[][] {
  if (!Array.isArray(raw)) return []
  return raw
    .filter((row): row is unknown[] => Array.isArray(row))
    .map((row) =>
      row.map((b): ButtonView => {
        if (typeof b === 'string') return {text: b, kind: 'reply'}
        const o = objectOf(b)
        const text = str(o.text) ?? '?'
        if (type === 'reply') return {text, kind: 'reply'}
        if (o.callback_data !== undefined) return {text, kind: 'callback', data: str(o.callback_data) ?? ''}
        if (o.url !== undefined) return {text, kind: 'url', url: str(o.url)}
        return {text, kind: 'other'}
      }),
    )
    .filter((row) => row.length > 0)
}

/** The keyboard (or note) a reply_markup parameter describes. */
export function keyboardOf(replyMarkup: unknown): {keyboard?: KeyboardView; note?: string} {
  const m = parseMaybeJson(replyMarkup)
  if (!isJsonObject(m)) return {}
  const o = m
  if (o.inline_keyboard !== undefined) {
    const rows = buttonsOf(o.inline_keyboard, 'inline')
    return rows.length ? {keyboard: {type: 'inline', rows}} : {note: '(buttons removed)'}
  }
  if (o.keyboard !== undefined) {
    const rows = buttonsOf(o.keyboard, 'reply')
    return rows.length ? {keyboard: {type: 'reply', rows}} : {}
  }
  if (o.remove_keyboard) return {note: '(keyboard removed)'}
  if (o.force_reply)
    return {note: `(asks for a reply${str(o.input_field_placeholder) ? `: ${str(o.input_field_placeholder)}` : ''})`}
  return {}
}

/** One line per keyboard row: inline buttons as `[ Yes ] [ No ]`, reply-keyboard buttons as `‹ Yes › ‹ No ›`. */
export function keyboardLines(keyboard: KeyboardView): string[] {
  return keyboard.rows.map((row) =>
    row
      .map((b) => {
        if (keyboard.type === 'reply') return `‹ ${b.text} ›`
        return b.kind === 'url' ? `[ ${b.text} ↗ ]` : `[ ${b.text} ]`
      })
      .join(' '),
  )
}

/** Buttons in reading order (left to right, top to bottom), as numbered by `:press N`. */
export function flatButtons(keyboard: KeyboardView): ButtonView[] {
  return keyboard.rows.flat()
}

function withCaption(label: string, params: Record<string, unknown>): string {
  const caption = str(params.caption)
  return caption ? `${label} ${plainText(caption, params.parse_mode)}` : label
}

function seconds(value: unknown): string {
  const n = num(value)
  return n === undefined ? '' : ` ${n}s`
}

type Describer = (p: Record<string, unknown>) => string

/** One-line descriptions of the media a bot can send. */
const MEDIA: Record<string, Describer> = {
  sendphoto: (p) => withCaption(bracket('photo', fileName(p.photo)), p),
  senddocument: (p) => withCaption(bracket('document', fileName(p.document)), p),
  sendvideo: (p) => withCaption(bracket(`video${seconds(p.duration)}`, fileName(p.video)), p),
  sendanimation: (p) => withCaption(bracket('animation', fileName(p.animation)), p),
  sendaudio: (p) =>
    withCaption(
      bracket(
        `audio${seconds(p.duration)}`,
        [str(p.performer), str(p.title)].filter(Boolean).join(' – ') || fileName(p.audio),
      ),
      p,
    ),
  sendvoice: (p) => withCaption(`[voice message${seconds(p.duration)}]`, p),
  sendvideonote: (p) => `[round video${seconds(p.duration)}]`,
  sendsticker: (p) => (str(p.emoji) ? `[sticker ${str(p.emoji)}]` : '[sticker]'),
  sendlocation: (p) => `[location ${str(p.latitude) ?? '?'}, ${str(p.longitude) ?? '?'}]`,
  sendvenue: (p) => `[venue ${str(p.title) ?? ''}${str(p.address) ? `, ${str(p.address)}` : ''}]`,
  sendcontact: (p) =>
    `[contact ${[str(p.first_name), str(p.last_name)].filter(Boolean).join(' ')}${str(p.phone_number) ? ` ${str(p.phone_number)}` : ''}]`,
  senddice: (p) => `[dice ${str(p.emoji) ?? '🎲'}]`,
  sendpoll: (p) => {
    const options = parseMaybeJson(p.options)
    const labels = Array.isArray(options)
      ? options.map((o) => (typeof o === 'string' ? o : (str((o as {text?: unknown})?.text) ?? '?')))
      : []
    return `[poll] ${str(p.question) ?? ''}${labels.length ? ` — ${labels.join(' / ')}` : ''}`
  },
  sendmediagroup: (p) => {
    const media = parseMaybeJson(p.media)
    const items = Array.isArray(media) ? media : []
    const caption = items.map((m) => str((m as {caption?: unknown})?.caption)).find(Boolean)
    const kinds = [...new Set(items.map((m) => str((m as {type?: unknown})?.type) ?? 'item'))].join('/')
    return `[album: ${items.length} ${kinds || 'items'}]${caption ? ` ${caption}` : ''}`
  },
  sendinvoice: (p) => `[invoice] ${str(p.title) ?? ''}${str(p.description) ? ` — ${str(p.description)}` : ''}`,
  sendgame: (p) => `[game ${str(p.game_short_name) ?? ''}]`,
  forwardmessage: () => '[forwarded a message]',
  forwardmessages: () => '[forwarded messages]',
  copymessage: () => '[copied a message]',
  copymessages: () => '[copied messages]',
}

function bracket(kind: string, name: string | undefined): string {
  return name ? `[${kind}: ${name}]` : `[${kind}]`
}

function errorText(error: unknown): string {
  if (!error) return 'failed'
  if (typeof error === 'string') return error
  const e = error as {error_code?: unknown; code?: unknown; description?: unknown; message?: unknown}
  const code = num(e.error_code) ?? num(e.code)
  const description = str(e.description) ?? str(e.message) ?? 'failed'
  return code !== undefined ? `${code} ${description}` : description
}

function messageIdOf(result: unknown): number | undefined {
  if (result && typeof result === 'object' && !Array.isArray(result))
    return num((result as {message_id?: unknown}).message_id)
  return undefined
}

/**
 * What a chat shows for one API call of the bot, or undefined when the call is not visible in a chat
 * (getMe, getUpdates, setWebhook, setMyCommands and the like).
 */
export function renderCall(call: CallLike, options: RenderOptions = {}): RenderedCall | undefined {
  const method = call.method.toLowerCase()
  const p = call.params ?? {}
  const chatId = num(p.chat_id) ?? str(p.chat_id)
  const base = {chatId, messageId: messageIdOf(call.result) ?? num(p.message_id)}

  if (call.error !== undefined && call.error !== null && isChatMethod(method))
    return {...base, text: `✗ ${call.method} failed: ${errorText(call.error)}`, dim: true}

  const markup = keyboardOf(p.reply_markup)
  const withMarkup = (text: string, dim = false): RenderedCall => ({
    ...base,
    text,
    dim,
    ...(markup.keyboard ? {keyboard: markup.keyboard} : {}),
    ...(markup.note ? {markupNote: markup.note} : {}),
  })

  switch (method) {
    case 'sendmessage':
      return withMarkup(plainText(str(p.text) ?? '', p.parse_mode))
    case 'editmessagetext':
      return withMarkup(`(edited) ${plainText(str(p.text) ?? '', p.parse_mode)}`)
    case 'editmessagecaption':
      return withMarkup(`(edited caption) ${plainText(str(p.caption) ?? '', p.parse_mode)}`)
    case 'editmessagemedia': {
      const media = parseMaybeJson(p.media) as {type?: unknown; caption?: unknown} | undefined
      const type = str(media?.type) ?? 'media'
      const caption = str(media?.caption)
      return withMarkup(`(edited media) [${type}]${caption ? ` ${caption}` : ''}`)
    }
    case 'editmessagereplymarkup':
      return withMarkup(markup.keyboard ? '(buttons changed)' : '(buttons removed)', !markup.keyboard)
    case 'deletemessage':
    case 'deletemessages':
      return {...base, text: '(deleted a message)', dim: true}
    case 'answercallbackquery': {
      const text = str(p.text)
      if (!text) return undefined
      const alert = p.show_alert === true || p.show_alert === 'true'
      return {...base, text: alert ? `(alert) ${text}` : `(notification) ${text}`, dim: false}
    }
    case 'sendchataction':
      return options.showChatActions
        ? {...base, text: `(${(str(p.action) ?? 'typing').replace(/_/g, ' ')}…)`, dim: true}
        : undefined
    case 'setmessagereaction': {
      const reaction = parseMaybeJson(p.reaction)
      const emoji = Array.isArray(reaction)
        ? reaction.map((r) => str((r as {emoji?: unknown})?.emoji) ?? '★').join('')
        : ''
      return {...base, text: emoji ? `(reacted ${emoji})` : '(removed its reaction)', dim: true}
    }
    case 'pinchatmessage':
      return {...base, text: '(pinned a message)', dim: true}
    case 'unpinchatmessage':
    case 'unpinallchatmessages':
      return {...base, text: '(unpinned)', dim: true}
    case 'stopmessagelivelocation':
      return {...base, text: '(stopped live location)', dim: true}
    case 'editmessagelivelocation':
      return {...base, text: `(moved location) ${str(p.latitude) ?? '?'}, ${str(p.longitude) ?? '?'}`, dim: true}
    case 'stoppoll':
      return {...base, text: '(closed the poll)', dim: true}
  }
  const media = MEDIA[method]
  if (media) return withMarkup(media(p))
  return undefined
}

/** Methods whose failure a chat user would notice (the bot tried to show something). */
function isChatMethod(method: string): boolean {
  return (
    method.startsWith('send') ||
    method.startsWith('edit') ||
    method.startsWith('delete') ||
    method.startsWith('forward') ||
    method.startsWith('copy') ||
    method === 'answercallbackquery'
  )
}

export interface FormatOptions {
  /** ANSI colours (dim lines, a coloured prefix). Default false. */
  color?: boolean
  /** Prefix of the first line. Default `bot › `. */
  prefix?: string
}

/**
 * The lines a terminal prints for a rendered call: `bot › text`, continuation lines and keyboard rows
 * indented under the text.
 */
export function formatRendered(rendered: RenderedCall, options: FormatOptions = {}): string[] {
  const prefix = options.prefix ?? 'bot › '
  const pad = ' '.repeat([...prefix].length)
  const body = rendered.text.split('\n')
  if (rendered.keyboard) body.push(...keyboardLines(rendered.keyboard))
  if (rendered.markupNote) body.push(rendered.markupNote)
  return body.map((line, i) => {
    const shown = styleIf(rendered.dim && options.color, 'dim', line)
    if (i > 0) return pad + shown
    return styleIf(options.color, 'cyan', prefix) + shown
  })
}

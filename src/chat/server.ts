/**
 * The chat page: a Telegram client for the emulator's bot in the browser (docs/chat.md). One request handler, mounted
 * by the inspector at `/chat` (`bot dev --offline`; the inspector checks its key first) and by `bot emulator` at `/`
 * of the emulator's own port (BotApiEmulator.servePage; the emulator's Host and cross-site checks apply). Paths are
 * relative to the mount:
 *
 *   GET  /                                  the page (plain HTML/CSS/JS from ./page)
 *   GET  /app.js, /render.js, /style.css, /miniapp.js
 *   GET  /api/config?user=&chat=            {me, user, chat_id, chats, history_chat_id, history}: the bot, the default
 *                                           user and chat, the chats, and the newest messages of the chat it opens
 *   GET  /api/bot?chat_id=&user_id=&language_code=   the bot as that user sees it (description, menu button, commands)
 *   GET  /api/chats/{chat_id}/messages?limit=&before=   [{message, reactions}], oldest first
 *   GET  /api/chats/{chat_id}/messages/{message_id}     one {message, reactions}
 *   GET  /api/chats/{chat_id}/keyboard      {markup}: the reply keyboard the bot left there (null: none)
 *   GET  /api/chats/{chat_id}/ephemeral?user_id=   [{message, reactions}]: the ephemeral messages (Bot API 10.2) that
 *                                           user still sees there, oldest first
 *   POST /api/chats                         {id?, type, title?, is_forum?}: a group, supergroup or channel the bot is in
 *   POST /api/actions/{name}                a user action of the emulator's table (emu.runAction), JSON in and out
 *   POST /api/upload?kind=&chat_id=&user_id=&first_name=&caption=   the body's bytes as send_media
 *   GET  /api/inline/{query_id}             the bot's answer to an inline query (null until it answered)
 *   GET  /api/files/{file_id}               a file's bytes (photos, stickers, voice…)
 *   GET  /api/events                        Server-Sent Events (feed.ts)
 *   POST /api/miniapp/frame                 {url} → {url}: where the Mini App frame loads an app (src/lib/mini-app-proxy.ts)
 *
 * Errors are `{"error": "…"}` with a 4xx status. Nothing is cached; the page runs under a Content-Security-Policy that
 * loads nothing from elsewhere (Mini Apps aside: frames may load any http(s) page), and puts every text of a message
 * into the page as text.
 */
import {readFile} from 'node:fs/promises'
import type {IncomingMessage, ServerResponse} from 'node:http'
import {fileURLToPath} from 'node:url'

import * as v from 'valibot'
import type {BotApiEmulator} from '../emulator/index.js'
import {redactSecrets} from '../telegram/redact.js'
import {ChatFeed} from './feed.js'
import {numericId} from './telegram.js'
import {createMiniAppProxy} from '../lib/mini-app-proxy.js'
import {messageOf} from '../lib/errors.js'

export const CHAT_PAGE_DIR = fileURLToPath(new URL('page/', import.meta.url))

const FILES: Record<string, string> = {
  '/app.js': 'text/javascript; charset=utf-8',
  '/render.js': 'text/javascript; charset=utf-8',
  '/miniapp.js': 'text/javascript; charset=utf-8',
  '/style.css': 'text/css; charset=utf-8',
}

export const CHAT_HEADERS: Record<string, string> = {
  'Cache-Control': 'no-store',
  'Content-Security-Policy':
    "default-src 'self'; img-src 'self' blob: data:; media-src 'self' blob:; frame-src http: https:; base-uri 'none'; form-action 'none'; frame-ancestors 'self'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Resource-Policy': 'same-origin',
}

/** The largest upload the page sends (a bot may receive files up to 20 MB from the cloud; users send up to 2 GB). */
const MAX_UPLOAD = 50 * 1024 * 1024
const MAX_JSON = 1024 * 1024
/** The newest messages sent with the config (the page's PAGE). */
const HISTORY_PAGE = 100

export interface ChatPageOptions {
  emulator: BotApiEmulator
  token: string
  /** The key the page's requests carry (the inspector's); '' when the mount needs none (`bot emulator`). */
  key?: string
  /** Where the page is mounted: '/chat/' in the inspector, '/' on the emulator. */
  base: string
  /** The user the page types as at first, and the chat it opens. */
  user?: {id: number; first_name: string; username?: string}
  chatId?: number
  /**
   * Give the page the bot's token (`token` of /api/config, for a Mini App's launch through the control API on the
   * same origin): only where it is no secret to the page's origin, the emulator's own port (`bot emulator`).
   */
  exposeToken?: boolean
  heartbeatMs?: number
}

export interface ChatPage {
  /** Serve a request; `path` is relative to the mount ('/', '/app.js', '/api/…'). */
  handle(req: IncomingMessage, res: ServerResponse, path: string, search: string): Promise<void>
  close(): void
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

/** The page's files (path → text), its HTML with the key and the mount filled in. */
export async function loadChatPageFiles(
  key: string,
  base: string,
): Promise<{html: string; files: Record<string, string>}> {
  const names = ['index.html', 'app.js', 'render.js', 'miniapp.js', 'style.css']
  const loaded = await Promise.all(names.map((n) => readFile(CHAT_PAGE_DIR + n, 'utf8')))
  const files = Object.fromEntries(names.map((n, i) => ['/' + n, loaded[i]]))
  const html = files['/index.html']
    .replaceAll('{{key}}', encodeURIComponent(key).replace(/[&<>"']/g, ''))
    .replaceAll('{{base}}', base.replace(/[&<>"']/g, ''))
  return {html, files}
}

/** GET of the page and its files ('/', '/app.js', …); anything else is 404 (405 for another method). */
export function servePageFile(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  page: {html: string; files: Record<string, string>},
): void {
  const method = req.method ?? 'GET'
  if (method !== 'GET' && method !== 'HEAD') throw new HttpError(405, 'use GET for the page')
  if (path === '/' || path === '' || path === '/index.html')
    return send(res, 200, 'text/html; charset=utf-8', page.html)
  const type = FILES[path]
  if (type) return send(res, 200, type, page.files[path])
  throw new HttpError(404, `no chat page file ${path}`)
}

export async function createChatPage(o: ChatPageOptions): Promise<ChatPage> {
  const key = o.key ?? ''
  const {html, files} = await loadChatPageFiles(key, o.base)
  const redact = (text: string) => redactSecrets(text, [o.token])
  const feed = new ChatFeed({emulator: o.emulator, token: o.token, redact, heartbeatMs: o.heartbeatMs})
  const miniApps = createMiniAppProxy()
  const user = o.user ?? {id: 1111, first_name: 'You'}
  const emu = o.emulator
  const token = o.token

  const json = (res: ServerResponse, status: number, value: unknown): void => {
    send(res, status, 'application/json; charset=utf-8', redact(JSON.stringify(value ?? null)))
  }

  async function api(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void> {
    const method = req.method ?? 'GET'
    const get = method === 'GET' || method === 'HEAD'
    if (path === '/api/events' && get) return feed.attach(res, CHAT_HEADERS)
    if (path === '/api/config' && get) {
      // ?user= / ?chat= (the page's own query): the chat it opens, whose newest messages come along
      const opened = intOf(query.get('chat')) ?? intOf(query.get('user')) ?? o.chatId ?? user.id
      const config = {
        me: emu.botCard(token, {chatId: o.chatId ?? user.id, userId: user.id}).user,
        user,
        chat_id: o.chatId ?? user.id,
        chats: emu.chatList(token),
        history_chat_id: opened,
        history: emu.chatHistory(token, opened, {limit: HISTORY_PAGE}),
      }
      if (!o.exposeToken) return json(res, 200, config)
      return send(
        res,
        200,
        'application/json; charset=utf-8',
        JSON.stringify({...JSON.parse(redact(JSON.stringify(config))), token}),
      )
    }
    if (path === '/api/bot' && get) {
      const userId = intOf(query.get('user_id')) ?? user.id
      const chatId = intOf(query.get('chat_id')) ?? userId
      const language = query.get('language_code') ?? undefined
      return json(res, 200, emu.botCard(token, {chatId, userId, ...(language ? {languageCode: language} : {})}))
    }
    const keyboard = /^\/api\/chats\/(-?\d{1,20})\/keyboard$/.exec(path)
    if (keyboard && get) return json(res, 200, {markup: feed.keyboard(Number(keyboard[1])) ?? null})
    const ephemeral = /^\/api\/chats\/(-?\d{1,20})\/ephemeral$/.exec(path)
    if (ephemeral && get) {
      const chatId = Number(ephemeral[1])
      const userId = intOf(query.get('user_id')) ?? user.id
      const shown = emu
        .ephemeralMessages(token)
        .filter((m) => numericId(m.chat) === chatId && numericId(m.receiver_user) === userId)
      return json(
        res,
        200,
        shown.map((message) => ({message, reactions: []})),
      )
    }
    const messages = /^\/api\/chats\/(-?\d{1,20})\/messages(?:\/(\d{1,12}))?$/.exec(path)
    if (messages && get) {
      const chatId = Number(messages[1])
      if (messages[2]) {
        const view = emu.messageView(token, chatId, Number(messages[2]))
        if (!view) throw new HttpError(404, `there is no message ${messages[2]} in chat ${chatId}`)
        return json(res, 200, view)
      }
      const limit = intOf(query.get('limit'))
      const before = intOf(query.get('before'))
      return json(res, 200, emu.chatHistory(token, chatId, {limit: limit ?? 200, ...(before ? {before} : {})}))
    }
    if (path === '/api/chats' && method === 'POST') {
      const body = await readJson(req)
      return json(res, 200, {chat: addChat(body)})
    }
    const action = /^\/api\/actions\/([a-z_]{1,40})$/.exec(path)
    if (action && method === 'POST') {
      const body = await readJson(req)
      try {
        return json(res, 200, await emu.runAction(token, action[1], body))
      } catch (err) {
        const status = (err as {status?: number}).status
        throw new HttpError(status === 404 ? 404 : 400, messageOf(err))
      }
    }
    if (path === '/api/upload' && method === 'POST') {
      const data = await readBytes(req, MAX_UPLOAD)
      const kind = query.get('kind') ?? 'document'
      const input: Record<string, unknown> = {
        kind,
        file: {
          data,
          ...(query.get('filename') ? {filename: query.get('filename')} : {}),
          ...(req.headers['content-type'] ? {mime_type: req.headers['content-type']} : {}),
        },
      }
      for (const name of ['chat_id', 'user_id', 'reply_to_message_id', 'message_thread_id']) {
        const n = intOf(query.get(name))
        if (n !== undefined) input[name] = n
      }
      for (const name of ['first_name', 'username', 'caption', 'chat_title'])
        if (query.get(name)) input[name] = query.get(name)
      try {
        return json(res, 200, await emu.runAction(token, 'send_media', input))
      } catch (err) {
        throw new HttpError(400, messageOf(err))
      }
    }
    if (path === '/api/miniapp/frame' && method === 'POST') {
      const body = await readJson(req)
      try {
        return json(res, 200, {url: await miniApps.frameUrl(String(body.url ?? ''))})
      } catch (err) {
        throw new HttpError(400, messageOf(err))
      }
    }
    const inline = /^\/api\/inline\/([\w-]{1,64})$/.exec(path)
    if (inline && get) return json(res, 200, {answer: emu.inlineAnswer(token, inline[1]) ?? null})
    const file = /^\/api\/files\/([\w-]{1,200})$/.exec(path)
    if (file && get) {
      const content = emu.fileContent(token, file[1])
      if (!content) throw new HttpError(404, 'the emulator has no bytes for this file')
      return send(res, 200, content.mime ?? mimeOf(content.kind, content.name), content.data, {
        ...(content.name && content.kind === 'document'
          ? {'Content-Disposition': `attachment; filename="${content.name.replace(/[^\w.\- ]/g, '_')}"`}
          : {}),
      })
    }
    throw new HttpError(get || method === 'POST' ? 404 : 405, `no chat page route ${method} ${path}`)
  }

  /** A group, supergroup (with topics: is_forum) or channel the bot is in. */
  function addChat(body: Record<string, unknown>): {id: number; title: string; type: string; is_forum?: boolean} {
    const type = String(body.type ?? '')
    if (!['group', 'supergroup', 'channel'].includes(type))
      throw new HttpError(400, 'type must be group, supergroup or channel')
    const title = typeof body.title === 'string' && body.title.trim() !== '' ? body.title.trim().slice(0, 128) : ''
    let id = intOf(String(body.id ?? ''))
    if (id === undefined) {
      const known = new Set(emu.chatList(token).map((c) => c.id))
      const base = type === 'group' ? -4000000000 : -1002000000000
      id = base - 1
      while (known.has(id)) id -= 1
    }
    if (id >= 0) throw new HttpError(400, 'a group or channel id is negative')
    const chat = {
      id,
      title: title || (type === 'channel' ? 'Test Channel' : 'Test Group'),
      type,
      ...(type === 'supergroup' && body.is_forum === true ? {is_forum: true} : {}),
    }
    emu.addChat(token, chat)
    return chat
  }

  return {
    async handle(req, res, path, search) {
      try {
        if (path.startsWith('/api/')) return await api(req, res, path, new URLSearchParams(search))
        return servePageFile(req, res, path, {html, files})
      } catch (err) {
        req.resume()
        if (err instanceof HttpError) json(res, err.status, {error: err.message})
        else json(res, 500, {error: `the chat page failed: ${messageOf(err)}`})
      }
    },
    close() {
      feed.close()
      void miniApps.close()
    },
  }
}

export function send(
  res: ServerResponse,
  status: number,
  type: string,
  body: string | Buffer,
  extra: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.destroy()
    return
  }
  res.writeHead(status, {...CHAT_HEADERS, ...extra, 'Content-Type': type, 'Content-Length': Buffer.byteLength(body)})
  res.end(body)
}

export function intOf(text: string | null | undefined): number | undefined {
  if (text === null || text === undefined || !/^-?\d{1,16}$/.test(text)) return undefined
  const n = Number(text)
  return Number.isSafeInteger(n) ? n : undefined
}

function readBytes(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        reject(new HttpError(413, `the body is over ${limit} bytes`))
        req.destroy()
        return
      }
      chunks.push(chunk)
    })
    req.on('end', () => resolve(Buffer.concat(chunks)))
    req.on('error', reject)
  })
}

/** A JSON object body sent as application/json (a page of another site cannot send that without asking first). */
/** Any JSON object (valibot lets an array through: readJson refuses it). */
const JsonObject = v.looseObject({})

export async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase()
  if (type !== 'application/json') throw new HttpError(415, 'send the body as JSON (Content-Type: application/json)')
  const text = (await readBytes(req, MAX_JSON)).toString('utf8').trim()
  if (text === '') return {}
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new HttpError(400, 'the body is not valid JSON')
  }
  if (!v.is(JsonObject, value) || Array.isArray(value)) throw new HttpError(400, 'the body must be an object')
  return value
}

const MIMES: Record<string, string> = {
  photo: 'image/jpeg',
  sticker: 'image/webp',
  video: 'video/mp4',
  animation: 'video/mp4',
  video_note: 'video/mp4',
  voice: 'audio/ogg',
  audio: 'audio/mpeg',
  thumbnail: 'image/jpeg',
  profile_photo: 'image/jpeg',
}

export function mimeOf(kind: string, name: string | undefined): string {
  const ext = /\.([a-z0-9]+)$/i.exec(name ?? '')?.[1]?.toLowerCase()
  if (ext === 'png') return 'image/png'
  if (ext === 'gif') return 'image/gif'
  if (ext === 'webp') return 'image/webp'
  if (ext === 'jpg' || ext === 'jpeg') return 'image/jpeg'
  if (ext === 'pdf') return 'application/pdf'
  if (ext === 'txt') return 'text/plain; charset=utf-8'
  return MIMES[kind] ?? 'application/octet-stream'
}

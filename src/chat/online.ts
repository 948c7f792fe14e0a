/**
 * The chat page of an online `bot dev` session (docs/chat.md, "Online"): the same page as offline (./page), mounted by
 * the inspector at `/chat` behind its key, over what the session recorded instead of an emulator (session-chats.ts):
 * each real chat as its user saw it, live. The page's input and its callback buttons send synthetic updates through the
 * session's trigger engine, the path of `bot trigger message` and `bot trigger callback`; the page marks them.
 *
 * The routes are the page API of server.ts, answered from the record:
 *
 *   GET  /api/config                        {me, user, users, chat_id, chats, history_chat_id, history, online}
 *   GET  /api/bot                           {user, name, description, short_description, menu_button, commands}
 *   GET  /api/chats/{chat_id}/messages?limit=&before=, /api/chats/{chat_id}/messages/{message_id}
 *   GET  /api/chats/{chat_id}/keyboard      {markup}
 *   GET  /api/chats/{chat_id}/ephemeral?user_id=   [{message, reactions}]: the ephemeral messages (Bot API 10.2) that
 *                                           user still sees there, as the bot's calls left them (session-ephemeral.ts)
 *   POST /api/actions/send_message          {text, chat_id, user_id} → bot trigger message; {update_id, synthetic}
 *   POST /api/actions/press_button          {data, message_id, chat_id, user_id} → bot trigger callback
 *   POST /api/actions/{other}               409: a user action this session cannot send, and why
 *   GET  /api/files/{file_id}               the file's bytes, fetched from Telegram (getFile) by the session
 *   GET  /api/events                        Server-Sent Events (feed.ts): the updates and calls as they are recorded
 *
 * `online` in the config: `{synthetic: true}`, or `{synthetic: false, reason}` when the session cannot hand the bot an
 * update (long polling against Telegram). Every answer and event goes through the redaction of the session's secrets
 * (the token, the webhook secret and path).
 */
import type {IncomingMessage, ServerResponse} from 'node:http'

import type {TriggerRequest} from '../control/protocol.js'
import type {HistoryView} from '../inspector/types.js'
import {redactSecrets} from '../telegram/redact.js'
import {ChatFeed} from './feed.js'
import {
  CHAT_HEADERS,
  HttpError,
  intOf,
  loadChatPageFiles,
  mimeOf,
  readJson,
  send,
  servePageFile,
  type ChatPage,
} from './server.js'
import {SessionChats} from './session-chats.js'
import {messageOf} from '../lib/errors.js'

export interface SessionChatPageOptions {
  /** The inspector's key (the page's requests carry it). */
  key: string
  /** Where the page is mounted ('/chat/'). */
  base: string
  /** The bot (getMe), for the page's "me". */
  bot: () => {id: number; first_name?: string; username?: string} | undefined
  /** The session's update history (each update as delivered). */
  history: HistoryView
  /** Subscribe to the bot's calls with their parameters and result as sent and received; returns an unsubscribe. */
  onCall: (listener: (method: string, params: Record<string, unknown>, result: unknown) => void) => () => void
  /** The session's trigger engine (`bot trigger`'s path); its failures carry status, message and fix. */
  trigger: (request: TriggerRequest) => Promise<{updateId: number}>
  /** Why the session cannot send a synthetic update now (long polling against Telegram), else undefined. */
  cannotTrigger?: () => string | undefined
  /** A file's bytes from Telegram (getFile, then the file), or undefined when there are none. */
  file?: (fileId: string) => Promise<{data: Buffer; name?: string} | undefined>
  /** Redacted from every answer and event (read each time: the webhook secret and path join once known). */
  secrets: readonly string[]
  heartbeatMs?: number
}

/** Why a user action of the page is not sent online (the page shows it). */
const OFFLINE_ONLY: Record<string, string> = {
  pay_invoice: 'A real invoice is paid in Telegram; `bot trigger payment` sends a synthetic payment.',
  launch_web_app: 'Mini Apps open in Telegram in an online session.',
  send_media: 'Online the page sends text and button presses; `bot trigger photo` sends a synthetic photo.',
  react: 'Online the page sends text and button presses; `bot trigger reaction` sends a synthetic reaction.',
  vote_poll: 'Online the page sends text and button presses; `bot trigger poll-answer` sends a synthetic vote.',
  inline_query: 'Inline mode works in Telegram; `bot trigger inline` sends a synthetic inline query.',
}

export async function createSessionChatPage(o: SessionChatPageOptions): Promise<ChatPage> {
  const page = await loadChatPageFiles(o.key, o.base)
  const redact = (text: string) => redactSecrets(text, [...o.secrets])
  const chats = new SessionChats()
  const feed = new ChatFeed({
    token: '',
    redact,
    heartbeatMs: o.heartbeatMs,
    messageView: (chatId, messageId) => chats.view(chatId, messageId),
    ephemeralView: (chatId, receiver, id) => chats.ephemeral.view(chatId, receiver, id),
  })
  const publish = (views: ReturnType<SessionChats['fromEntry']>) => {
    for (const view of views) feed.publishView(view)
  }
  for (const entry of o.history.list().reverse()) chats.fromEntry(entry)
  const unsubscribeHistory = o.history.subscribe((entry, change) => {
    if (change !== 'new') return
    try {
      publish(chats.fromEntry(entry))
    } catch {
      // an update the page cannot read is only left out of it
    }
  })
  const unsubscribeCalls = o.onCall((method, params, result) => {
    try {
      chats.fromCall(method, params, result)
      feed.call({method, params, result})
    } catch {
      // as above
    }
  })

  const json = (res: ServerResponse, status: number, value: unknown): void => {
    send(res, status, 'application/json; charset=utf-8', redact(JSON.stringify(value ?? null)))
  }

  const me = () => {
    const bot = o.bot()
    return {
      id: bot?.id ?? 0,
      is_bot: true,
      first_name: bot?.first_name ?? 'bot',
      ...(bot?.username ? {username: bot.username} : {}),
    }
  }

  const online = () => {
    const reason = o.cannotTrigger?.()
    return reason ? {synthetic: false, reason} : {synthetic: true}
  }

  async function trigger(request: TriggerRequest): Promise<unknown> {
    const reason = o.cannotTrigger?.()
    if (reason) throw new HttpError(409, reason)
    try {
      const entry = await o.trigger(request)
      return {update_id: entry.updateId, synthetic: true}
    } catch (err) {
      const e = err as {status?: unknown; message?: string; fix?: string}
      const status = typeof e.status === 'number' && e.status >= 400 && e.status < 600 ? e.status : 500
      throw new HttpError(status, [e.message ?? String(err), e.fix].filter(Boolean).join(' '))
    }
  }

  async function action(name: string, body: Record<string, unknown>): Promise<unknown> {
    const chatId = intOf(String(body.chat_id ?? ''))
    const userId = intOf(String(body.user_id ?? ''))
    const parties = {...(chatId !== undefined ? {chatId} : {}), ...(userId !== undefined ? {userId} : {})}
    if (name === 'send_message') {
      if (typeof body.text !== 'string' || body.text.trim() === '') throw new HttpError(400, 'text is missing')
      return trigger({kind: 'message', text: body.text, ...parties})
    }
    if (name === 'press_button' && body.ephemeral_message_id !== undefined)
      throw new HttpError(
        409,
        "An ephemeral message's button is pressed in Telegram in an online session: a synthetic callback query carries no ephemeral message.",
      )
    if (name === 'press_button' && typeof body.data === 'string' && body.game_short_name === undefined) {
      const messageId = intOf(String(body.message_id ?? ''))
      return trigger({kind: 'callback', data: body.data, ...(messageId !== undefined ? {messageId} : {}), ...parties})
    }
    throw new HttpError(
      409,
      OFFLINE_ONLY[name] ??
        `${name} is not sent in an online session: the page sends text and callback buttons, as bot trigger does.`,
    )
  }

  async function api(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void> {
    const method = req.method ?? 'GET'
    const get = method === 'GET' || method === 'HEAD'
    if (path === '/api/events' && get) return feed.attach(res, CHAT_HEADERS)
    if (path === '/api/config' && get) {
      const last = chats.last()
      const users = chats.users()
      const user = last.user ?? (users.at(-1) as {id: number} | undefined) ?? {id: 0, first_name: 'nobody yet'}
      const chatId = last.chatId ?? (chats.chatList().at(-1)?.id as number | undefined) ?? 0
      const opened = intOf(query.get('chat')) ?? intOf(query.get('user')) ?? chatId
      return json(res, 200, {
        me: me(),
        user,
        users,
        chat_id: chatId,
        chats: chats.chatList(),
        history_chat_id: opened,
        history: chats.history(opened, {limit: 100}),
        online: online(),
      })
    }
    if (path === '/api/bot' && get)
      return json(res, 200, {
        user: me(),
        name: chats.name ?? me().first_name,
        description: chats.description,
        short_description: chats.shortDescription,
        menu_button: chats.menuButton,
        commands: chats.commands,
      })
    const keyboard = /^\/api\/chats\/(-?\d{1,20})\/keyboard$/.exec(path)
    if (keyboard && get) return json(res, 200, {markup: feed.keyboard(Number(keyboard[1])) ?? null})
    const ephemeral = /^\/api\/chats\/(-?\d{1,20})\/ephemeral$/.exec(path)
    if (ephemeral && get) {
      const userId = intOf(query.get('user_id'))
      return json(res, 200, userId === undefined ? [] : chats.ephemeral.list(Number(ephemeral[1]), userId))
    }
    const messages = /^\/api\/chats\/(-?\d{1,20})\/messages(?:\/(\d{1,12}(?:\.\d{1,20})?))?$/.exec(path)
    if (messages && get) {
      const chatId = Number(messages[1])
      if (messages[2]) {
        const view = chats.view(chatId, Number(messages[2]))
        if (!view) throw new HttpError(404, `there is no message ${messages[2]} in chat ${chatId}`)
        return json(res, 200, view)
      }
      const before = Number(query.get('before'))
      return json(
        res,
        200,
        chats.history(chatId, {
          limit: intOf(query.get('limit')) ?? 200,
          ...(Number.isFinite(before) && query.get('before') ? {before} : {}),
        }),
      )
    }
    const act = /^\/api\/actions\/([a-z_]{1,40})$/.exec(path)
    if (act && method === 'POST') return json(res, 200, await action(act[1], await readJson(req)))
    if (path === '/api/upload' && method === 'POST') throw new HttpError(409, OFFLINE_ONLY.send_media)
    if (path === '/api/chats' && method === 'POST')
      throw new HttpError(
        409,
        'Online the chats are the real ones the session saw: add the bot to a group in Telegram.',
      )
    if (path === '/api/miniapp/frame' && method === 'POST') throw new HttpError(409, OFFLINE_ONLY.launch_web_app)
    const inline = /^\/api\/inline\/([\w-]{1,64})$/.exec(path)
    if (inline && get) return json(res, 200, {answer: null})
    const file = /^\/api\/files\/([\w-]{1,200})$/.exec(path)
    if (file && get) {
      let content: {data: Buffer; name?: string} | undefined
      try {
        content = await o.file?.(file[1])
      } catch {
        throw new HttpError(404, 'Telegram did not give this file')
      }
      if (!content) throw new HttpError(404, 'Telegram did not give this file')
      return send(res, 200, mimeOf('document', content.name), content.data)
    }
    throw new HttpError(get || method === 'POST' ? 404 : 405, `no chat page route ${method} ${path}`)
  }

  return {
    async handle(req, res, path, search) {
      try {
        if (path.startsWith('/api/')) return await api(req, res, path, new URLSearchParams(search))
        return servePageFile(req, res, path, page)
      } catch (err) {
        req.resume()
        if (err instanceof HttpError) json(res, err.status, {error: err.message})
        else json(res, 500, {error: `the chat page failed: ${messageOf(err)}`})
      }
    },
    close() {
      unsubscribeHistory()
      unsubscribeCalls()
      feed.close()
    },
  }
}

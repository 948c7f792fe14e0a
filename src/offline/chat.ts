/**
 * The terminal chat of offline mode: each line read becomes a message from a fake user to the bot
 * (through the emulator), and what the bot sends back is rendered as the bot's reply.
 *
 * - Not a TTY (a pipe, a file): lines are fed one by one; after each, the chat waits (bounded) until
 *   the bot has handled it and its replies are in, then sends the next. When the input ends and the
 *   last replies are in, `done` resolves, so the caller can end the session.
 * - A TTY: a `you › ` prompt; bot replies print as they come, above the prompt.
 *
 * Chat commands (a line that starts with one of them; read by chat-commands.ts): `:press N` or
 * `:press LABEL` presses a button of the last keyboard the bot sent (`:p` for short), `:save NAME`
 * writes the conversation so far as a chat script (test/NAME.chat.yml, emulator/scripts/), `:help`, `:quit`
 * (`:q`). Any other `:word` is an error line (nothing is sent); a line that starts with `::` is sent
 * with one colon less. Everything else is sent as text.
 *
 * It never prints by itself: lines go to the injected `output` stream (if any) and every step is also an event.
 */
import {readFileSync, statSync} from 'node:fs'
import {basename, join, relative, resolve, sep} from 'node:path'
import {createInterface, type Interface} from 'node:readline'

import * as v from 'valibot'
import {recordConversation, type ConversationRecorder, type RecordingSource} from '../emulator/scripts/record.js'
import {saveChatScript, ScriptSaveError} from '../emulator/scripts/save.js'
import {ERASE_LINE, styleIf} from '../lib/color.js'
import {CHAT_HELP, parseChatLine, pickButton, SESSION_HELP, unknownCommandText} from './chat-commands.js'
import {limitLines, MAX_LINE_BYTES} from './line-limit.js'
import {
  flatButtons,
  formatRendered,
  renderCall,
  type ButtonView,
  type CallLike,
  type KeyboardView,
  type RenderedCall,
} from './render.js'
import type {OfflineBackend} from './offline-env.js'
import {messageOf, codeOf} from '../lib/errors.js'

export {CHAT_HELP, unknownCommandText} from './chat-commands.js'

/** An update as the emulator returns it. */
export interface UpdateLike {
  update_id: number
  [key: string]: unknown
}

/** The part of the emulator the chat uses (BotApiEmulator satisfies it). */
export interface ChatEmulator {
  sendUserMessage(
    token: string,
    message: {text: string; chatId?: number; userId?: number; firstName?: string; username?: string},
  ): UpdateLike | undefined | Promise<UpdateLike | undefined>
  sendCallbackQuery(
    token: string,
    query: {data: string; messageId?: number; chatId?: number; userId?: number; firstName?: string; username?: string},
  ): UpdateLike | undefined | Promise<UpdateLike | undefined>
  /** A photo or a file from the user (BotApiEmulator has it: `:photo` and `:file` need it). */
  sendUserMedia?(
    token: string,
    media: {
      kind: 'photo' | 'document'
      data: Buffer
      filename?: string
      caption?: string
      chatId?: number
      userId?: number
      firstName?: string
      username?: string
    },
  ): UpdateLike | undefined | Promise<UpdateLike | undefined>
  /** A user action of the emulator's table (BotApiEmulator has it: `:pay` needs it). */
  runAction?(token: string, name: string, input: unknown): Promise<unknown>
  pendingUpdates(token: string): UpdateLike[]
  /** A getUpdates of the bot is waiting now (BotApiEmulator has it). */
  isLongPolling?(token: string): boolean
  /** The bot's webhook, when one is set (BotApiEmulator has it). */
  webhook?(token: string): unknown
  on(event: 'call', listener: (call: CallLike, token: string) => void): unknown
  on(event: 'delivery', listener: (delivery: {token: string}) => void): unknown
  /** Every update queued for a bot (BotApiEmulator has it: `:save` records from it). */
  on(event: 'update', listener: (update: UpdateLike, token: string) => void): unknown
  off?(event: 'call', listener: (call: CallLike, token: string) => void): unknown
  off?(event: 'delivery', listener: (delivery: {token: string}) => void): unknown
  removeListener?(event: 'call', listener: (call: CallLike, token: string) => void): unknown
  removeListener?(event: 'delivery', listener: (delivery: {token: string}) => void): unknown
}

export interface ChatUser {
  /** Private chat id; default: the user id (a negative id is a group chat). */
  chatId?: number
  userId?: number
  firstName?: string
  username?: string
}

export type ChatEvent =
  | {type: 'user'; text: string; updateId?: number}
  | {type: 'press'; button: ButtonView; updateId?: number}
  /** A photo or a file the user sent (`:photo`, `:file`). */
  | {type: 'media'; media: 'photo' | 'document'; file: string; bytes: number; caption?: string; updateId?: number}
  | {type: 'bot'; rendered: RenderedCall; lines: string[]; method: string; chatId?: number | string}
  | {type: 'no-reply'; text: string; waitedMs: number}
  | {type: 'note'; text: string}
  /** `:save NAME` wrote a chat script (path as shown: relative to the project). */
  | {type: 'saved'; path: string; steps: number; text: string}
  /** A line the chat could not take (an unknown `:command`): nothing was sent. */
  | {type: 'error'; text: string}
  | {type: 'end'; reason: 'input-ended' | 'quit' | 'closed'}

/** The files of a message the user sent (Message.photo, Message.document), each with its file_id. */
const SentMedia = v.looseObject({photo: v.optional(v.unknown()), document: v.optional(v.unknown())})
const FileId = v.looseObject({file_id: v.string()})

/** A Message with an invoice the bot sent (what `:pay` pays). */
const SentInvoice = v.looseObject({
  message_id: v.number(),
  chat: v.looseObject({id: v.number()}),
  invoice: v.looseObject({title: v.optional(v.string())}),
})
/** The service message of a payment made (Message.successful_payment). */
const PaymentMessage = v.looseObject({chat: v.looseObject({id: v.unknown()}), successful_payment: v.unknown()})

/** Whether a recorder can follow the emulator's updates and calls (BotApiEmulator can: it has `off` too). */
function recordable(emulator: ChatEmulator): emulator is ChatEmulator & RecordingSource {
  return typeof emulator.on === 'function' && typeof emulator.off === 'function'
}

export interface ChatOptions extends ChatUser {
  emulator: ChatEmulator
  /** Where a relative `:photo` / `:file` path starts (default: the current folder). */
  cwd?: string
  /** The bot's token in the emulator. */
  token: string
  /** Lines to send (process.stdin, a file, a PassThrough in tests). */
  input: NodeJS.ReadableStream
  /** Where the transcript goes (process.stdout). Without it nothing is written: use onEvent. */
  output?: NodeJS.WritableStream
  /** Prompt and live replies (default: whether `input` is a TTY). */
  interactive?: boolean
  /** ANSI colours in the output (default false). */
  color?: boolean
  /** Show sendChatAction as a dim line (default false). */
  showChatActions?: boolean
  /** How long to wait for the bot to handle each line before sending the next (default 5000 ms). */
  replyTimeoutMs?: number
  /** Before the first line's wait: how long the bot may take to start taking updates (default 30000 ms). */
  startupTimeoutMs?: number
  /** After the bot handled a line, how long without a new reply counts as "the replies are in" (default 150 ms). */
  settleMs?: number
  /** Interactive: a first note saying who you are and how to chat (default true). */
  intro?: boolean
  /** Every step of the chat, for logs or --json. */
  onEvent?: (event: ChatEvent) => void
  /** Ctrl-C at the interactive prompt (readline takes it from the terminal). Default: raise SIGINT on this process. */
  onInterrupt?: () => void
  /** The project `:save` writes test/NAME.chat.yml in (default: cwd, else the current folder). */
  projectDir?: string
  /** `bot:` of a script `:save` writes: the command the session runs the bot with, when it was given explicitly. */
  botCommand?: string
  /** `:r` restarts the bot and `:o` opens the inspector (`bot dev --offline`); without them they are unknown commands. */
  session?: {restart: () => void; open: () => void; openChat?: () => void}
}

export interface ChatSummary {
  /** Lines sent to the bot (messages and button presses). */
  sent: number
  /** Bot replies shown. */
  replies: number
  /** Lines the bot did not handle within the timeout. */
  unanswered: number
  /** Lines the bot handled without sending anything back (no message, no notification). */
  silent: number
  /** Unknown `:commands` typed (each an error line; nothing sent). */
  unknown: number
  /** `:save NAME` that wrote nothing (each an error line), and the first one's cause. */
  failedSaves?: number
  saveError?: string
  reason: 'input-ended' | 'quit' | 'closed'
}

export interface Chat {
  /** Resolves when the input ended (and the last replies are in), on `:quit`, or on close(). */
  readonly done: Promise<ChatSummary>
  /** Print a line of someone else's (e.g. the dev session's log) without breaking the prompt. */
  print(line: string): void
  /** Stop reading input and listening to the emulator. Idempotent. */
  close(): void
}

const DEFAULT_USER_ID = 1111
/** The largest file `:photo` / `:file` sends (a bot downloads at most 20 MB from the cloud; uploads go to 50 MB). */
const MAX_CHAT_FILE = 50 * 1024 * 1024

interface LastKeyboard {
  keyboard: KeyboardView
  messageId?: number
}

/** Whether the bytes start like a PNG, JPEG, GIF or WebP image. */
function isImage(data: Buffer): boolean {
  const head = data.subarray(0, 12)
  return (
    head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) ||
    head.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff])) ||
    head.subarray(0, 4).toString('latin1') === 'GIF8' ||
    (head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP')
  )
}

/** Start the chat; see the module comment. */
export function startChat(options: ChatOptions): Chat {
  return new TerminalChat(options)
}

/** The chat: the transcript it writes, what the bot does (its replies, its keyboards), what the user does. */
class TerminalChat implements Chat {
  readonly done: Promise<ChatSummary>
  readonly #o: ChatOptions
  readonly #user: {chatId: number; userId: number; firstName: string; username?: string}
  readonly #interactive: boolean
  readonly #rl: Interface
  readonly #summary: Omit<ChatSummary, 'reason'> = {sent: 0, replies: 0, unanswered: 0, silent: 0, unknown: 0}
  /** Wake whoever waits for the bot (a call, a delivery). */
  readonly #wakers = new Set<() => void>()
  readonly #onCall = (call: CallLike, token: string) => this.#botCalled(call, token)
  readonly #onDelivery = (d: {token: string}) => {
    if (d.token === this.#o.token) this.#wake()
  }
  #resolveDone!: (s: ChatSummary) => void
  #closed = false
  #finished = false
  #firstSent = false
  /** The bot has called getUpdates (it takes updates by polling). */
  #polled = false
  #lastActivity = Date.now()
  #lastKeyboard: LastKeyboard | undefined
  /** The invoices the bot sent in this chat not paid yet through `:pay`, oldest first. */
  readonly #invoices: Array<{chatId: number; messageId: number; title: string}> = []
  /** What `:save` writes: every update of this chat and the bot's calls for it. */
  readonly #recorder: ConversationRecorder | undefined
  /** The bytes of the files this chat sent, by file_id (a `:save` writes them as fixtures). */
  readonly #sentFiles = new Map<string, {data: Buffer; name: string}>()

  constructor(options: ChatOptions) {
    this.#o = options
    const userId = options.userId ?? DEFAULT_USER_ID
    this.#user = {
      userId,
      chatId: options.chatId ?? userId,
      firstName: options.firstName ?? 'You',
      ...(options.username ? {username: options.username} : {}),
    }
    this.#interactive = options.interactive ?? Boolean((options.input as {isTTY?: boolean}).isTTY)
    const source = options.emulator
    this.#recorder = recordable(source)
      ? recordConversation(source, options.token, {chats: [this.#user.chatId]})
      : undefined
    this.done = new Promise<ChatSummary>((resolve) => (this.#resolveDone = resolve))
    options.emulator.on('call', this.#onCall)
    options.emulator.on('delivery', this.#onDelivery)
    const output = options.output
    this.#rl = createInterface({
      // Piped input is cut at MAX_LINE_BYTES per line (a terminal's line is typed by a person).
      input: this.#interactive
        ? options.input
        : limitLines(options.input, MAX_LINE_BYTES, () =>
            this.#error(`✗ A line longer than ${MAX_LINE_BYTES / 1024} KiB was cut there; the rest of it is not sent.`),
          ),
      ...(this.#interactive && output ? {output, terminal: true, prompt: 'you › '} : {terminal: false}),
    })
    if (this.#interactive)
      this.#rl.on('SIGINT', () => (options.onInterrupt ?? (() => process.kill(process.pid, 'SIGINT')))())
    void this.#run()
  }

  /** Print a line of someone else's (e.g. the dev session's log) without breaking the prompt. */
  print(line: string): void {
    this.#write(line.split('\n'))
  }

  close(): void {
    this.#finish('closed')
  }

  // ── the transcript ─────────────────────────────────────────────────────

  #emit(event: ChatEvent): void {
    this.#o.onEvent?.(event)
  }

  #write(lines: string[]): void {
    const output = this.#o.output
    if (!output || lines.length === 0) return
    if (this.#interactive && !this.#closed) {
      // Clear the prompt line, print, then redraw the prompt with what the user has typed so far.
      output.write(ERASE_LINE + lines.join('\n') + '\n')
      this.#rl.prompt(true)
    } else {
      output.write(lines.join('\n') + '\n')
    }
  }

  #note(text: string): void {
    this.#emit({type: 'note', text})
    this.#write(text.split('\n').map((l) => styleIf(this.#o.color, 'dim', l)))
  }

  #error(text: string): void {
    this.#emit({type: 'error', text})
    this.#write([styleIf(this.#o.color, 'red', text)])
  }

  // ── the bot's side ─────────────────────────────────────────────────────

  #botCalled(call: CallLike, token: string): void {
    if (token !== this.#o.token) return
    if (call.method.toLowerCase() === 'getupdates') this.#polled = true
    this.#lastActivity = Date.now()
    this.#noteInvoice(call)
    const rendered = renderCall(call, {showChatActions: this.#o.showChatActions})
    if (rendered) {
      const own = rendered.chatId === undefined || Number(rendered.chatId) === this.#user.chatId
      this.#rememberKeyboard(rendered, call)
      const lines = formatRendered(rendered, {
        color: this.#o.color,
        prefix: own ? 'bot › ' : `bot → ${String(rendered.chatId)} › `,
      })
      this.#summary.replies++
      this.#emit({type: 'bot', rendered, lines, method: call.method, chatId: rendered.chatId})
      this.#write(lines)
    }
    this.#wake()
  }

  /** An invoice message the bot sent to this chat (what `:pay` pays). */
  #noteInvoice(call: CallLike): void {
    const result = call.result
    if (!v.is(SentInvoice, result) || result.chat.id !== this.#user.chatId) return
    this.#invoices.push({chatId: result.chat.id, messageId: result.message_id, title: result.invoice.title ?? ''})
    if (this.#invoices.length > 100) this.#invoices.shift()
  }

  /** `:pay`: the newest invoice not paid yet, through the table's pay_invoice (shipping and pre-checkout included). */
  async #pay(): Promise<void> {
    const run = this.#o.emulator.runAction?.bind(this.#o.emulator)
    if (!run) return this.#error('✗ This chat cannot pay invoices.')
    const invoice = this.#invoices.at(-1)
    if (!invoice) return this.#note('(no invoice to pay: the bot has not sent one in this chat, or it is paid)')
    if (!this.#interactive) this.#write([`you › [pay ${invoice.title}]`])
    const before = this.#summary.replies
    let attempt: {status?: string; error_message?: string; total_amount?: number; currency?: string}
    try {
      attempt = (await run(this.#o.token, 'pay_invoice', {
        invoice: invoice.messageId,
        chat_id: invoice.chatId,
        user_id: this.#user.userId,
        first_name: this.#user.firstName,
      })) as typeof attempt
    } catch (error) {
      return this.#error(`✗ ${messageOf(error)}`)
    }
    this.#summary.sent++
    if (attempt.status === 'paid') {
      this.#invoices.splice(this.#invoices.indexOf(invoice), 1)
      this.#note(`(paid "${invoice.title}": ${attempt.total_amount ?? ''} ${attempt.currency ?? ''})`)
    } else
      this.#note(
        `(the payment of "${invoice.title}" was not made: ${attempt.status}${attempt.error_message ? `, ${attempt.error_message}` : ''})`,
      )
    // The bot answers the payment when it handles the successful_payment message: wait for that update (queued by
    // now), as for a line, not only for the settle window (a polling bot may not even have fetched it by then).
    const paid = this.#o.emulator
      .pendingUpdates(this.#o.token)
      .filter((u) => {
        const message = u.message
        return v.is(PaymentMessage, message) && message.chat.id === invoice.chatId
      })
      .map((u) => u.update_id)
    return this.#waitHandled(paid, `[pay ${invoice.title}]`, before)
  }

  #rememberKeyboard(rendered: RenderedCall, call: CallLike): void {
    if (rendered.chatId !== undefined && Number(rendered.chatId) !== this.#user.chatId) return
    const method = call.method.toLowerCase()
    const last = this.#lastKeyboard
    if (rendered.keyboard) {
      this.#lastKeyboard = {keyboard: rendered.keyboard, messageId: rendered.messageId}
    } else if (last?.keyboard.type === 'inline' && method.startsWith('edit') && rendered.messageId === last.messageId) {
      // Editing a message without reply_markup removes its inline keyboard.
      this.#lastKeyboard = undefined
    } else if (last?.keyboard.type === 'reply' && rendered.markupNote === '(keyboard removed)') {
      this.#lastKeyboard = undefined
    }
  }

  #wake(): void {
    for (const w of [...this.#wakers]) w()
  }

  /** The bot takes updates: it has polled (getUpdates), polls now, or a webhook is set. Unknowable: assumed. */
  #botTakesUpdates(): boolean {
    const emulator = this.#o.emulator
    if (this.#polled) return true
    if (!emulator.isLongPolling && !emulator.webhook) return true
    return Boolean(emulator.isLongPolling?.(this.#o.token)) || emulator.webhook?.(this.#o.token) !== undefined
  }

  /**
   * Wait until the bot handled the update (acknowledged it) and no reply came for settleMs; at most
   * replyTimeoutMs for every line. Before the first, the bot may still be starting to take updates (a
   * polling bot's first getUpdates comes after Ready): that wait (up to startupTimeoutMs) is its
   * start-up's, not the line's.
   */
  async #waitHandled(updateId: number | number[] | undefined, label: string, repliesBefore: number): Promise<void> {
    const limit = this.#o.replyTimeoutMs ?? 5000
    const settleMs = this.#o.settleMs ?? 150
    const ids = new Set(updateId === undefined ? [] : [updateId].flat())
    const isHandled = () =>
      ids.size === 0 || !this.#o.emulator.pendingUpdates(this.#o.token).some((u) => ids.has(u.update_id))
    if (!this.#firstSent) {
      this.#firstSent = true
      const startingSince = Date.now()
      await this.#until(
        () => isHandled() || this.#botTakesUpdates(),
        startingSince + (this.#o.startupTimeoutMs ?? 30_000),
      )
    }
    const started = Date.now()
    const handled = await this.#until(isHandled, started + limit)
    if (!handled) {
      if (this.#closed) return
      this.#summary.unanswered++
      const waitedMs = Date.now() - started
      this.#emit({type: 'no-reply', text: label, waitedMs})
      this.#note(
        `(the bot has not handled "${label}" after ${(waitedMs / 1000).toFixed(1)}s; sending on, it stays queued)`,
      )
      return
    }
    // Replies a bot sends without awaiting them (and a webhook reply) arrive just after it
    // acknowledged the update: wait for settleMs of quiet counted from then, not from the last reply.
    const handledAt = Date.now()
    const settleDeadline = Math.min(Date.now() + Math.max(settleMs * 8, 1000), Date.now() + limit)
    await this.#until(() => Date.now() - Math.max(this.#lastActivity, handledAt) >= settleMs, settleDeadline)
    if (this.#summary.replies === repliesBefore && !this.#closed) this.#summary.silent++
  }

  /** Resolve true once cond() holds (checked on every emulator event and every 25 ms), false at the deadline or on close. */
  #until(cond: () => boolean, deadline: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const check = () => {
        if (this.#closed) return finish(false)
        if (cond()) return finish(true)
        if (Date.now() >= deadline) return finish(false)
      }
      const timer = setInterval(check, 25)
      const finish = (value: boolean) => {
        clearInterval(timer)
        this.#wakers.delete(check)
        resolve(value)
      }
      this.#wakers.add(check)
      check()
    })
  }

  // ── the user's side ────────────────────────────────────────────────────

  async #sendText(text: string): Promise<number | undefined> {
    const update = await this.#o.emulator.sendUserMessage(this.#o.token, {text, ...this.#user})
    this.#summary.sent++
    this.#emit({type: 'user', text, updateId: update?.update_id})
    return update?.update_id
  }

  /** `:photo PATH` / `:file PATH`: the file's bytes as the user's photo or document (read here, bounded). */
  async #sendMedia(media: 'photo' | 'document', path: string, caption?: string): Promise<void> {
    const send = this.#o.emulator.sendUserMedia?.bind(this.#o.emulator)
    if (!send) return this.#error('✗ This chat cannot send files.')
    let data: Buffer
    try {
      const file = resolve(this.#o.cwd ?? process.cwd(), path)
      const size = statSync(file).size
      if (size > MAX_CHAT_FILE)
        return this.#error(`✗ ${path} is ${size} bytes; a bot gets files of at most ${MAX_CHAT_FILE / 1024 / 1024} MB.`)
      data = readFileSync(file)
    } catch (error) {
      return this.#error(`✗ Cannot read ${path}: ${codeOf(error) ?? messageOf(error)}.`)
    }
    // A Telegram app sends only pictures as photos; anything else goes as a file.
    if (media === 'photo' && !isImage(data))
      return this.#error(`✗ ${path} is not a PNG, JPEG, GIF or WebP image: send it with :file.`)
    const label = `[${media === 'photo' ? 'photo' : 'file'} ${basename(path)}]${caption ? ` ${caption}` : ''}`
    if (!this.#interactive) this.#write([`you › ${label}`])
    const before = this.#summary.replies
    let update: UpdateLike | undefined
    try {
      update = await send(this.#o.token, {
        kind: media,
        data,
        filename: basename(path),
        ...(caption ? {caption} : {}),
        ...this.#user,
      })
    } catch (error) {
      // e.g. bytes that are no image, sent as a photo
      return this.#error(`✗ ${messageOf(error)}`)
    }
    this.#summary.sent++
    this.#rememberFile(update, media, data, basename(path))
    this.#emit({
      type: 'media',
      media,
      file: path,
      bytes: data.length,
      ...(caption ? {caption} : {}),
      updateId: update?.update_id,
    })
    return this.#waitHandled(update?.update_id, label, before)
  }

  /** The file_ids the update gave the file just sent (every size of a photo), for `:save`'s fixtures. */
  #rememberFile(update: UpdateLike | undefined, media: 'photo' | 'document', data: Buffer, name: string): void {
    const message = update?.message
    // a photo is its sizes (PhotoSize[]), a document one Document
    const field = v.is(SentMedia, message) ? message[media] : undefined
    const files: unknown[] = Array.isArray(field) ? field : field ? [field] : []
    for (const f of files) if (v.is(FileId, f)) this.#sentFiles.set(f.file_id, {data, name})
    // Bounded: a chat that sends thousands of files keeps the newest 100 for a save.
    while (this.#sentFiles.size > 100) this.#sentFiles.delete(this.#sentFiles.keys().next().value!)
  }

  /** `:save NAME`: the conversation so far as test/NAME.chat.yml (never over an existing file). */
  #save(name: string): void {
    if (!this.#recorder) return this.#error('✗ This chat cannot record a chat script.')
    const cwd = this.#o.projectDir ?? this.#o.cwd ?? process.cwd()
    try {
      const saved = saveChatScript(this.#recorder.turns(), {
        dir: join(cwd, 'test'),
        name,
        ...(this.#o.botCommand ? {bot: this.#o.botCommand} : {}),
        header: ['Recorded in the offline chat (bot dev --offline, :save). Run it with: npx bot test'],
        fileBytes: (file) => this.#sentFiles.get(file.fileId),
      })
      const shown = relative(cwd, saved.path) || saved.path
      const left = saved.skipped.length > 0 ? ` (${saved.skipped.length} left out: ${saved.skipped.join('; ')})` : ''
      const files = saved.fixtures.length > 0 ? `; files: ${saved.fixtures.join(', ')}` : ''
      const text = `✓ Saved ${shown}: ${saved.steps} step${saved.steps === 1 ? '' : 's'}${files}${left}. Run it with: npx bot test ${shown}`
      this.#emit({type: 'saved', path: shown, steps: saved.steps, text})
      this.#write([styleIf(this.#o.color, 'green', text)])
    } catch (error) {
      if (!(error instanceof ScriptSaveError)) throw error
      const message = error.message.startsWith('nothing to save')
        ? 'nothing to save yet: send the bot something first, then :save NAME'
        : error.message.replaceAll(`${join(cwd, '')}${sep}`, '')
      this.#summary.failedSaves = (this.#summary.failedSaves ?? 0) + 1
      this.#summary.saveError ??= message
      this.#error(`✗ ${message}`)
    }
  }

  async #press(arg: string): Promise<void> {
    const last = this.#lastKeyboard
    if (!last) return this.#note('(no keyboard to press: the bot has not sent one)')
    const buttons = flatButtons(last.keyboard)
    const {button, n} = pickButton(buttons, arg)
    if (!button) {
      const list = buttons.map((b, i) => `${i + 1} ${b.text}`).join(', ')
      return this.#note(`(no button ${n !== undefined ? `number ${n}` : `"${arg}"`}; the last keyboard has: ${list})`)
    }
    if (!this.#interactive) this.#write([`you › [${button.text}]`])
    const before = this.#summary.replies
    if (button.kind === 'reply') {
      // A reply-keyboard button sends its label as a message.
      const id = await this.#sendText(button.text)
      return this.#waitHandled(id, button.text, before)
    }
    if (button.kind === 'url') return this.#note(`(a link button: ${button.url ?? ''}; not opened offline)`)
    if (button.kind !== 'callback')
      return this.#note(
        `(the "${button.text}" button is not a callback button; only callback and link buttons work offline)`,
      )
    const update = await this.#o.emulator.sendCallbackQuery(this.#o.token, {
      data: button.data ?? '',
      ...(last.messageId !== undefined ? {messageId: last.messageId} : {}),
      ...this.#user,
    })
    this.#summary.sent++
    this.#emit({type: 'press', button, updateId: update?.update_id})
    return this.#waitHandled(update?.update_id, `[${button.text}]`, before)
  }

  /** Handle one input line; returns false when the chat should end. */
  async #handleLine(raw: string): Promise<boolean> {
    const parsed = parseChatLine(raw)
    switch (parsed.kind) {
      case 'empty':
        return true
      case 'unknown':
        this.#summary.unknown++
        this.#error(unknownCommandText(parsed.name))
        return true
      case 'press':
        if (!parsed.arg) this.#note('(usage: :press N or :press LABEL)')
        else await this.#press(parsed.arg.trim())
        return true
      case 'media':
        if (!parsed.path) this.#note(`(usage: :${parsed.media === 'photo' ? 'photo' : 'file'} PATH [caption])`)
        else await this.#sendMedia(parsed.media, parsed.path, parsed.caption)
        return true
      case 'save':
        this.#save(parsed.name)
        return true
      case 'help':
        this.#note([...CHAT_HELP, ...(this.#o.session ? SESSION_HELP : [])].join('\n'))
        return true
      case 'pay':
        await this.#pay()
        return true
      case 'quit':
        return false
      case 'restart':
      case 'open':
      case 'web': {
        const session = this.#o.session
        if (!session || (parsed.kind === 'web' && !session.openChat)) {
          this.#summary.unknown++
          this.#error(unknownCommandText(raw.trim().slice(1).split(/\s/)[0]))
        } else if (parsed.kind === 'restart') session.restart()
        else if (parsed.kind === 'web') session.openChat?.()
        else session.open()
        return true
      }
    }
    const line = parsed.text
    if (!this.#interactive) this.#write([`you › ${line}`])
    const before = this.#summary.replies
    const id = await this.#sendText(line)
    await this.#waitHandled(id, line, before)
    return true
  }

  // ── the input loop and the end ─────────────────────────────────────────

  async #run(): Promise<void> {
    let reason: ChatSummary['reason'] = 'input-ended'
    try {
      if (this.#interactive) {
        if (this.#o.intro !== false)
          this.#note(
            `Chatting with the bot as ${this.#user.firstName} (chat ${this.#user.chatId}). :help for commands, Ctrl-D to end.`,
          )
        this.#rl.prompt()
      }
      for await (const line of this.#rl) {
        if (this.#closed) break
        if (!(await this.#handleLine(line))) {
          reason = 'quit'
          break
        }
        // Keep the cursor: the user may have typed on while the bot answered.
        if (this.#interactive && !this.#closed) this.#rl.prompt(true)
      }
    } catch {
      // The input failed (e.g. closed under us): end the chat as if it had ended.
    }
    this.#finish(this.#closed && reason === 'input-ended' ? 'closed' : reason)
  }

  #finish(reason: ChatSummary['reason']): void {
    if (this.#finished) return
    this.#finished = true
    this.#emit({type: 'end', reason})
    // Take the prompt off the screen: what prints next is not chat.
    if (this.#interactive && this.#o.output && !this.#closed) this.#o.output.write(ERASE_LINE)
    this.#closed = true
    const emulator = this.#o.emulator
    if (emulator.off) {
      emulator.off('call', this.#onCall)
      emulator.off('delivery', this.#onDelivery)
    } else {
      emulator.removeListener?.('call', this.#onCall)
      emulator.removeListener?.('delivery', this.#onDelivery)
    }
    this.#recorder?.stop()
    this.#wake()
    this.#rl.close()
    this.#resolveDone({...this.#summary, reason})
  }
}

export type OfflineChatOptions = Omit<
  ChatOptions,
  'emulator' | 'token' | 'chatId' | 'userId' | 'firstName' | 'username'
>

/** The terminal chat, speaking as the offline backend's user to its bot. */
export function startOfflineChat(backend: OfflineBackend, options: OfflineChatOptions): Chat {
  return startChat({
    ...options,
    emulator: backend.emulator,
    token: backend.token,
    chatId: backend.user.chatId,
    userId: backend.user.userId,
    firstName: backend.user.firstName,
    username: backend.user.username,
  })
}

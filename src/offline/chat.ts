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
 * `:press LABEL` presses a button of the last keyboard the bot sent (`:p` for short), `:help`, `:quit`
 * (`:q`). Any other `:word` is an error line (nothing is sent); a line that starts with `::` is sent
 * with one colon less. Everything else is sent as text.
 *
 * It never prints by itself: lines go to the injected `output` stream (if any) and every step is also an event.
 */
import {createInterface, type Interface} from 'node:readline'

import {CHAT_HELP, parseChatLine, pickButton, unknownCommandText} from './chat-commands.js'
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
  pendingUpdates(token: string): UpdateLike[]
  on(event: 'call', listener: (call: CallLike, token: string) => void): unknown
  on(event: 'delivery', listener: (delivery: {token: string}) => void): unknown
  off?(event: string, listener: (...args: never[]) => void): unknown
  removeListener?(event: string, listener: (...args: never[]) => void): unknown
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
  | {type: 'bot'; rendered: RenderedCall; lines: string[]; method: string; chatId?: number | string}
  | {type: 'no-reply'; text: string; waitedMs: number}
  | {type: 'note'; text: string}
  /** A line the chat could not take (an unknown `:command`): nothing was sent. */
  | {type: 'error'; text: string}
  | {type: 'end'; reason: 'input-ended' | 'quit' | 'closed'}

export interface ChatOptions extends ChatUser {
  emulator: ChatEmulator
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
  /** How long to wait for the bot to handle one line before sending the next (default 5000 ms). */
  replyTimeoutMs?: number
  /** The same for the first line, which also waits for the bot to start (default 30000 ms). */
  startupTimeoutMs?: number
  /** After the bot handled a line, how long without a new reply counts as "the replies are in" (default 150 ms). */
  settleMs?: number
  /** Interactive: a first note saying who you are and how to chat (default true). */
  intro?: boolean
  /** Every step of the chat, for logs or --json. */
  onEvent?: (event: ChatEvent) => void
  /** Ctrl-C at the interactive prompt (readline takes it from the terminal). Default: raise SIGINT on this process. */
  onInterrupt?: () => void
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

interface LastKeyboard {
  keyboard: KeyboardView
  messageId?: number
}

/** Start the chat; see the module comment. */
export function startChat(options: ChatOptions): Chat {
  const {emulator, token} = options
  const userId = options.userId ?? DEFAULT_USER_ID
  const chatId = options.chatId ?? userId
  const firstName = options.firstName ?? 'You'
  const username = options.username
  const interactive = options.interactive ?? Boolean((options.input as {isTTY?: boolean}).isTTY)
  const replyTimeoutMs = options.replyTimeoutMs ?? 5000
  const startupTimeoutMs = options.startupTimeoutMs ?? 30_000
  const settleMs = options.settleMs ?? 150
  const output = options.output

  let closed = false
  let firstSent = false
  let lastActivity = Date.now()
  let lastKeyboard: LastKeyboard | undefined
  const summary: Omit<ChatSummary, 'reason'> = {sent: 0, replies: 0, unanswered: 0, silent: 0, unknown: 0}
  /** Wakes whoever waits for the bot (a call, a delivery). */
  const wakers = new Set<() => void>()
  const wake = () => {
    for (const w of [...wakers]) w()
  }

  const emit = (event: ChatEvent) => options.onEvent?.(event)

  let rl: Interface | undefined
  const write = (lines: string[]) => {
    if (!output || lines.length === 0) return
    if (interactive && rl && !closed) {
      // Clear the prompt line, print, then redraw the prompt with what the user has typed so far.
      output.write('\r\u001B[K' + lines.join('\n') + '\n')
      rl.prompt(true)
    } else {
      output.write(lines.join('\n') + '\n')
    }
  }
  const note = (text: string) => {
    emit({type: 'note', text})
    write(text.split('\n').map((l) => (options.color ? `\u001B[2m${l}\u001B[22m` : l)))
  }
  const error = (text: string) => {
    emit({type: 'error', text})
    write([options.color ? `\u001B[31m${text}\u001B[39m` : text])
  }

  const onCall = (call: CallLike, callToken: string) => {
    if (callToken !== token) return
    lastActivity = Date.now()
    const rendered = renderCall(call, {showChatActions: options.showChatActions})
    if (rendered) {
      const own = rendered.chatId === undefined || Number(rendered.chatId) === chatId
      rememberKeyboard(rendered, call)
      const lines = formatRendered(rendered, {
        color: options.color,
        prefix: own ? 'bot › ' : `bot → ${String(rendered.chatId)} › `,
      })
      summary.replies++
      emit({type: 'bot', rendered, lines, method: call.method, chatId: rendered.chatId})
      write(lines)
    }
    wake()
  }
  const onDelivery = (d: {token: string}) => {
    if (d.token === token) wake()
  }

  const rememberKeyboard = (rendered: RenderedCall, call: CallLike) => {
    if (rendered.chatId !== undefined && Number(rendered.chatId) !== chatId) return
    const method = call.method.toLowerCase()
    if (rendered.keyboard) {
      lastKeyboard = {keyboard: rendered.keyboard, messageId: rendered.messageId}
    } else if (
      lastKeyboard?.keyboard.type === 'inline' &&
      method.startsWith('edit') &&
      rendered.messageId === lastKeyboard.messageId
    ) {
      // Editing a message without reply_markup removes its inline keyboard.
      lastKeyboard = undefined
    } else if (lastKeyboard?.keyboard.type === 'reply' && rendered.markupNote === '(keyboard removed)') {
      lastKeyboard = undefined
    }
  }

  emulator.on('call', onCall)
  emulator.on('delivery', onDelivery)

  const isPending = (updateId: number) => emulator.pendingUpdates(token).some((u) => u.update_id === updateId)

  /** Wait until the bot handled the update (acknowledged it) and no reply came for settleMs; bounded. */
  const waitHandled = async (updateId: number | undefined, label: string, repliesBefore: number) => {
    const limit = firstSent ? replyTimeoutMs : startupTimeoutMs
    firstSent = true
    const started = Date.now()
    const deadline = started + limit
    const handled = await until(() => updateId === undefined || !isPending(updateId), deadline)
    if (!handled) {
      if (closed) return
      summary.unanswered++
      const waitedMs = Date.now() - started
      emit({type: 'no-reply', text: label, waitedMs})
      note(`(the bot has not handled "${label}" after ${(waitedMs / 1000).toFixed(1)}s; sending on, it stays queued)`)
      return
    }
    // Replies a bot sends without awaiting them (and a webhook reply) arrive just after it
    // acknowledged the update: wait for settleMs of quiet counted from then, not from the last reply.
    const handledAt = Date.now()
    const settleDeadline = Math.min(Date.now() + Math.max(settleMs * 8, 1000), Date.now() + limit)
    await until(() => Date.now() - Math.max(lastActivity, handledAt) >= settleMs, settleDeadline)
    if (summary.replies === repliesBefore && !closed) summary.silent++
  }

  /** Resolve true once cond() holds (checked on every emulator event and every 25 ms), false at the deadline or on close. */
  const until = (cond: () => boolean, deadline: number) =>
    new Promise<boolean>((resolve) => {
      const check = () => {
        if (closed) return finish(false)
        if (cond()) return finish(true)
        if (Date.now() >= deadline) return finish(false)
      }
      const timer = setInterval(check, 25)
      const finish = (value: boolean) => {
        clearInterval(timer)
        wakers.delete(check)
        resolve(value)
      }
      wakers.add(check)
      check()
    })

  const sendText = async (text: string) => {
    const update = await emulator.sendUserMessage(token, {
      text,
      chatId,
      userId,
      firstName,
      ...(username ? {username} : {}),
    })
    summary.sent++
    emit({type: 'user', text, updateId: update?.update_id})
    return update?.update_id
  }

  const press = async (arg: string) => {
    if (!lastKeyboard) return note('(no keyboard to press: the bot has not sent one)')
    const buttons = flatButtons(lastKeyboard.keyboard)
    const {button, n} = pickButton(buttons, arg)
    if (!button) {
      const list = buttons.map((b, i) => `${i + 1} ${b.text}`).join(', ')
      return note(`(no button ${n !== undefined ? `number ${n}` : `"${arg}"`}; the last keyboard has: ${list})`)
    }
    if (!interactive) write([`you › [${button.text}]`])
    const before = summary.replies
    if (button.kind === 'reply') {
      // A reply-keyboard button sends its label as a message.
      const id = await sendText(button.text)
      return waitHandled(id, button.text, before)
    }
    if (button.kind === 'url') return note(`(a link button: ${button.url ?? ''}; not opened offline)`)
    if (button.kind !== 'callback')
      return note(`(the "${button.text}" button is not a callback button; only callback and link buttons work offline)`)
    const update = await emulator.sendCallbackQuery(token, {
      data: button.data ?? '',
      ...(lastKeyboard.messageId !== undefined ? {messageId: lastKeyboard.messageId} : {}),
      chatId,
      userId,
      firstName,
      ...(username ? {username} : {}),
    })
    summary.sent++
    emit({type: 'press', button, updateId: update?.update_id})
    return waitHandled(update?.update_id, `[${button.text}]`, before)
  }

  /** Handle one input line; returns false when the chat should end. */
  const handleLine = async (raw: string): Promise<boolean> => {
    const parsed = parseChatLine(raw)
    switch (parsed.kind) {
      case 'empty':
        return true
      case 'unknown':
        summary.unknown++
        error(unknownCommandText(parsed.name))
        return true
      case 'press':
        if (!parsed.arg) note('(usage: :press N or :press LABEL)')
        else await press(parsed.arg.trim())
        return true
      case 'help':
        note(CHAT_HELP.join('\n'))
        return true
      case 'quit':
        return false
    }
    const line = parsed.text
    if (!interactive) write([`you › ${line}`])
    const before = summary.replies
    const id = await sendText(line)
    await waitHandled(id, line, before)
    return true
  }

  let resolveDone!: (s: ChatSummary) => void
  const done = new Promise<ChatSummary>((r) => (resolveDone = r))
  let finished = false
  const finish = (reason: ChatSummary['reason']) => {
    if (finished) return
    finished = true
    emit({type: 'end', reason})
    cleanup()
    resolveDone({...summary, reason})
  }
  const cleanup = () => {
    // Take the prompt off the screen: what prints next is not chat.
    if (interactive && output && rl && !closed) output.write('\r\u001B[K')
    closed = true
    const off = (emulator.off ?? emulator.removeListener)?.bind(emulator)
    off?.('call', onCall as (...args: never[]) => void)
    off?.('delivery', onDelivery as (...args: never[]) => void)
    wake()
    rl?.close()
  }

  rl = createInterface({
    // Piped input is cut at MAX_LINE_BYTES per line (a terminal's line is typed by a person).
    input: interactive
      ? options.input
      : limitLines(options.input, MAX_LINE_BYTES, () =>
          error(`✗ A line longer than ${MAX_LINE_BYTES / 1024} KiB was cut there; the rest of it is not sent.`),
        ),
    ...(interactive && output ? {output, terminal: true, prompt: 'you › '} : {terminal: false}),
  })
  if (interactive) {
    rl.on('SIGINT', () => (options.onInterrupt ?? (() => process.kill(process.pid, 'SIGINT')))())
  }

  void (async () => {
    let reason: ChatSummary['reason'] = 'input-ended'
    try {
      if (interactive) {
        if (options.intro !== false)
          note(`Chatting with the bot as ${firstName} (chat ${chatId}). :help for commands, Ctrl-D to end.`)
        rl.prompt()
      }
      for await (const line of rl) {
        if (closed) break
        const more = await handleLine(line)
        if (!more) {
          reason = 'quit'
          break
        }
        if (interactive && !closed) rl.prompt(true) // keep the cursor: the user may have typed on while the bot answered
      }
    } catch {
      // The input failed (e.g. closed under us): end the chat as if it had ended.
    }
    finish(closed && reason === 'input-ended' ? 'closed' : reason)
  })()

  return {
    done,
    print: (line: string) => write(line.split('\n')),
    close: () => finish('closed'),
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

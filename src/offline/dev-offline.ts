/**
 * `bot dev --offline`: the same dev session as online (relay, bot process, restart on change,
 * teardown), but against the in-process emulator with the fixed fake bot, webhooks delivered over
 * loopback (no tunnel), and the terminal chat as the user.
 *
 * Order: emulator → dev session (its events stream out) → once the session is ready, the chat
 * starts reading input. When the input ends (and the last replies are in) the session is stopped;
 * when the session ends first (the bot exited, a signal), the chat is closed. Then the emulator stops.
 */
import {createHash} from 'node:crypto'
import {mkdtempSync, realpathSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import * as v from 'valibot'

import {DevSession, type DevEvent, type DevSessionOptions, type DevSummary} from '../dev/index.js'
import {stateDir as defaultStateDir} from '../session-store/state.js'
import {BotApi} from '../telegram/index.js'
import {loopbackProvider} from '../tunnel/index.js'
import {createChatPage} from '../chat/server.js'
import {startOfflineChat, type Chat, type ChatEvent, type ChatSummary} from './chat.js'
import {offlineSessionToken, startOfflineBackend, type OfflineBackend} from './offline-env.js'
import {OFFLINE_WEBHOOK_DELETED, offlineReadyText, offlineSummaryText, type OfflineInfo} from './session-text.js'

export type OfflineDevEvent =
  | DevEvent
  | {
      type: 'offline'
      apiRoot: string
      botUsername: string
      botId: number
      userId: number
      chatId: number
      mode: 'webhook' | 'polling'
      text: string
    }
  | {type: 'chat'; event: ChatEvent; text: string}
  /** Piped input only, after the summary, when a line got no answer or an update failed (the exit code is then 1). */
  | {
      type: 'offline-result'
      ok: boolean
      lines: number
      unanswered: number
      silent: number
      unknown: number
      /** `:save NAME` lines that wrote nothing. */
      failedSaves: number
      failures: number
      text: string
    }

/** Prints a line without breaking the chat prompt (through the chat once it runs, else to logOutput). */
export type OfflinePrint = (line: string) => void

export interface OfflineDevOptions
  extends Omit<
    DevSessionOptions,
    | 'api'
    | 'token'
    | 'apiRoot'
    | 'passApiRoot'
    | 'tunnel'
    | 'onEvent'
    | 'force'
    | 'restoreSecret'
    | 'stateDir'
    | 'offline'
  > {
  /** The terminal user: private chat id (default: the user id; negative = a group), user id (default 1111), name. */
  chatId?: number
  userId?: number
  firstName?: string
  username?: string
  /** Chat input (process.stdin). */
  input: NodeJS.ReadableStream
  /** Chat transcript (process.stdout); without it only events. */
  output?: NodeJS.WritableStream
  /** Where `print` writes before the chat runs, or always when the chat is not interactive (default: output). */
  logOutput?: NodeJS.WritableStream
  /** TTY chat with a prompt (default: input.isTTY). */
  interactive?: boolean
  color?: boolean
  showChatActions?: boolean
  /** Per-line wait for the bot in the chat (default 5000 ms); before the first, the bot may take up to startupTimeoutMs (30000) to start taking updates. */
  replyTimeoutMs?: number
  startupTimeoutMs?: number
  /** Emulator port (default: a free one). */
  emulatorPort?: number
  /** The token of the emulator's bot (default a fresh offlineSessionToken()): with --forward-to, the one the user's server has. */
  botToken?: string
  /** Session state directory; default a fresh temporary one (an offline session shares nothing with others). */
  stateDir?: string
  /** Every event (session, offline banner, chat), with a prompt-safe printer for the ones to show. */
  onEvent: (event: OfflineDevEvent, print: OfflinePrint) => void
  /** `:o` in the chat: open the inspector (the CLI's browser opener); `say` prints a line. Default: its address is said. */
  openInspector?: (url: string | undefined, say: (line: string) => void) => void
  /** `:w` in the chat: open the chat page the same way (a one-time address). Default: its address is said. */
  openChatPage?: (url: string | undefined, say: (line: string) => void) => void
}

export interface OfflineDevSummary extends DevSummary {
  chat?: ChatSummary
  /** Why it ended from the offline side: the chat input ended/quit, or the session ended by itself. */
  endedBy: 'chat' | 'session'
}

export async function runOfflineDev(options: OfflineDevOptions): Promise<OfflineDevSummary> {
  const {chatId, userId, firstName, username, emulatorPort, botToken} = options
  const backend = await startOfflineBackend({
    port: emulatorPort ?? 0,
    chatId,
    userId,
    firstName,
    username,
    // A random secret part for each session (the bot id stays): the fixed OFFLINE_TOKEN is public.
    token: botToken ?? offlineSessionToken(),
  })
  return new OfflineRun(options, backend).run()
}

/**
 * One offline run: the dev session against the backend's emulator, the chat started once the
 * session is ready, the session's events in offline words, and the verdict on piped input.
 */
class OfflineRun {
  readonly #o: OfflineDevOptions
  readonly #backend: OfflineBackend
  readonly #interactive: boolean
  readonly #stateDir: string
  /** Aborted when the chat ended, or from outside: the session stops. */
  readonly #controller = new AbortController()
  #dev: DevSession | undefined
  /** The inspector's address, from the Ready event (for `:o`). */
  #inspectorUrl: string | undefined
  /** The chat page's address, from the Ready event (for `:w`). */
  #chatUrl: string | undefined
  readonly #info: OfflineInfo
  #chat: Chat | undefined
  #chatEnded: ChatSummary | undefined
  #endedBy: OfflineDevSummary['endedBy'] = 'session'
  #sessionOver = false
  /** Updates the user sent: chat lines, button presses, triggers and replays. */
  #sent = 0
  #verdict: ReturnType<typeof offlineResult> | undefined

  constructor(options: OfflineDevOptions, backend: OfflineBackend) {
    this.#o = options
    this.#backend = backend
    this.#interactive = options.interactive ?? Boolean((options.input as {isTTY?: boolean}).isTTY)
    this.#stateDir = options.stateDir ?? mkdtempSync(join(tmpdir(), 'bot-offline-state-'))
    this.#info = {
      apiRoot: backend.apiRoot,
      botUsername: backend.bot.username,
      mode: options.mode,
      firstName: backend.user.firstName,
      chatId: backend.user.chatId,
      interactive: this.#interactive,
    }
  }

  async run(): Promise<OfflineDevSummary> {
    const o = this.#o
    const backend = this.#backend
    const external = o.signal
    const onExternalAbort = () => this.#controller.abort(external?.reason)
    if (external?.aborted) this.#controller.abort(external.reason)
    else external?.addEventListener('abort', onExternalAbort, {once: true})
    this.#emit({
      type: 'offline',
      apiRoot: backend.apiRoot,
      botUsername: backend.bot.username,
      botId: backend.bot.id,
      userId: backend.user.userId,
      chatId: backend.user.chatId,
      mode: o.mode,
      text: `Offline: Bot API emulator on ${backend.apiRoot}, bot @${backend.bot.username} (fake token), ${
        o.mode === 'webhook' ? 'webhook over loopback (no tunnel)' : 'long polling'
      }; you are ${backend.user.firstName} (user ${backend.user.userId}, chat ${backend.user.chatId}).`,
    })
    const dev = this.#session()
    this.#dev = dev
    // Once the session stops (end of input, a signal, the bot's exit), the chat stops reading and
    // its prompt goes away, so teardown lines print plainly.
    const onStopping = () => {
      this.#sessionOver = true
      this.#chat?.close()
    }
    dev.signal.addEventListener('abort', onStopping, {once: true})
    let summary: DevSummary
    try {
      summary = await dev.run()
    } finally {
      onStopping()
      dev.signal.removeEventListener('abort', onStopping)
      external?.removeEventListener('abort', onExternalAbort)
      await backend.stop()
      if (!o.stateDir) rmSync(this.#stateDir, {recursive: true, force: true})
    }
    const chatSummary = this.#chat ? await this.#chat.done : undefined
    let exitCode = summary.exitCode
    // Piped input (a CI script): a line the bot left without an answer, or an update it failed, is a failure.
    const result = this.#pipedVerdict(chatSummary, summary.failures)
    if (result && !result.ok && exitCode === 0) exitCode = 1
    return {...summary, exitCode, ...(chatSummary ? {chat: chatSummary} : {}), endedBy: this.#endedBy}
  }

  /** The dev session against the emulator (webhooks over loopback), speaking as the chat's user for triggers. */
  #session(): DevSession {
    const {
      chatId: _chatId,
      userId: _userId,
      firstName: _firstName,
      username: _username,
      input: _input,
      output: _output,
      logOutput: _logOutput,
      interactive: _interactive,
      color: _color,
      showChatActions: _showChatActions,
      replyTimeoutMs: _replyTimeoutMs,
      startupTimeoutMs: _startupTimeoutMs,
      emulatorPort: _emulatorPort,
      botToken: _botToken,
      stateDir: _stateDir,
      onEvent: _onEvent,
      openInspector: _openInspector,
      openChatPage: _openChatPage,
      signal: _signal,
      ...session
    } = this.#o
    const backend = this.#backend
    return new DevSession({
      ...session,
      // The history is kept per project, like online (where it is per bot): `bot replay` finds what an
      // earlier offline run of this project recorded.
      keepDir: session.keepDir ?? offlineProjectDir(session.cwd),
      // A replay (or trigger) through the relay passes the emulator by: it learns the chats first.
      beforeInject: (update) => learnChats(backend, update),
      api: new BotApi({token: backend.token, apiRoot: backend.apiRoot}),
      token: backend.token,
      apiRoot: backend.apiRoot,
      passApiRoot: true,
      // The chat page in the inspector at /chat, over this session's emulator (src/chat/).
      chatPage: (key) =>
        createChatPage({
          emulator: backend.emulator,
          token: backend.token,
          key,
          base: '/chat/',
          user: {
            id: backend.user.userId,
            first_name: backend.user.firstName,
            ...(backend.user.username ? {username: backend.user.username} : {}),
          },
          chatId: backend.user.chatId,
        }),
      ...(session.mode === 'webhook' ? {tunnel: loopbackProvider()} : {}),
      stateDir: this.#stateDir,
      // `bot trigger` / `bot replay` find the session in the usual state folder, and speak as the chat's user.
      controlDir: session.controlDir ?? defaultStateDir(),
      offline: {
        emulator: backend.emulator,
        token: backend.token,
        user: backend.user,
        onSent: () => this.#sent++,
      },
      signal: this.#controller.signal,
      onEvent: (event) => {
        this.#emit(this.#offlineWords(event))
        if (event.type === 'ready') {
          this.#inspectorUrl = event.inspectorUrl
          this.#chatUrl = event.chatUrl
          this.#startChat()
        }
      },
    })
  }

  #emit(event: OfflineDevEvent): void {
    this.#o.onEvent(event, (line) => this.#print(line))
  }

  /** A line that does not break the chat's prompt (through the chat once it runs, else to logOutput). */
  #print(line: string): void {
    if (this.#chat && this.#interactive) this.#chat.print(line)
    else (this.#o.logOutput ?? this.#o.output)?.write(line + '\n')
  }

  #startChat(): void {
    if (this.#chat || this.#controller.signal.aborted) return
    const o = this.#o
    const chat = startOfflineChat(this.#backend, {
      input: o.input,
      output: o.output,
      interactive: this.#interactive,
      color: o.color,
      showChatActions: o.showChatActions,
      replyTimeoutMs: o.replyTimeoutMs,
      startupTimeoutMs: o.startupTimeoutMs,
      // `:save` writes test/NAME.chat.yml in the project; `bot:` when the command is not bot test's default.
      projectDir: o.cwd,
      ...(o.scriptCommand ? {botCommand: o.scriptCommand} : {}),
      // The start-up line already says who you are and how to chat.
      intro: false,
      onEvent: (event) => {
        if (event.type === 'user' || event.type === 'press' || event.type === 'media') this.#sent++
        this.#emit({type: 'chat', event, text: chatEventText(event)})
      },
      // Ctrl-C at the prompt: the same as a SIGINT from outside when the session handles signals.
      // The session's keys as chat commands (stdin is the chat): `:r` restarts the bot, `:o` opens the inspector.
      session: {
        restart: () => this.#dev?.restartBot(':r'),
        open: () => {
          const say = (text: string) => this.#emit({type: 'info', text})
          if (o.openInspector) o.openInspector(this.#inspectorUrl && this.#dev?.inspectorOpenUrl(), say)
          else
            say(
              this.#inspectorUrl
                ? `The inspector: ${this.#inspectorUrl}`
                : 'No inspector in this session (--no-inspect).',
            )
        },
        openChat: () => {
          const say = (text: string) => this.#emit({type: 'info', text})
          if (o.openChatPage) o.openChatPage(this.#chatUrl && this.#dev?.chatOpenUrl(), say)
          else say(this.#chatUrl ? `The chat page: ${this.#chatUrl}` : 'No chat page in this session (--no-inspect).')
        },
      },
      onInterrupt: () =>
        o.handleSignals ? process.kill(process.pid, 'SIGINT') : this.#controller.abort(new Error('interrupted')),
    })
    this.#chat = chat
    void chat.done.then((summary) => {
      this.#chatEnded = summary
      if (this.#sessionOver || this.#controller.signal.aborted) return
      this.#endedBy = 'chat'
      this.#controller.abort(new Error('the chat ended'))
    })
  }

  /** The session's events in offline words (session-text.ts); every other field as it was. */
  #offlineWords(event: DevEvent): DevEvent {
    if (event.type === 'ready')
      return {
        ...event,
        // (a webhook session switched to polling when the bot polls by itself: the event's mode is the one in use)
        text: offlineReadyText(
          {...this.#info, mode: event.mode},
          {
            command: event.command,
            port: event.port,
            watching: Boolean(this.#o.watch),
            inspectorUrl: event.inspectorUrl,
            chatUrl: event.chatUrl,
            forwardTo: event.forwardTo,
          },
        ),
      }
    if (event.type === 'teardown' && event.step === 'webhook' && event.ok)
      return {...event, text: OFFLINE_WEBHOOK_DELETED}
    if (event.type === 'summary') {
      // Piped input: the verdict on the chat comes first, and the summary's exit code agrees with it.
      const result = this.#pipedVerdict(this.#chatEnded, event.failures)
      const exitCode = result && !result.ok && event.exitCode === 0 ? 1 : event.exitCode
      return {...event, exitCode, text: offlineSummaryText({...event, exitCode}, this.#sent)}
    }
    return event
  }

  /** Piped input that ended the session: its verdict, decided (and shown when it fails) once. */
  #pipedVerdict(chat: ChatSummary | undefined, failures: number): ReturnType<typeof offlineResult> | undefined {
    if (this.#verdict || this.#interactive || !chat || this.#endedBy !== 'chat') return this.#verdict
    this.#verdict = offlineResult(chat, failures)
    if (!this.#verdict.ok) this.#emit(this.#verdict)
    return this.#verdict
  }
}

/** The folder of this project's offline history and webhook secret (in the state folder, named by a hash of its path). */
export function offlineProjectDir(cwd: string): string {
  let path = resolve(cwd)
  try {
    path = realpathSync(path)
  } catch {
    // as given
  }
  return join(defaultStateDir(), 'offline', createHash('sha256').update(path).digest('hex').slice(0, 16))
}

const Walkable = v.looseObject({})
/** A Chat with what the emulator needs to know it (core.telegram.org/bots/api#chat). */
const KnownChat = v.looseObject({id: v.number(), type: v.string()})

/** Every chat an update names (message.chat, callback_query.message.chat, …) becomes known to the emulator's bot. */
function learnChats(backend: OfflineBackend, update: Record<string, unknown>): void {
  const visit = (value: unknown, depth: number): void => {
    // an array passes valibot's object check: its items are walked too
    if (!v.is(Walkable, value) || depth > 4) return
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'chat' && v.is(KnownChat, inner)) backend.emulator.addChat(backend.token, inner)
      else visit(inner, depth + 1)
    }
  }
  try {
    visit(update, 0)
  } catch {
    // the bot still gets the update; at worst its answer meets "chat not found"
  }
}

/** The verdict on a piped chat: every line answered, no update failed. */
export function offlineResult(chat: ChatSummary, failures: number): Extract<OfflineDevEvent, {type: 'offline-result'}> {
  const {sent: lines, unanswered, silent} = chat
  const unknown = chat.unknown ?? 0
  const failedSaves = chat.failedSaves ?? 0
  const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`
  const problems = [
    ...(unanswered > 0 ? [`${plural(unanswered, 'line')} not handled in time`] : []),
    ...(silent > 0 ? [`${plural(silent, 'line')} handled without a reply`] : []),
    ...(failures > 0 ? [`${plural(failures, 'update')} failed`] : []),
    ...(unknown > 0 ? [`${plural(unknown, 'unknown :command', 'unknown :commands')}`] : []),
    // a script that asked for a chat script and got none must not pass: the first cause is named
    ...(failedSaves > 0 ? [`${plural(failedSaves, ':save')} wrote nothing (${chat.saveError})`] : []),
  ]
  const ok = problems.length === 0
  const text = ok
    ? `✓ The bot answered all ${plural(lines, 'line')}.`
    : `✗ ${problems.join(', ')} (of ${plural(lines + unknown, 'line')} piped in): exiting with code 1.`
  return {type: 'offline-result', ok, lines, unanswered, silent, unknown, failedSaves, failures, text}
}

function chatEventText(event: ChatEvent): string {
  switch (event.type) {
    case 'user':
      return `you › ${event.text}`
    case 'press':
      return `you › [${event.button.text}]`
    case 'media':
      return `you › [${event.media === 'photo' ? 'photo' : 'file'} ${event.file}]${event.caption ? ` ${event.caption}` : ''}`
    case 'bot':
      return event.lines.join('\n')
    case 'no-reply':
    case 'note':
    case 'error':
    case 'saved':
      return event.text
    case 'end':
      return `chat ended (${event.reason})`
  }
}

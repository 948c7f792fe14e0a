/**
 * What `bot mcp` reads from and does in a running session (SessionQueries, the routes of server.ts beside
 * /trigger and /replay): its status, the user actions it can run, its update history, the bot's Bot API calls, the
 * bot's last output lines, a restart, a chat's transcript, offline a fault injected into the emulator and a chat
 * script played against it.
 *
 * A user action is run by action-runner.ts (offline the emulator user's action, online the synthetic update `bot
 * trigger` sends); the list of those a session offers is online-actions.ts's. Nothing here knows of oclif, the dev
 * session's parts or MCP: the control-port part wires it (src/dev/parts/control-port.ts).
 */
import {ChatScriptError} from '../emulator/scripts/parse.js'
import type {UpdateHistory} from '../inspector/history/history.js'
import type {UpdateEntry} from '../inspector/types.js'
import {messageOf} from '../lib/errors.js'
import type {TriggerEngine} from './actions.js'
import {ActionRunner} from './action-runner.js'
import type {OfflineTarget} from './offline-trigger.js'
import {sessionActions} from './online-actions.js'
import {
  ActionError,
  type ActionOutcome,
  type CallRow,
  type ChatScriptReport,
  type FaultRequest,
  type OutputLine,
  type RestartOutcome,
  type SessionAction,
  type SessionQueries,
  type SessionStatus,
  type Transcript,
  type TranscriptItem,
} from './protocol.js'
import type {SessionFacts} from './session-facts.js'

export interface SessionQueryOptions {
  engine: TriggerEngine
  facts: SessionFacts
  history: () => UpdateHistory | undefined
  /** The bot's calls the api proxy saw, newest last (bounded by the recording). */
  calls: () => readonly CallRow[]
  /** Offline: the emulator and its user. */
  offline?: OfflineTarget
  /** Everything of the status but the counts (which come from the history and the calls). */
  status: () => Omit<SessionStatus, 'counts'> & {failedCalls: number}
  output: (limit: number) => OutputLine[]
  restart: () => Promise<RestartOutcome>
}

export class SessionQueryService implements SessionQueries {
  readonly #o: SessionQueryOptions
  readonly #actions: ActionRunner

  constructor(o: SessionQueryOptions) {
    this.#o = o
    this.#actions = new ActionRunner({engine: o.engine, facts: o.facts, ...(o.offline ? {offline: o.offline} : {})})
  }

  status(): SessionStatus {
    const {failedCalls, ...status} = this.#o.status()
    const entries = this.#o.history()?.list() ?? []
    const failedUpdates = entries.filter((e) => e.answer && (e.answer.status < 200 || e.answer.status >= 300)).length
    return {
      ...status,
      counts: {updates: entries.length, failedUpdates, calls: this.#o.calls().length, failedCalls},
    }
  }

  actions(): SessionAction[] {
    return sessionActions(Boolean(this.#o.offline))
  }

  act(name: string, input: Record<string, unknown>): Promise<ActionOutcome> {
    return this.#actions.act(name, input)
  }

  updates(o: {limit: number; chatId?: number; type?: string}): UpdateEntry[] {
    const all = this.#o.history()?.list() ?? []
    return all
      .filter((e) => (o.chatId === undefined || e.chatId === o.chatId) && (o.type === undefined || e.type === o.type))
      .slice(0, o.limit)
  }

  update(updateId: number): UpdateEntry | undefined {
    return this.#o.history()?.find(updateId)
  }

  calls(o: {limit: number; method?: string; failedOnly?: boolean}): CallRow[] {
    const method = o.method?.toLowerCase()
    const out: CallRow[] = []
    const calls = this.#o.calls()
    for (let i = calls.length - 1; i >= 0 && out.length < o.limit; i--) {
      const call = calls[i]
      if (method !== undefined && call.method.toLowerCase() !== method) continue
      if (o.failedOnly && call.ok) continue
      out.push(call)
    }
    return out
  }

  output(o: {limit: number}): OutputLine[] {
    return this.#o.output(o.limit)
  }

  restart(): Promise<RestartOutcome> {
    return this.#o.restart()
  }

  transcript(o: {chatId?: number; limit: number}): Transcript {
    const entries = [...(this.#o.history()?.list() ?? [])]
    const chats: number[] = []
    const chatOf = (e: UpdateEntry) => e.chatId ?? e.calls.find((c) => typeof c.chatId === 'number')?.chatId
    for (const e of entries) {
      const id = chatOf(e)
      if (typeof id === 'number' && !chats.includes(id)) chats.push(id)
    }
    const chatId = o.chatId ?? chats[0] ?? this.#o.offline?.user.chatId
    const items: TranscriptItem[] = []
    for (const e of entries.reverse()) {
      const inChat = chatOf(e) === chatId
      if (inChat) items.push({time: e.time, from: 'user', updateId: e.updateId, update: e.update})
      for (const call of e.calls) {
        const callChat = call.chatId === undefined ? undefined : Number(call.chatId)
        if (callChat === chatId || (callChat === undefined && inChat))
          items.push({time: call.time, from: 'bot', updateId: e.updateId, call})
      }
    }
    return {...(chatId !== undefined ? {chatId} : {}), chats, items: items.slice(-o.limit)}
  }

  fault(request: FaultRequest): Record<string, unknown> {
    const offline = this.#o.offline
    if (!offline)
      throw new ActionError(
        409,
        'Faults are injected into the emulator: this session runs against Telegram.',
        'Run `bot mcp --offline` (or attach to a `bot dev --offline` session).',
      )
    try {
      offline.emulator.failNext(offline.token, request.method, {
        errorCode: request.error_code,
        description: request.description,
        ...(request.retry_after !== undefined ? {retryAfter: request.retry_after} : {}),
        ...(request.migrate_to_chat_id !== undefined ? {migrateToChatId: request.migrate_to_chat_id} : {}),
        ...(request.times !== undefined ? {times: request.times} : {}),
      })
    } catch (error) {
      throw new ActionError(400, messageOf(error), 'Fix the fault as the message says.')
    }
    const times = request.times ?? 1
    return {
      ok: true,
      text: `The next ${times === 1 ? 'call' : `${times} calls`} of ${request.method} will fail with ${request.error_code} ${request.description}.`,
    }
  }

  async script(request: {text: string; file?: string; baseDir?: string}): Promise<ChatScriptReport> {
    const offline = this.#o.offline
    if (!offline)
      throw new ActionError(
        409,
        'A chat script plays against the emulator: this session runs against Telegram.',
        'Run `bot mcp --offline` (or attach to a `bot dev --offline` session), or `bot test` for the project.',
      )
    try {
      const {file, ok, steps, ran, durationMs, startedAt, endedAt, failures} = await offline.emulator.runChatScript(
        offline.token,
        request.text,
        {...(request.file ? {file: request.file} : {}), ...(request.baseDir ? {baseDir: request.baseDir} : {})},
      )
      // The bot's lines printed while the script ran (what `bot test` shows under a failure).
      const output = this.#o.output(500).filter((l) => {
        const at = Date.parse(l.time)
        return at >= startedAt && at <= endedAt
      })
      return {...(file ? {file} : {}), ok, steps, ran, durationMs, startedAt, endedAt, output, failures}
    } catch (error) {
      const fix = typeof error === 'object' && error !== null && 'fix' in error ? error.fix : undefined
      throw new ActionError(
        400,
        error instanceof ChatScriptError
          ? `${error.file ?? request.file ?? '<script>'}:${error.line}:${error.column}: ${error.reason}`
          : messageOf(error),
        typeof fix === 'string' ? fix : 'Fix the script as the message says (docs/testing.md has the format).',
      )
    }
  }
}

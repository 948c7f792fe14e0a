/**
 * Play a chat script against a bot of the emulator. Each acting step runs one entry of the table of user actions
 * (emu.runAction) as the script's user, then waits until the bot has handled every update it made (the webhook
 * answered, or a getUpdates offset confirmed it) and none of the script's calls is in flight. A webhook answer
 * without a method says the bot's handler ended, so that is all; else (polling, a method in the answer, a bot seen
 * making calls after its answer) also until none came for `quietMs`. A `bot:` or `call:` step that finds nothing
 * yet waits the same window for it (against a polling bot, until the step's deadline: a confirm does not say it
 * answered), so a message sent after the handler's end is still checked. Never a fixed
 * sleep, and every wait has a deadline. The bot's answers to it form a segment: `bot:` steps match
 * its messages in order, `call:` steps its calls by their parameters, `silence:` says nothing is left; a message no
 * step expects fails the script at the next acting step (or its end).
 *
 * Each run has its own users and chats (fresh ids), and sees only the calls and updates that name them, so scripts
 * run in parallel against one bot without seeing each other.
 */
import type {EventEmitter} from 'node:events'
import {readFileSync, statSync} from 'node:fs'
import {basename, dirname, resolve} from 'node:path'
import type {BotState} from '../state/bot.js'
import type {RecordedCall, Update} from '../types.js'
import {MAX_USER_FILE} from '../user/media.js'
import {actionNamed} from '../actions/index.js'
import {type ActionStep, type ChatScript, type ChatStep, type ScriptUser, isAction} from './format.js'
import {parseChatScript} from './parse.js'
import type {ChatScriptFailure, ChatScriptSummary} from './result.js'
import {
  type BotEvent,
  canonicalExpectation,
  eventLines,
  eventsOf,
  expectationLines,
  expectationMatches,
  lineDiff,
  paramsMatch,
} from './expect.js'
import {fieldOf, idOf, inlineButtons, labelOf, markupOf, messageOf, type ScriptMessage} from './telegram.js'
import {errorText, systemError} from '../errors.js'

/** What a run needs of the emulator (BotApiEmulator.runChatScript builds it). */
export interface ScriptHost {
  token: string
  bot: BotState
  /** The emulator's 'call' and 'update' events. */
  events: {
    on(event: 'call', listener: (call: RecordedCall, token: string) => void): unknown
    off(event: 'call', listener: (call: RecordedCall, token: string) => void): unknown
    on(event: 'update', listener: (update: Update, token: string) => void): unknown
    off(event: 'update', listener: (update: Update, token: string) => void): unknown
  }
  signals: EventEmitter<{confirmed: [bot: BotState]; handled: [bot: BotState, updateId: number, replied: boolean]}>
  onStop(fail: (err: Error) => void): () => void
  runAction(name: string, input: unknown): Promise<unknown>
  /** A user id and chat ids no other script of this emulator has. */
  freshId(kind: 'user' | 'group' | 'supergroup'): number
}

export interface ChatScriptOptions {
  /** How long one step may wait for the bot (default 5000 ms). */
  timeoutMs?: number
  /**
   * How long the script's calls must stay quiet after the bot handled an update, where a step waits for quiet:
   * default 3 ms after a webhook answered, 100 ms after a getUpdates confirmed it (a polling bot may confirm an
   * update before its handler ran: python-telegram-bot hands updates to a worker thread and polls on at once). A
   * webhook bot's step waits none when the bot answered without a method and had no call of the script running,
   * unless the bot has made a call after such an answer before in this run (then every step waits it), or the run
   * collects.
   */
  quietMs?: number
  /** Where media paths are read from (default: the script file's folder, else the working folder). */
  baseDir?: string
  /** The file's name when `script` is text (for messages and media paths). */
  file?: string
  /**
   * Go on past failed expectations (every failure is listed): what `bot test --update` runs before rewriting the
   * expectations from what the bot did (update.ts). A step that cannot act still ends the run.
   */
  collect?: boolean
  /** Stop the run (it fails at the current step). */
  signal?: AbortSignal
}

export type {ChatScriptFailure, ChatScriptSummary} from './result.js'

/** What the bot did after one acting step (or before the first: `action` -1). */
export interface ChatScriptSegment {
  action: number
  /** The acting user then (their chat is the one `to:` is measured against). */
  user: string
  /** Its messages, edits and deletions in the script's chats, in order, each with the step that matched it. */
  events: Array<{event: BotEvent; value: unknown; matchedBy?: number}>
  /** Its calls that name the script's chats, users or queries (answerCallbackQuery, answerInlineQuery…). */
  calls: RecordedCall[]
  /** For each `call:` step of the segment (by index): the call it matched, else the closest one of that method. */
  callMatches: Record<number, RecordedCall | undefined>
}

export interface ChatScriptResult extends ChatScriptSummary {
  segments: ChatScriptSegment[]
  /** The ids the run gave the script's users and chats. */
  users: Record<string, {id: number; chatId: number}>
}

class StepFailure extends Error {
  constructor(
    message: string,
    readonly extra: Pick<ChatScriptFailure, 'expected' | 'actual' | 'diff'> = {},
  ) {
    super(message)
  }
}

/** Run a script (parsed, or its text) as the host's bot's users; resolves with the outcome (never rejects on a failure). */
export async function runScript(
  host: ScriptHost,
  script: ChatScript | string,
  options: ChatScriptOptions = {},
): Promise<ChatScriptResult> {
  const parsed = typeof script === 'string' ? parseChatScript(script, {file: options.file}) : script
  return new ScriptRun(host, parsed, options).run()
}

class ScriptRun {
  private readonly timeoutMs: number
  private readonly quietMs: number | undefined
  private readonly baseDir: string
  private readonly users = new Map<string, {user: ScriptUser; id: number; chatId: number}>()
  private readonly ids = new Set<string>()
  private readonly queryIds = new Set<string>()
  private readonly ours: RecordedCall[] = []
  private readonly segments: ChatScriptSegment[] = []
  private readonly failures: ChatScriptFailure[] = []
  private acting: string
  private lastInlineQuery = ''
  private cursor = 0
  private lastActivity = 0
  private readonly activity = new Set<() => void>()
  /** Where the current segment's calls start in `ours`. */
  private segmentStart = 0
  /** The last acting step was taken as done (a call of ours after that came late). */
  private stepDone = false
  /** The last acting step ended with the bot's webhook answer, without a quiet window (see exchange). */
  private answeredDone = false
  /**
   * The bot made a call of this script after an acting step was taken as done: it goes on after answering its
   * webhook (a handler that does not await its calls), so every step waits the quiet window from then on.
   */
  private late = false

  constructor(
    private readonly host: ScriptHost,
    private readonly script: ChatScript,
    private readonly options: ChatScriptOptions,
  ) {
    this.timeoutMs = options.timeoutMs ?? 5000
    this.quietMs = options.quietMs
    const file = script.file ?? options.file
    this.baseDir = options.baseDir ?? (file ? dirname(resolve(file)) : process.cwd())
    const group = script.chat === 'private' ? undefined : host.freshId(script.chat === 'group' ? 'group' : 'supergroup')
    for (const user of script.users) {
      const id = host.freshId('user')
      this.users.set(user.name, {user, id, chatId: group ?? id})
      this.ids.add(String(id))
      host.bot.users.update(id, {
        first_name: user.first_name,
        ...(user.last_name ? {last_name: user.last_name} : {}),
        ...(user.username ? {username: user.username} : {}),
        ...(user.language_code ? {language_code: user.language_code} : {}),
        ...(user.is_premium ? {is_premium: true} : {}),
      } as never)
    }
    if (group !== undefined) this.ids.add(String(group))
    this.acting = script.users[0].name
  }

  private get file(): string | undefined {
    return this.script.file ?? this.options.file
  }

  private me(): {user: ScriptUser; id: number; chatId: number} {
    return this.users.get(this.acting)!
  }

  async run(): Promise<ChatScriptResult> {
    const startedAt = Date.now()
    let ran = 0
    const onCall = (call: RecordedCall, token: string): void => {
      if (token !== this.host.token || !this.isOurs(call)) return
      this.ours.push(call)
      if (this.stepDone) this.late = true
      this.touch()
    }
    this.host.events.on('call', onCall)
    this.segments.push({action: -1, user: this.acting, events: [], calls: [], callMatches: {}})
    try {
      for (const step of this.script.steps) {
        if (this.options.signal?.aborted) throw new StepFailure('the run was stopped')
        ran++
        try {
          if (isAction(step)) {
            try {
              this.closeSegment(step, this.segmentStart)
            } catch (err) {
              // messages nobody expected: in a collect run, noted and the step still acts
              if (!(err instanceof StepFailure) || !this.options.collect) throw err
              this.fail(step, err)
            }
            this.segmentStart = this.ours.length
            this.segments.push({action: step.index, user: this.acting, events: [], calls: [], callMatches: {}})
            await this.act(step)
            this.refreshSegment(this.segmentStart)
          } else {
            await this.ready(step)
            this.check(step)
          }
        } catch (err) {
          if (!(err instanceof StepFailure)) throw err
          this.fail(step, err)
          if (!this.options.collect || isAction(step)) break
        }
      }
      if (this.failures.length === 0 || this.options.collect) {
        const last = this.script.steps.at(-1)!
        // What the bot still sends for the last step is part of the script's end: wait for quiet, unless the
        // bot's webhook answer already said it was done with it and it never made a call after such an answer.
        if (!this.answeredDone || this.late) await this.settle()
        this.refreshSegment(this.segmentStart)
        try {
          this.closeSegment(undefined, this.segmentStart)
        } catch (err) {
          if (!(err instanceof StepFailure)) throw err
          this.fail({...last, index: -1, key: 'end'}, err)
        }
      }
    } finally {
      this.host.events.off('call', onCall)
    }
    const endedAt = Date.now()
    return {
      ...(this.file ? {file: this.file} : {}),
      ok: this.failures.length === 0,
      steps: this.script.steps.length,
      ran,
      durationMs: endedAt - startedAt,
      startedAt,
      endedAt,
      failures: this.failures,
      segments: this.segments,
      users: Object.fromEntries([...this.users].map(([name, u]) => [name, {id: u.id, chatId: u.chatId}])),
    }
  }

  private fail(step: ChatStep, err: StepFailure): void {
    this.failures.push({
      ...(this.file ? {file: this.file} : {}),
      line: step.line,
      column: step.column,
      step: step.index,
      key: step.key,
      message: err.message,
      ...err.extra,
    })
  }

  // ---------------------------------------------------------------- what belongs to this script

  /** A call names one of the script's chats, users or queries. */
  private isOurs(call: RecordedCall): boolean {
    for (const [key, value] of Object.entries(call.params)) {
      if (value === undefined || value === null || typeof value === 'object') continue
      if (key === 'chat_id' || key === 'user_id') {
        if (this.ids.has(String(value))) return true
      } else if (key.endsWith('query_id') && this.queryIds.has(String(value))) return true
    }
    const chat = idOf(fieldOf(call.result, 'chat'))
    return chat !== undefined && this.ids.has(String(chat))
  }

  /** An update names one of the script's users or chats; its queries (callback, inline, pre-checkout…) become ours. */
  private claims(update: Update): boolean {
    let ours = false
    const visit = (value: unknown, depth: number): void => {
      if (!value || typeof value !== 'object' || depth > 5) return
      const fields: Array<[string, unknown]> = Object.entries(value)
      for (const [key, inner] of fields) {
        if (inner && typeof inner === 'object') {
          const id = idOf(inner)
          if ((key === 'from' || key === 'user' || key === 'chat') && id !== undefined && this.ids.has(String(id)))
            ours = true
          visit(inner, depth + 1)
        }
      }
    }
    visit(update, 0)
    if (ours)
      for (const [key, inner] of Object.entries(update))
        if (key.endsWith('query') && inner && typeof inner === 'object') {
          const id = idOf(inner)
          if (typeof id === 'string' || typeof id === 'number') this.queryIds.add(String(id))
        }
    return ours
  }

  private touch(): void {
    this.lastActivity = performance.now()
    for (const wake of [...this.activity]) wake()
  }

  private nameOfChat(chatId: number): string | undefined {
    for (const [name, u] of this.users) if (u.chatId === chatId) return name
    return undefined
  }

  // ---------------------------------------------------------------- segments

  /** The current segment's events and calls from the script's calls since `start`. */
  private refreshSegment(start: number): void {
    const segment = this.segments.at(-1)!
    const calls = this.ours.slice(start)
    segment.calls = calls
    const known = segment.events.length
    const events: BotEvent[] = []
    const lookup = (chatId: number, messageId: number) => this.host.bot.message(chatId, messageId)
    for (const call of calls) events.push(...eventsOf(call, lookup).filter((e) => this.ids.has(String(e.chatId))))
    const me = this.users.get(segment.user)!
    for (let i = known; i < events.length; i++) {
      const to = events[i].chatId !== me.chatId ? this.nameOfChat(events[i].chatId) : undefined
      segment.events.push({event: events[i], value: canonicalExpectation(events[i], to)})
    }
  }

  /** Before an acting step (or at the end): every message of the segment must have been expected. */
  private closeSegment(next: ActionStep | undefined, start: number): void {
    this.refreshSegment(start)
    const segment = this.segments.at(-1)!
    const left = segment.events.slice(this.cursor)
    this.cursor = 0
    if (left.length === 0) return
    const lines = left.flatMap((e, i) => [...(i > 0 ? ['---'] : []), ...eventLines(e.event)])
    throw new StepFailure(
      `${next ? 'before this step' : 'at the end of the script'} the bot also sent ${left.length === 1 ? 'a message' : `${left.length} messages`} that no \`bot:\` step expects. Add a \`bot:\` step for ${left.length === 1 ? 'it' : 'each'} (bot test --update writes them).`,
      {expected: [], actual: lines, diff: lineDiff([], lines)},
    )
  }

  // ---------------------------------------------------------------- checks

  /**
   * Before a check: what it looks at may still be on its way (a message the bot sends after answering its webhook).
   * A `bot:` step that has its message, or a `call:` step that has its call, goes on at once; else it waits until
   * that came or the script's calls went quiet; `silence:` always waits for quiet.
   */
  private async ready(step: ChatStep): Promise<void> {
    const segment = this.segments.at(-1)!
    const has = (): boolean => {
      this.refreshSegment(this.segmentStart)
      if (step.type === 'bot') return segment.events.length > this.cursor
      if (step.type === 'call') return this.matchingCall(step, segment) !== undefined
      return false
    }
    if (step.type === 'as' || has()) return
    if (step.type === 'silence') await this.settle()
    // A polling bot's next getUpdates may confirm an update before the bot answered it (python-telegram-bot's
    // Updater fetches while its handlers run), so quiet after the confirm does not say the bot is done: a check
    // that has nothing yet waits for it until the step's deadline. A webhook answer does say so: the window suffices.
    else await this.settle(has, !this.host.bot.webhook)
    this.refreshSegment(this.segmentStart)
  }

  /**
   * Until `until` holds, or (unless `patient`) none of the script's calls is in flight and none came for the quiet
   * window; at the latest until the step's deadline.
   */
  private settle(until?: () => boolean, patient = false): Promise<void> {
    const quiet = this.quietMs ?? (this.host.bot.webhook ? 3 : 100)
    return new Promise<void>((resolvePromise) => {
      let timer: NodeJS.Timeout | undefined
      const done = (): void => {
        clearTimeout(timer)
        clearTimeout(deadline)
        this.activity.delete(check)
        offStop()
        resolvePromise()
      }
      const check = (): void => {
        clearTimeout(timer)
        if (until?.()) return done()
        if (patient) return
        const wait = this.lastActivity + quiet - performance.now()
        if (wait <= 0 && !this.busy()) return done()
        timer = setTimeout(check, Math.max(1, wait > 0 ? wait : quiet))
      }
      // at the deadline (or when the emulator stops) the check that follows says what is missing
      const deadline = setTimeout(done, this.timeoutMs)
      const offStop = this.host.onStop(() => done())
      this.activity.add(check)
      check()
    })
  }

  /** One of the script's calls is in flight. */
  private busy(): boolean {
    for (const call of this.host.bot.running) if (this.isOurs(call)) return true
    return false
  }

  /** The segment's call a `call:` step matches (that method, those parameters, not matched by an earlier step). */
  private matchingCall(step: Extract<ChatStep, {type: 'call'}>, segment: ChatScriptSegment): RecordedCall | undefined {
    const used = new Set(Object.values(segment.callMatches))
    return segment.calls.find(
      (c) =>
        c.method.toLowerCase() === step.method.toLowerCase() &&
        !used.has(c) &&
        !c.error &&
        paramsMatch(step.params, c.params),
    )
  }

  private check(step: ChatStep): void {
    const segment = this.segments.at(-1)!
    switch (step.type) {
      case 'as':
        this.acting = step.user
        return
      case 'silence': {
        const left = segment.events.slice(this.cursor)
        if (left.length === 0) return
        const lines = left.flatMap((e, i) => [...(i > 0 ? ['---'] : []), ...eventLines(e.event)])
        this.cursor = segment.events.length
        throw new StepFailure('the bot was expected to send nothing more, and it sent:', {
          expected: [],
          actual: lines,
          diff: lineDiff([], lines),
        })
      }
      case 'bot': {
        const expected = expectationLines(step.expect)
        const next = segment.events[this.cursor]
        if (!next) {
          const what = segment.action < 0 ? 'before any user step' : 'in answer to the last user step'
          throw new StepFailure(`the bot sent nothing more ${what}.`, {
            expected,
            actual: ['(nothing)'],
            diff: lineDiff(expected, ['(nothing)']),
          })
        }
        this.cursor++
        const chatOf = (name: string) => this.users.get(name)!.chatId
        if (expectationMatches(step.expect, next.event, chatOf)) {
          next.matchedBy = step.index
          return
        }
        const me = this.users.get(segment.user)!
        const to =
          step.expect.to !== undefined || next.event.chatId !== me.chatId
            ? (this.nameOfChat(next.event.chatId) ?? String(next.event.chatId))
            : undefined
        const actual = eventLines(next.event, {to, method: step.expect.method !== undefined})
        throw new StepFailure(
          next.event.event === step.expect.event
            ? `the bot's next ${next.event.event === 'message' ? 'message' : next.event.event} is not what this step expects:`
            : `this step expects ${step.expect.event === 'message' ? 'a new message' : `a ${step.expect.event}`}, and the bot's next answer is ${next.event.event === 'message' ? 'a new message' : `a ${next.event.event}`}:`,
          {expected, actual, diff: lineDiff(expected, actual)},
        )
      }
      case 'call': {
        const used = new Set(Object.values(segment.callMatches))
        const sameMethod = segment.calls.filter(
          (c) => c.method.toLowerCase() === step.method.toLowerCase() && !used.has(c),
        )
        const found = sameMethod.find((c) => !c.error && paramsMatch(step.params, c.params))
        segment.callMatches[step.index] = found ?? sameMethod[0]
        if (found) return
        const expected = [
          `method: ${step.method}`,
          ...Object.entries(step.params).map(([k, v]) => `${k}: ${JSON.stringify(v)}`),
        ]
        if (sameMethod.length === 0) {
          const made = segment.calls.map((c) => c.method)
          throw new StepFailure(
            `the bot made no ${step.method} call in answer to the last user step (${made.length > 0 ? `its calls: ${[...new Set(made)].join(', ')}` : 'it made no call'}).`,
            {expected, actual: ['(no such call)'], diff: lineDiff(expected, ['(no such call)'])},
          )
        }
        const c = sameMethod[0]
        const actual = [
          `method: ${c.method}`,
          ...Object.keys(step.params).map(
            (k) => `${k}: ${c.params[k] === undefined ? '(absent)' : JSON.stringify(c.params[k])}`,
          ),
          ...(c.error ? [`error: ${c.error.code} ${c.error.description}`] : []),
        ]
        throw new StepFailure(`the bot's ${c.method} call does not have the parameters this step expects:`, {
          expected,
          actual,
          diff: lineDiff(expected, actual),
        })
      }
    }
  }

  // ---------------------------------------------------------------- acting

  private async act(step: ActionStep): Promise<void> {
    const me = this.me()
    const who: Record<string, unknown> = {
      user_id: me.id,
      chat_id: me.chatId,
      first_name: me.user.first_name,
      last_name: me.user.last_name,
      username: me.user.username,
      language_code: me.user.language_code,
      ...(me.chatId < 0 ? {chat_title: this.script.title ?? 'Test Group'} : {}),
    }
    switch (step.type) {
      case 'text':
        return this.exchange('send_message', {text: step.text, ...step.fields}, who)
      case 'press':
        return this.press(step.label, who)
      case 'media': {
        const path = resolve(this.baseDir, step.path)
        let data: Buffer
        try {
          if (statSync(path).size > MAX_USER_FILE) throw new Error(`it is over ${MAX_USER_FILE} bytes`)
          data = readFileSync(path)
        } catch (err) {
          throw new StepFailure(`cannot read ${step.path}: ${systemError(err).code ?? errorText(err)}.`)
        }
        return this.exchange(
          'send_media',
          {kind: step.kind, file: {data, filename: basename(path)}, ...step.fields},
          who,
        )
      }
      case 'pay': {
        const invoice = step.fields.invoice ?? this.newest((m) => Boolean(m.invoice))?.message_id
        if (invoice === undefined) throw new StepFailure(`the bot sent no invoice in ${this.where()} to pay.`)
        return this.exchange('pay_invoice', {...step.fields, invoice}, who)
      }
      case 'vote': {
        const poll = this.newest((m) => Boolean(m.poll))?.poll
        if (!poll) throw new StepFailure(`there is no poll in ${this.where()} to vote in.`)
        return this.exchange('vote_poll', {poll_id: String(idOf(poll)), option_ids: step.options}, who)
      }
      case 'react': {
        const message = this.newest((m) => fieldOf(m.from, 'is_bot') === true)
        if (!message) throw new StepFailure(`the bot sent no message in ${this.where()} to react to.`)
        return this.exchange('react', {message_id: message.message_id, reaction: step.reaction}, who)
      }
      case 'inline':
        return this.exchange('inline_query', {query: step.query, ...step.fields}, who, (result) => {
          const id = idOf(fieldOf(result, 'inline_query'))
          if (typeof id === 'string') this.lastInlineQuery = id
        })
      case 'choose':
        if (!this.lastInlineQuery)
          throw new StepFailure('there is no inline query to choose a result of: add an `inline:` step first.')
        return this.exchange('choose_inline_result', {query_id: this.lastInlineQuery, result_id: step.resultId}, who)
      case 'join':
        return this.exchange('join_chat', step.fields, who)
      case 'leave':
        return this.exchange('leave_chat', {}, who)
      case 'action':
        return this.exchange(step.action, step.input, who)
    }
  }

  private where(): string {
    const me = this.me()
    return me.chatId < 0 ? 'the group' : `${me.user.first_name}'s chat`
  }

  /** The newest live message of the acting user's chat that `test` accepts. */
  private newest(test: (m: ScriptMessage) => boolean): ScriptMessage | undefined {
    const records = this.host.bot.messages.inChat(this.me().chatId)
    for (let i = records.length - 1; i >= 0; i--) {
      const message = records[i].deleted ? undefined : messageOf(records[i].message)
      if (message && test(message)) return message
    }
    return undefined
  }

  /** Press the button labelled `label` of the newest message that has it, or of the reply keyboard shown last. */
  private press(label: string, who: Record<string, unknown>): Promise<void> {
    const seen: string[] = []
    const records = this.host.bot.messages.inChat(this.me().chatId)
    for (let i = records.length - 1; i >= 0; i--) {
      const r = records[i]
      const message = r.deleted || !r.byBot ? undefined : messageOf(r.message)
      const markup = markupOf(message?.reply_markup)
      if (!message || !Array.isArray(markup?.inline_keyboard)) continue
      const buttons = inlineButtons(markup)
      seen.push(...buttons.map((b) => String(b.text)))
      const button = buttons.find((b) => b.text === label)
      if (!button) continue
      if (typeof button.callback_data !== 'string') {
        const kind = Object.keys(button).find((k) => k !== 'text') ?? 'no action'
        return Promise.reject(
          new StepFailure(
            `the button "${label}" is a ${kind} button, not a callback button: there is nothing to press in a test.`,
          ),
        )
      }
      return this.exchange('press_button', {data: button.callback_data, message_id: message.message_id}, who)
    }
    const keyboard = this.replyKeyboard()
    if (keyboard.includes(label)) return this.exchange('send_message', {text: label}, who)
    const all = [...new Set([...seen, ...keyboard])]
    return Promise.reject(
      new StepFailure(
        `no message in ${this.where()} has a button "${label}"; ${all.length > 0 ? `the buttons there: ${all.map((b) => `[${b}]`).join(' ')}` : 'the bot sent no buttons'}.`,
      ),
    )
  }

  /** The reply keyboard the bot showed last in the acting user's chat (none after remove_keyboard). */
  private replyKeyboard(): string[] {
    const chat = String(this.me().chatId)
    for (let i = this.ours.length - 1; i >= 0; i--) {
      const call = this.ours[i]
      if (call.error || String(call.params.chat_id) !== chat) continue
      const markup = markupOf(call.params.reply_markup)
      if (!markup) continue
      if (markup.remove_keyboard) return []
      if (Array.isArray(markup.keyboard)) return markup.keyboard.flat().map(labelOf)
    }
    return []
  }

  /**
   * Run the action with the acting user's fields filled in (those its parameters have and the step left out), then
   * wait until the bot has handled every update of this script queued meanwhile and its calls went quiet.
   */
  private exchange(
    name: string,
    input: Record<string, unknown>,
    who: Record<string, unknown>,
    onResult?: (result: unknown) => void,
  ): Promise<void> {
    const params = actionNamed(name).params
    const full: Record<string, unknown> = {...input}
    for (const [key, value] of Object.entries(who))
      if (value !== undefined && key in params && full[key] === undefined) full[key] = value
    const {bot, signals, events} = this.host
    const pending = new Set<number>()
    // the updates whose webhook answer the emulator has read (and ran the method it carried, if any)
    const answered = new Set<number>()
    let replied = false
    let acted = false
    let result: unknown
    this.stepDone = false
    this.answeredDone = false
    return new Promise<void>((resolvePromise, reject) => {
      let quietTimer: NodeJS.Timeout | undefined
      let ticker: NodeJS.Timeout | undefined
      let deadline: NodeJS.Timeout | undefined
      let finished = false
      const cleanup = (): void => {
        finished = true
        clearTimeout(quietTimer)
        clearInterval(ticker)
        clearTimeout(deadline)
        events.off('update', onUpdate)
        signals.off('handled', onHandled)
        signals.off('confirmed', check)
        this.activity.delete(check)
        offStop()
        this.options.signal?.removeEventListener('abort', onAbort)
      }
      const fail = (err: Error): void => {
        if (finished) return
        cleanup()
        reject(err instanceof StepFailure ? err : new StepFailure(err.message))
      }
      const unhandled = (): number[] => [...pending].filter((id) => bot.queue.has(id))
      let handledAt = 0
      function check(): void {
        if (finished || !acted || unhandled().length > 0) return
        // the quiet window counts from when the bot handled the updates, not from its last call before that
        if (handledAt === 0) {
          handledAt = performance.now()
          run.lastActivity = Math.max(run.lastActivity, handledAt)
        }
        clearTimeout(quietTimer)
        const busy = run.busy()
        // A webhook bot that answered every update of the step without a method, with none of the script's calls
        // in flight, is done: its handler ended before its answer (grammY, Telegraf and others await it). No
        // window then, unless the bot has made a call after such an answer before (then it always gets one), or
        // the run collects for --update (which needs each call in the segment of its step).
        const answeredAll = [...pending].every((id) => answered.has(id))
        const windowless = Boolean(bot.webhook) && !replied && !run.late && !run.options.collect
        if (windowless && answeredAll && !busy) {
          run.answeredDone = true
          return finish()
        }
        // else (polling, a method in the answer, an update that left the queue without an answer: expired) the window
        const quiet = run.quietMs ?? (bot.webhook ? 3 : 100)
        const wait = run.lastActivity + quiet - performance.now()
        if (wait > 0 || busy) {
          quietTimer = setTimeout(check, Math.max(1, wait > 0 ? wait : quiet))
          return
        }
        finish()
      }
      const finish = (): void => {
        cleanup()
        this.stepDone = true
        onResult?.(result)
        resolvePromise()
      }
      const onHandled = (b: BotState, updateId: number, withMethod: boolean): void => {
        if (b === bot && pending.has(updateId)) {
          answered.add(updateId)
          if (withMethod) replied = true
          // a call of the script still running when the bot answered: its handler did not wait for it
          if (run.busy()) run.late = true
        }
        check()
      }
      const run = this
      const onUpdate = (update: Update, token: string): void => {
        if (token !== this.host.token || !this.claims(update)) return
        pending.add(update.update_id)
        this.touch()
      }
      const onAbort = (): void => fail(new StepFailure('the run was stopped'))
      const offStop = this.host.onStop((err) => fail(err))
      this.options.signal?.addEventListener('abort', onAbort, {once: true})
      events.on('update', onUpdate)
      signals.on('handled', onHandled)
      signals.on('confirmed', check)
      this.activity.add(check)
      // a safety net for an update that leaves the queue without a signal (expired): checked every 25 ms
      ticker = setInterval(check, 25)
      deadline = setTimeout(() => {
        const left = unhandled()
        fail(
          new StepFailure(
            left.length > 0
              ? `the bot did not handle the update within ${this.timeoutMs} ms (${this.whereIs(left[0])}).`
              : `the bot kept calling the API for ${this.timeoutMs} ms after it handled the update.`,
          ),
        )
      }, this.timeoutMs)
      this.host.runAction(name, full).then(
        (value) => {
          if (finished) return
          result = value
          const dropped = droppedReason(value)
          if (dropped !== undefined && pending.size === 0) {
            fail(
              new StepFailure(`Telegram would send the bot no update for this step${dropped ? ` (${dropped})` : ''}.`),
            )
            return
          }
          acted = true
          this.touch()
          check()
        },
        (err: Error) => fail(new StepFailure(`${name}: ${err.message}`)),
      )
    })
  }

  private whereIs(updateId: number): string {
    const bot = this.host.bot
    if (bot.webhook)
      return bot.lastErrorMessage
        ? `still queued for the webhook; last delivery error: ${bot.lastErrorMessage}`
        : 'still queued for the webhook'
    return bot.poll
      ? `update ${updateId} is still queued, not yet confirmed by a getUpdates offset`
      : `update ${updateId} is still queued: no webhook is set and no getUpdates is waiting (is the bot running?)`
  }
}

/** An action's JSON result that says no update went out: its reason ('' when none is given), else undefined. */
function droppedReason(result: unknown): string | undefined {
  if (!result || typeof result !== 'object') return undefined
  const given = fieldOf(result, 'reason')
  const reason = typeof given === 'string' ? given : ''
  if (fieldOf(result, 'update_id') === 0) return reason
  const ids = fieldOf(result, 'update_ids')
  const updates = fieldOf(result, 'updates')
  const list = Array.isArray(ids)
    ? ids
    : Array.isArray(updates)
      ? updates.map((u) => fieldOf(u, 'update_id'))
      : undefined
  if (list && list.length > 0 && list.every((id) => id === 0)) return reason
  return undefined
}

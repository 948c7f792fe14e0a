/**
 * What `bot mcp` reads from and does in a running session (SessionQueries, the routes of server.ts beside
 * /trigger and /replay): its status, the user actions it can run, its update history, the bot's Bot API calls, the
 * bot's last output lines, a restart, a chat's transcript, and offline a fault injected into the emulator.
 *
 * A user action is one of the emulator's table (src/emulator/actions): offline it is that action of the emulator's
 * user (TriggerEngine.emulatorAction); online it becomes the synthetic update `bot trigger` sends (a message, a
 * button press, a fixture), so the same tool works against Telegram in webhook mode. `press_button` finds the
 * button by its label or its callback_data on the bot's newest message that has it, as the session saw the bot's
 * messages (its api proxy). Nothing here knows of oclif, the dev session's parts or MCP: the control-port part
 * wires it (src/dev/parts/control-port.ts).
 */
import {listActions} from '../emulator/actions/index.js'
import type {UpdateHistory} from '../inspector/history/history.js'
import type {UpdateEntry} from '../inspector/types.js'
import type {TriggerEngine} from './actions.js'
import {resolveParties} from './fill.js'
import type {FixtureType} from './fixtures.js'
import type {OfflineTarget} from './offline-trigger.js'
import {
  ActionError,
  type ActionOutcome,
  type CallRow,
  type ChatScriptReport,
  type FaultRequest,
  type FixtureSet,
  type OutputLine,
  type RestartOutcome,
  type SessionAction,
  type SessionQueries,
  type SessionStatus,
  type Transcript,
  type TranscriptItem,
  type TriggerRequest,
  type TriggerResult,
} from './protocol.js'
import {factsFromCalls, type BotMessage, type SessionFacts} from './session-facts.js'

type Json = Record<string, unknown>

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

/** The actions a session against Telegram can run, each as the fixture (or built-in kind) `bot trigger` sends. */
const ONLINE: Record<string, {fixture?: FixtureType; summary: string}> = {
  send_message: {summary: 'a synthetic message from the user'},
  press_button: {summary: 'a synthetic callback_query'},
  send_media: {fixture: 'photo', summary: 'a synthetic photo message (photos only)'},
  react: {fixture: 'reaction', summary: 'a synthetic message_reaction'},
  vote_poll: {fixture: 'poll-answer', summary: 'a synthetic poll_answer'},
  inline_query: {fixture: 'inline', summary: 'a synthetic inline_query (the api proxy answers answerInlineQuery)'},
  pay_invoice: {fixture: 'payment', summary: 'a synthetic pre_checkout_query, then successful_payment'},
  block_bot: {fixture: 'member-blocked', summary: 'a synthetic my_chat_member (kicked)'},
  unblock_bot: {fixture: 'member-unblocked', summary: 'a synthetic my_chat_member (member)'},
  join_chat: {fixture: 'member-joined', summary: 'a synthetic chat_member (joined)'},
  leave_chat: {fixture: 'member-left', summary: 'a synthetic chat_member (left)'},
  request_join: {fixture: 'join-request', summary: 'a synthetic chat_join_request'},
  send_business_message: {fixture: 'business-message', summary: 'a synthetic business_message'},
  send_web_app_data: {fixture: 'web-app-data', summary: 'a synthetic web_app_data message'},
  widget_query: {fixture: 'widget-query', summary: 'a synthetic widget_query'},
  update_subscription: {fixture: 'subscription', summary: 'a synthetic subscription update'},
  stop_generation: {fixture: 'stopped-generation', summary: 'a synthetic stopped_message_generation'},
}

/** Actions whose chat defaults to the user's private chat (the session's user offline, the last one seen online). */
const CHAT_SCOPED = new Set(['send_message', 'send_media', 'press_button', 'react', 'pay_invoice'])

/** Fields MCP adds to the table's (press_button by label). */
const LABEL = {type: 'string', description: "the button's label as shown (instead of data)"}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function intOf(value: unknown, name: string): number | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value
  throw new ActionError(400, `${name} ${JSON.stringify(value)} is not an integer.`, `Pass ${name} as a number.`)
}

/** Each inline button of a message: its label and callback_data (or what else it is). */
function buttonsOf(message: Json): Array<{text: string; data?: string; kind: string}> {
  const markup = message.reply_markup
  if (!isObject(markup) || !Array.isArray(markup.inline_keyboard)) return []
  const out: Array<{text: string; data?: string; kind: string}> = []
  for (const row of markup.inline_keyboard)
    if (Array.isArray(row))
      for (const b of row)
        if (isObject(b) && typeof b.text === 'string')
          out.push({
            text: b.text,
            ...(typeof b.callback_data === 'string' ? {data: b.callback_data} : {}),
            kind: Object.keys(b).find((k) => k !== 'text' && k !== 'style') ?? 'text',
          })
  return out
}

export class SessionQueryService implements SessionQueries {
  readonly #o: SessionQueryOptions

  constructor(o: SessionQueryOptions) {
    this.#o = o
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

  async act(name: string, input: Record<string, unknown>): Promise<ActionOutcome> {
    const known = listActions().some((a) => a.name === name)
    if (!known)
      throw new ActionError(
        404,
        `There is no user action "${name}".`,
        `Use one of: ${listActions()
          .map((a) => a.name)
          .join(', ')}.`,
      )
    const offline = this.#o.offline
    if (offline) return this.#offlineAct(offline, name, {...input})
    const online = ONLINE[name]
    if (!online)
      throw new ActionError(
        409,
        `${name} needs an offline session: against Telegram only what \`bot trigger\` can fake is sent.`,
        'Run `bot mcp --offline` (or `bot dev --offline`), or send the update yourself with the trigger tool (type update).',
      )
    return outcome(name, await this.#o.engine.trigger(this.#onlineRequest(name, input)))
  }

  /** The user and chat an action defaults to: offline the session's user, online the last real ones seen. */
  #party(input: Json): {chatId: number; userId: number} {
    const chatId = intOf(input.chat_id, 'chat_id')
    const userId = intOf(input.user_id, 'user_id')
    const offline = this.#o.offline
    if (offline) {
      if (chatId === undefined && userId === undefined)
        return {chatId: offline.user.chatId, userId: offline.user.userId}
      return {chatId: chatId ?? (userId as number), userId: userId ?? (chatId! > 0 ? chatId! : offline.user.userId)}
    }
    const parties = resolveParties(
      {...(chatId !== undefined ? {chatId} : {}), ...(userId !== undefined ? {userId} : {})},
      this.#o.facts.lastParty(),
    )
    return {chatId: parties.chatId, userId: parties.userId}
  }

  /** The bot's messages in a chat as the session saw them (offline without the api proxy: the emulator's record). */
  #botMessages(chatId: number): BotMessage[] {
    const seen = this.#o.facts.botMessages(chatId)
    const offline = this.#o.offline
    if (seen.length > 0 || !offline) return seen
    const calls = offline.emulator.sentMessages(offline.token, {chatId}) as Parameters<typeof factsFromCalls>[0]
    return factsFromCalls(calls).botMessages(chatId)
  }

  /** The message and callback_data a press_button means: by label or data, on message_id or the newest that has it. */
  #button(input: Json, chatId: number): {data: string; messageId: number} {
    const label = input.label
    const data = input.data
    if (label !== undefined && typeof label !== 'string')
      throw new ActionError(400, 'label must be a string.', 'Pass the label as shown on the button.')
    if (data !== undefined && typeof data !== 'string')
      throw new ActionError(400, 'data must be a string.', "Pass the button's callback_data.")
    if ((label === undefined) === (data === undefined))
      throw new ActionError(
        400,
        'press_button needs exactly one of label and data.',
        'Pass {"label": "Yes"} (the text on the button) or {"data": "like:yes"} (its callback_data).',
      )
    const messageId = intOf(input.message_id, 'message_id')
    const messages = this.#botMessages(chatId)
    const candidates = messageId === undefined ? messages : messages.filter((m) => m.messageId === messageId)
    const want = (b: {text: string; data?: string}) =>
      label !== undefined
        ? b.text === label || b.text.trim().toLowerCase() === label.trim().toLowerCase()
        : b.data === data
    for (const m of candidates) {
      const button = buttonsOf(m.message).find(want)
      if (!button) continue
      if (button.data === undefined)
        throw new ActionError(
          422,
          `The button "${button.text}" of message ${m.messageId} is a ${button.kind} button, not a callback button: pressing it sends the bot nothing.`,
          'Press a button that has callback_data.',
        )
      return {data: button.data, messageId: m.messageId}
    }
    // A message the session never saw (online, its send went around the api proxy): press by data as given.
    if (messageId !== undefined && candidates.length === 0 && data !== undefined) return {data, messageId}
    const shown = messages
      .slice(0, 3)
      .flatMap((m) => buttonsOf(m.message).map((b) => `[${b.text}]`))
      .join(' ')
    throw new ActionError(
      404,
      `No message of the bot in chat ${chatId}${messageId !== undefined ? ` with id ${messageId}` : ''} has a button ${
        label !== undefined ? `labelled "${label}"` : `with callback_data "${data}"`
      }${shown ? `; the buttons of its newest messages: ${shown}` : ' (the session saw no buttons there)'}.`,
      'Read the chat (read_chat) for the buttons there, then press one of them.',
    )
  }

  /** The callback_data a press on an ephemeral message (Bot API 10.2) means: by label or data, on that message. */
  #ephemeralButton(offline: OfflineTarget, input: Json, chatId: number): unknown {
    const {label, data} = input
    if (label === undefined) return data
    const id = intOf(input.ephemeral_message_id, 'ephemeral_message_id')
    const message = offline.emulator
      .ephemeralMessages(offline.token)
      .find((m) => isObject(m.chat) && m.chat.id === chatId && m.ephemeral_message_id === id)
    const button = message
      ? buttonsOf(message).find((b) => b.text.trim().toLowerCase() === String(label).trim().toLowerCase())
      : undefined
    if (button?.data === undefined)
      throw new ActionError(
        404,
        `No ephemeral message ${String(id)} in chat ${chatId} has a callback button labelled "${String(label)}".`,
        'Read the ephemeral messages (GET …/ephemeral_messages) for their buttons, or pass data.',
      )
    return button.data
  }

  #offlineAct(offline: OfflineTarget, name: string, input: Json): Promise<ActionOutcome> {
    if (CHAT_SCOPED.has(name) && input.chat_id === undefined) {
      const {chatId, userId} = this.#party(input)
      input.chat_id = chatId
      input.user_id ??= userId
    } else if (input.user_id === undefined && name !== 'choose_inline_result' && hasField(name, 'user_id'))
      input.user_id = offline.user.userId
    const chatId = typeof input.chat_id === 'number' ? input.chat_id : offline.user.chatId
    if (name === 'press_button' && input.ephemeral_message_id !== undefined) {
      input.data = this.#ephemeralButton(offline, input, chatId)
      delete input.label
    } else if (name === 'press_button') {
      const {data, messageId} = this.#button(input, chatId)
      delete input.label
      input.data = data
      input.message_id = messageId
    }
    if (name === 'react' && input.message_id === undefined) input.message_id = this.#newest(chatId, 'message')
    if (name === 'react') input.reaction = reactionOf(input.reaction)
    if (name === 'vote_poll' && input.poll_id === undefined) input.poll_id = this.#newest(chatId, 'poll')
    if (name === 'pay_invoice' && input.invoice === undefined) input.invoice = this.#newest(chatId, 'invoice')
    return this.#o.engine.emulatorAction(name, input)
  }

  /** The bot's newest message, poll id or invoice message id in the chat; refused when it sent none. */
  #newest(chatId: number, what: 'message' | 'poll' | 'invoice'): number | string {
    const messages = this.#botMessages(chatId)
    const found =
      what === 'message'
        ? messages[0]
        : what === 'poll'
          ? messages.find((m) => m.poll)
          : messages.find((m) => m.invoice)
    if (!found)
      throw new ActionError(
        404,
        `The bot has sent no ${what === 'message' ? 'message' : what} in chat ${chatId} that this session saw.`,
        `Make the bot send one first, or pass ${what === 'message' ? 'message_id' : what === 'poll' ? 'poll_id' : 'invoice'}.`,
      )
    return what === 'poll' ? found.poll!.id : found.messageId
  }

  /** An action against Telegram as the synthetic update `bot trigger` sends for it. */
  #onlineRequest(name: string, input: Json): TriggerRequest {
    const allowed = new Set([...Object.keys(paramsOf(name)), ...(name === 'press_button' ? ['label'] : [])])
    for (const key of Object.keys(input))
      if (!allowed.has(key))
        throw new ActionError(
          400,
          `unknown field "${key}"; the fields are ${[...allowed].join(', ')}.`,
          'Leave it out.',
        )
    const given = {
      ...(input.chat_id !== undefined ? {chatId: intOf(input.chat_id, 'chat_id')} : {}),
      ...(input.user_id !== undefined ? {userId: intOf(input.user_id, 'user_id')} : {}),
    }
    if (name === 'send_message') {
      if (typeof input.text !== 'string' || input.text === '')
        throw new ActionError(400, 'text is required (the message text).', 'Pass {"text": "hello"}.')
      return {kind: 'message', text: input.text, ...given}
    }
    if (name === 'press_button') {
      if (input.ephemeral_message_id !== undefined)
        throw new ActionError(
          409,
          "Against Telegram a press on an ephemeral message can't be faked.",
          'Use an offline session to press buttons of ephemeral messages.',
        )
      const party = this.#party(input)
      const {data, messageId} = this.#button(input, party.chatId)
      return {kind: 'callback', data, messageId, chatId: party.chatId, userId: party.userId}
    }
    const sets: FixtureSet[] = []
    const set = (path: string, value: unknown) => {
      if (value !== undefined) sets.push({path: path.split('.'), value})
    }
    let file: {base64: string; name?: string} | undefined
    switch (name) {
      case 'send_media': {
        if (input.kind !== 'photo')
          throw new ActionError(
            409,
            `Against Telegram only a photo can be faked (kind "${String(input.kind)}").`,
            'Send kind "photo", or use an offline session for other media.',
          )
        const f = isObject(input.file) ? input.file : {}
        if (typeof f.data !== 'string') throw new ActionError(400, 'file.data (base64) is required.', 'Pass the image.')
        file = {base64: f.data, ...(typeof f.filename === 'string' ? {name: f.filename} : {})}
        set('message.caption', input.caption)
        break
      }
      case 'react':
        set('message_reaction.message_id', input.message_id)
        set('message_reaction.new_reaction', input.reaction === undefined ? undefined : reactionOf(input.reaction))
        break
      case 'vote_poll':
        set('poll_answer.poll_id', input.poll_id)
        set('poll_answer.option_ids', input.option_ids)
        break
      case 'inline_query':
        set('inline_query.query', input.query)
        break
      case 'send_business_message':
        set('business_message.text', input.text)
        break
      case 'send_web_app_data':
        set('message.web_app_data.data', input.data)
        set('message.web_app_data.button_text', input.button_text)
        break
      case 'widget_query':
        set('widget_query.data', input.data)
        break
      case 'update_subscription':
        set('subscription.state', input.state)
        break
      case 'stop_generation':
        set('stopped_message_generation.draft_id', input.draft_id)
        break
    }
    return {
      kind: 'fixture',
      type: ONLINE[name].fixture!,
      ...(sets.length > 0 ? {sets} : {}),
      ...(file ? {file} : {}),
      ...given,
    }
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
      throw new ActionError(400, (error as Error).message, 'Fix the fault as the message says.')
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
      const e = error as {fix?: unknown; reason?: unknown; file?: string; line?: unknown; column?: unknown}
      const fix = e.fix
      throw new ActionError(
        400,
        typeof e.reason === 'string' && typeof e.line === 'number'
          ? `${e.file ?? request.file ?? '<script>'}:${e.line}:${String(e.column)}: ${e.reason}`
          : (error as Error).message,
        typeof fix === 'string' ? fix : 'Fix the script as the message says (docs/testing.md has the format).',
      )
    }
  }
}

/**
 * The user actions a session runs (offline: the whole table; online: those `bot trigger` can fake), each with the
 * table's input schema, relaxed where the session fills a default in: press_button by `label` or `data` on the
 * bot's newest message that has it, react to the bot's newest message, vote in its newest poll, pay its newest
 * invoice.
 */
export function sessionActions(offline: boolean): SessionAction[] {
  return listActions()
    .filter((a) => offline || Object.hasOwn(ONLINE, a.name))
    .map((a) => {
      const params = JSON.parse(JSON.stringify(a.params)) as {properties?: Json; required?: string[]}
      const properties = {...(params.properties ?? {})}
      let required = params.required ?? []
      if (a.name === 'press_button') {
        properties.label = LABEL
        required = []
      }
      if (a.name === 'react' || a.name === 'vote_poll' || a.name === 'pay_invoice')
        required = required.filter((r) => !['chat_id', 'message_id', 'poll_id', 'invoice'].includes(r))
      const {required: _old, ...rest} = params
      return {
        name: a.name,
        description: offline ? a.description : `${a.description} (online: ${ONLINE[a.name].summary})`,
        params: {...rest, properties, ...(required.length > 0 ? {required} : {})},
        result: a.result,
      }
    })
}

function paramsOf(name: string): Json {
  const action = listActions().find((a) => a.name === name)
  return ((action?.params as {properties?: Json} | undefined)?.properties ?? {}) as Json
}

function hasField(name: string, field: string): boolean {
  return Object.hasOwn(paramsOf(name), field)
}

/** Reactions as emoji strings or ReactionType objects (a single emoji string too). */
function reactionOf(value: unknown): unknown {
  const list = typeof value === 'string' ? [value] : value === undefined ? ['👍'] : value
  if (!Array.isArray(list)) return list
  return list.map((r) => (typeof r === 'string' ? {type: 'emoji', emoji: r} : r))
}

/** A trigger's result as an action's outcome: every update it delivered, oldest first. */
function outcome(name: string, result: TriggerResult): ActionOutcome {
  const {flow, ...entry} = result
  return {action: name, entries: flow?.entries ?? [entry as UpdateEntry], ...(flow ? {flow} : {})}
}

/** BotApiEmulator: a faithful local Bot API server for tests and offline development. */
import {EventEmitter} from 'node:events'
import http from 'node:http'
import net from 'node:net'
import type {BotState} from './state/bot.js'
import {NEVER_ABORTED, type Answer, type Core} from './methods/core.js'
import {WebhookWorker} from './webhook/delivery.js'
import {ApiError} from './errors.js'
import {isOutgoing, runnableAsReply} from './methods/index.js'
import type {Params} from './http/params.js'
import {ConversationUser, type ConversationOptions} from './conversation.js'
import {createControlHandler} from './control/api.js'
import {checkFaultSpec, type FaultSpec} from './state/faults.js'
import {dispatch} from './methods/dispatch.js'
import {BotRegistry} from './state/registry.js'
import {createHandler} from './http/server.js'
import {createFront} from './http/fast.js'
import {isLoopbackAddress, type Scope, scopeFor} from './http/guard.js'
import {migrate, noteUsers} from './user/actions.js'
import {chatMatches, waitForCall} from './user/wait.js'
import type {VoteOptions} from './user/polls.js'
import type {InlineQueryOptions} from './user/inline.js'
import {
  ACTIONS,
  type ActionContext,
  type ActionInfo,
  type ActionInput,
  type ActionName,
  type ActionResult,
  invokeAction,
  listActions,
} from './actions/index.js'
import type {
  BotInfo,
  CallbackQueryOptions,
  CreateBotOptions,
  DeliveryEvent,
  EmulatorOptions,
  RecordedCall,
  TgObject,
  Update,
  UserMessageOptions,
  WaitOptions,
  WebhookState,
  UserProfileOptions,
  UserMediaOptions,
} from './types.js'
import {allowedUpdatesList} from './state/updates.js'
import {webhookInfo} from './methods/webhook-config.js'
import type {PayOptions, PaymentHost} from './user/payments.js'
import type {PaymentAttempt} from './state/payments.js'
import type {ReactionOptions} from './user/reactions.js'
import type {JoinRequestOptions, MemberChange} from './user/members.js'
import type {BusinessMessageOptions, ConnectOptions} from './user/business.js'
import type {BoostOptions} from './user/boosts.js'
import type {GuestOptions} from './user/guests.js'
import type {SharedWidgetQueryOptions, WidgetQueryOptions} from './user/widgets.js'
import type {SubscriptionOptions} from './user/subscriptions.js'
import type {StopGenerationOptions} from './user/generation.js'
import {noteInjected} from './state/injected.js'
import {isMessage, isObject} from './telegram.js'
import {type MessageView, botCard, chatHistory, chatList, fileContent, messageView, pollMessage} from './client-view.js'
import type {ChatScript} from './scripts/format.js'
import {type ChatScriptOptions, type ChatScriptResult, runScript} from './scripts/run.js'

export interface EmulatorEvents {
  /** Every recorded API call (HTTP or webhook reply). */
  call: [call: RecordedCall, token: string]
  /** Every update queued for a bot. */
  update: [update: Update, token: string]
  /** Every webhook POST attempt. */
  delivery: [event: DeliveryEvent]
}

export class BotApiEmulator extends EventEmitter<EmulatorEvents> {
  /** Start an emulator listening on loopback (by default a free port on 127.0.0.1). */
  static async start(options: EmulatorOptions = {}): Promise<BotApiEmulator> {
    const emulator = new BotApiEmulator(options)
    await emulator.listen(options.port ?? 0, options.host ?? '127.0.0.1')
    return emulator
  }

  /** `http://HOST:PORT`: pass it as BOT_API_ROOT / `--api-root` / the framework's api root. */
  apiRoot = ''
  /** The port the emulator listens on. */
  port = 0

  private readonly local: boolean
  private readonly timeScale: number
  /** options.preCheckoutWindowMs: the pre-checkout window, unscaled. */
  private readonly preCheckoutWindowMs: number | undefined
  /** The listening socket: the fast front (http/fast.ts), which hands what it does not read to `http`. */
  private readonly server: net.Server
  private readonly closeConnections: () => void
  /** Who may call it (http/guard.ts): set once it listens. */
  private readonly scope: Scope = {hosts: new Set(), port: 0}
  /** The bots by token (registry.ts). */
  private readonly bots: BotRegistry
  private readonly workers = new Map<BotState, WebhookWorker>()
  private readonly timers = new Set<NodeJS.Timeout>()
  private readonly core: Core
  private stopped = false
  /** Pending waitForBotMessage / conversation waits, rejected by stop(). */
  private readonly waits = new Set<(err: Error) => void>()
  /** Internal: updates confirmed by a getUpdates offset, webhook updates handled (reply included). */
  private readonly signals = new EventEmitter<{
    confirmed: [bot: BotState]
    handled: [bot: BotState, updateId: number, replied: boolean]
  }>()
  private userCount = 0
  /** What answers the paths that are not the Bot API's, the control API's or /file (servePage). */
  private page?: (req: http.IncomingMessage, res: http.ServerResponse, path: string, search: string) => Promise<void>
  /** Ids given to chat scripts' users and groups (scripts/run.ts): each run has its own. */
  private scriptIds = 0

  private constructor(private readonly options: EmulatorOptions) {
    super()
    this.local = options.local ?? true
    this.bots = new BotRegistry({
      ...options,
      allowPrivateUrls:
        options.allowPrivateUrls ?? (isLoopbackAddress(options.host ?? '127.0.0.1') || options.host === 'localhost'),
    })
    this.timeScale = options.timeScale ?? 1
    const window = options.preCheckoutWindowMs
    if (window !== undefined && !(Number.isFinite(window) && window > 0))
      throw new Error(`preCheckoutWindowMs ${String(window)} must be a positive number of ms`)
    this.preCheckoutWindowMs = window
    if (!(this.timeScale >= 0)) throw new Error(`timeScale ${String(options.timeScale)} must be a number ≥ 0`)
    const scale = (ms: number): number => ms * this.timeScale
    const startedAt = Date.now()
    this.core = {
      local: this.local,
      hosts: new Map(
        Object.entries(options.hosts ?? {}).map(([name, ip]) => [name.toLowerCase().replace(/\.$/, ''), ip]),
      ),
      startedAt,
      // timeScale 0 means "no waiting", not "no time to answer": the read timeout is then left unscaled
      readTimeoutMs:
        this.timeScale === 0
          ? (options.webhookReadTimeoutMs ?? 60_000)
          : Math.max(1, scale(options.webhookReadTimeoutMs ?? 60_000)),
      scale,
      floodClock:
        options.floodControl && this.timeScale > 0 ? () => performance.now() / this.timeScale : () => undefined,
      later: (fn, ms) => this.later(fn, ms),
      conflict: async (bot, description) => {
        if (Date.now() - bot.lastConflictAt < scale(3000)) await new Promise<void>((r) => this.later(r, scale(3000)))
        bot.lastConflictAt = Date.now()
        return new ApiError(409, description)
      },
      openWebhook: (bot) => {
        this.workers.get(bot)?.stop()
        if (bot.webhook) this.workers.set(bot, new WebhookWorker(bot, bot.webhook, this.core))
      },
      closeWebhook: (bot) => {
        this.workers.get(bot)?.stop()
        this.workers.delete(bot)
      },
      executeReply: async (bot, params) => {
        const method = (params.get('method') ?? '').toLowerCase()
        if (!runnableAsReply(method)) return false
        try {
          await this.invoke(bot, params.get('method') ?? '', params, NEVER_ABORTED, 'webhook-reply')
        } catch {
          // recorded with its error; a webhook reply's outcome goes nowhere else
        }
        return true
      },
      delivered: (event) => this.emit('delivery', event),
      confirmed: (bot) => this.signals.emit('confirmed', bot),
      handled: (bot, updateId, replied) => this.signals.emit('handled', bot, updateId, replied),
      inject: (bot, body) => this.injectUpdate(bot.token, body),
    }
    this.signals.setMaxListeners(0)
    this.setMaxListeners(0)
    const control = createControlHandler(this, {
      botFor: (token) => this.bots.find(token),
      onStop: (fail) => this.onStop(fail),
    })
    const router = {
      page: (req: http.IncomingMessage, res: http.ServerResponse, path: string, search: string) =>
        this.page ? this.page(req, res, path, search) : undefined,
      botFor: (token: string) => this.bots.forRequest(token, this.local),
      invoke: (bot: BotState, method: string, params: Params, onAbort: (fn: () => void) => () => void) =>
        this.invoke(bot, method, params, onAbort, 'http'),
      control,
      file: (token: string, filePath: string) => {
        const bot = this.bots.get(token)
        const file = bot && !bot.revoked ? bot.files.atPath(filePath) : undefined
        return file && bot ? bot.files.contentOf(file) : undefined
      },
    }
    // Node's HTTP server, never listening itself: it serves the connections the front hands over
    const fallback = http.createServer({keepAlive: true, keepAliveTimeout: 500_000}, createHandler(router, this.scope))
    fallback.headersTimeout = 0
    fallback.requestTimeout = 0
    const front = createFront(router, this.scope, fallback)
    this.closeConnections = front.closeAll
    // the socket options Node's HTTP server would give its connections (http.createServer above)
    this.server = net.createServer({allowHalfOpen: true, noDelay: true, keepAlive: true}, front.onConnection)
  }

  private listen(port: number, host: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject)
      this.server.listen(port, host, () => {
        this.server.off('error', reject)
        const address = this.server.address()
        // a TCP server's address (a pipe's is a string)
        if (address === null || typeof address === 'string') return reject(new Error('the emulator listens on no port'))
        this.port = address.port
        const scope = scopeFor(address.address, address.port, this.options.allowedHosts)
        this.scope.hosts = scope.hosts // undefined beyond loopback: any host name
        this.scope.names = scope.names
        this.scope.port = scope.port
        const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address
        this.apiRoot = `http://${shownHost}:${address.port}`
        resolve()
      })
    })
  }

  /** Close every connection, webhook worker and timer. Idempotent. */
  async stop(): Promise<void> {
    if (this.stopped) return
    this.stopped = true
    for (const fail of this.waits) fail(new Error('the emulator was stopped'))
    for (const worker of this.workers.values()) worker.stop()
    this.workers.clear()
    for (const timer of this.timers) clearTimeout(timer)
    this.timers.clear()
    // A bot's waiting getUpdates is answered (no updates), as a server going away gracefully does,
    // instead of its connection being cut: a bot stopping at the same time (a test's afterAll) logs no
    // "other side closed". The answers are written out before the connections close.
    let answered = false
    for (const bot of this.bots.all())
      if (bot.poll) {
        bot.poll.end()
        answered = true
      }
    if (answered) await new Promise<void>((resolve) => setTimeout(resolve, 20))
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve())
      this.closeConnections()
    })
  }

  // ---------------------------------------------------------------- bots

  /** Register a bot. Without `token`, a random well-formed token is made. */
  createBot(options: CreateBotOptions = {}): BotInfo {
    return this.bots.create(options)
  }

  /**
   * Revoke a token: later calls with it get 401 Unauthorized, its webhook stops and a waiting poll is answered.
   * Returns a new token for the same bot (id and username), as @BotFather does.
   */
  revokeToken(token: string): string {
    const bot = this.mustBot(token)
    bot.revoked = true
    this.core.closeWebhook(bot)
    bot.poll?.end()
    return this.bots.reissue(bot)
  }

  /** Forget every update, webhook, call, chat and message of every bot (tokens stay registered). */
  reset(): void {
    for (const bot of this.bots.all()) {
      this.core.closeWebhook(bot)
      bot.reset()
    }
  }

  // ---------------------------------------------------------------- updates in

  /**
   * Queue an update for the bot (delivered by its webhook, or answered to getUpdates). `body` is the update
   * without `update_id`, e.g. `{message: {...}}`. Chats it mentions become known to the bot. Returns the Update
   * with its new update_id; when the bot's allowed_updates exclude its type it is dropped (as Telegram does) and
   * the returned update_id is 0.
   */
  injectUpdate(token: string, body: TgObject): Update {
    const bot = this.mustBot(token)
    const business = body.business_message
    const connection = isObject(business)
      ? bot.business.connections.get(String(business.business_connection_id))
      : undefined
    if (connection && isMessage(business)) {
      bot.business.noteMessageId(connection.id, business.chat.id, business.message_id)
      bot.business.put(connection.id, business)
    }
    for (const key of ['message', 'edited_message', 'channel_post', 'edited_channel_post']) {
      const message = body[key]
      if (isMessage(message)) {
        bot.noteMessageId(message.chat.id, message.message_id)
        bot.storeMessage(message)
      }
    }
    const query = body.callback_query
    if (isObject(query) && typeof query.id === 'string') bot.openCallbackQueries.add(query.id)
    noteInjected(bot, body)
    noteUsers(bot, body)
    const update = bot.push(body)
    if (!update) return {update_id: 0, ...body}
    this.emit('update', update, token)
    return update
  }

  /** A text message from a user in a private chat (or a group when chatId < 0); `/commands` get bot_command entities. */
  sendUserMessage(token: string, options: UserMessageOptions): Update {
    return this.act(token, 'send_message', options)
  }

  /**
   * A media message from a user (photo, document, video, audio, voice, animation, sticker, video note) with the real
   * bytes: sizes and durations come from them, the file is stored for the bot (getFile and /file/bot… serve it).
   */
  sendUserMedia(token: string, options: UserMediaOptions): Update {
    return this.act(token, 'send_media', options)
  }

  /**
   * A press on an inline button: a callback_query on the bot's message `messageId` (default: the bot's latest
   * message in the chat). The bot answers it with answerCallbackQuery.
   */
  sendCallbackQuery(token: string, options: CallbackQueryOptions): Update {
    return this.act(token, 'press_button', options)
  }

  /**
   * A user votes in the bot's poll `pollId` (`optionIds` are option indexes; [] retracts): queues `poll_answer` for a
   * non-anonymous poll and the `poll` with its new counts. Returns the updates and the poll.
   */
  votePoll(token: string, pollId: string, options: VoteOptions): {updates: Update[]; poll: TgObject} {
    return this.act(token, 'vote_poll', {...options, pollId})
  }

  /**
   * The commands a user sees in a chat's menu, found as the Bot API documents it (BotCommandScope): the first list
   * set for the chat member, the chat's administrators (`isAdministrator`), the chat, all administrators, all group
   * or private chats, the default; each in the user's language first.
   */
  commandsFor(
    token: string,
    options: {chatId: number; userId?: number; languageCode?: string; isAdministrator?: boolean},
  ): TgObject[] {
    const userId = options.userId ?? (options.chatId > 0 ? options.chatId : 1111)
    const language = options.languageCode ?? (this.mustBot(token).users.known(userId)?.language_code || '')
    return this.mustBot(token).commandLists.visible(options.chatId, userId, language, options.isAdministrator)
  }

  /**
   * A user types an inline query (`@bot query`): queues the inline_query update. Only for a bot that supports
   * inline queries (createBot's or the emulator's `supportsInlineQueries`), as Telegram sends none otherwise.
   */
  sendInlineQuery(token: string, options: InlineQueryOptions): Update {
    return this.act(token, 'inline_query', options)
  }

  /** The bot's answer to an inline query (answerInlineQuery's results, cache_time…), or undefined before it answered. */
  inlineAnswer(token: string, queryId: string): TgObject | undefined {
    return this.mustBot(token).inline.queries.get(queryId)?.answer
  }

  /** The user picks result `resultId` of the answer: queues chosen_inline_result (with inline_message_id when it has a keyboard). */
  chooseInlineResult(token: string, queryId: string, resultId: string): Update {
    return this.act(token, 'choose_inline_result', {queryId, resultId})
  }

  /** Make a chat known to the bot (so sendMessage to it works without a prior update from it). */
  addChat(token: string, chat: TgObject & {id: number; type: string}): void {
    this.mustBot(token).rememberChat(chat)
  }

  // ---------------------------------------------------------------- what a client shows (client-view.ts)

  /**
   * Serve a web page beside the Bot API: every GET or POST whose path is not `/bot…`, `/file/bot…` or `/_emulator…`
   * goes to `handler` (after the emulator's Host and cross-site checks). `bot emulator` serves the chat page so.
   */
  servePage(
    handler:
      | ((req: http.IncomingMessage, res: http.ServerResponse, path: string, search: string) => Promise<void>)
      | undefined,
  ): void {
    this.page = handler
  }

  /** The chats the bot knows (Chat objects), in the order it met them. */
  chatList(token: string): TgObject[] {
    return chatList(this.mustBot(token))
  }

  /** A chat's messages as a client shows them now (edits applied, deleted ones gone, polls and reactions current). */
  chatHistory(token: string, chatId: number, options: {limit?: number; before?: number} = {}): MessageView[] {
    return chatHistory(this.mustBot(token), chatId, options)
  }

  /** One message as a client shows it now, or undefined when there is none (deleted). */
  messageView(token: string, chatId: number, messageId: number): MessageView | undefined {
    return messageView(this.mustBot(token), chatId, messageId)
  }

  /** The chat and message of the bot's poll. */
  pollMessage(token: string, pollId: string): {chatId: number; messageId: number} | undefined {
    return pollMessage(this.mustBot(token), pollId)
  }

  /** The bot as a user sees it in a chat: {user, name, description, short_description, menu_button, commands}. */
  botCard(token: string, options: {chatId: number; userId: number; languageCode?: string}): TgObject {
    return botCard(this.mustBot(token), options)
  }

  /** The bytes of one of the bot's files (by file_id), with its type and name. */
  fileContent(token: string, fileId: string): {data: Buffer; mime?: string; name?: string; kind: string} | undefined {
    return fileContent(this.mustBot(token), fileId)
  }

  // ---------------------------------------------------------------- failure injection

  /**
   * The next `times` (default 1) calls of `method` answer this error instead of running: `description` verbatim,
   * `parameters.retry_after` (plus the `Retry-After` header) and `parameters.migrate_to_chat_id` when given.
   */
  failNext(token: string, method: string, fault: FaultSpec): void {
    checkFaultSpec(fault, 'failNext')
    if (typeof method !== 'string' || !/^[A-Za-z]+$/.test(method))
      throw new Error(`failNext: method ${JSON.stringify(method)} must be a Bot API method name such as sendMessage`)
    this.mustBot(token).faults.failNext(method, fault)
  }

  /**
   * The user of private chat `chatId` blocks the bot: sends to the chat get `403 Forbidden: bot was blocked by the
   * user`, and a `my_chat_member` update (the bot's status `member` → `kicked`) is queued. Returns that update.
   */
  blockBot(token: string, chatId: number): Update {
    return this.act(token, 'block_bot', {chatId})
  }

  /** The user unblocks the bot: sends work again; a `my_chat_member` update back to `member` is queued. */
  unblockBot(token: string, chatId: number): Update {
    return this.act(token, 'unblock_bot', {chatId})
  }

  /**
   * The basic group `chatId` is upgraded to a supergroup: sends to the old id get `400 Bad Request: group chat was
   * upgraded to a supergroup chat` with `parameters.migrate_to_chat_id`; the new chat is known to the bot. Returns
   * the supergroup's id (`-100…`).
   */
  migrateChat(token: string, chatId: number, options: {toChatId?: number} = {}): number {
    return migrate(this.mustBot(token), chatId, options.toChatId)
  }

  /** The user's account is deleted: sends to their private chat get `403 Forbidden: user is deactivated`. */
  deactivateUser(token: string, userId: number): void {
    if (!Number.isSafeInteger(userId) || userId <= 0)
      throw new Error(`deactivateUser: user ${String(userId)} must be a user id (a positive integer)`)
    this.mustBot(token).faults.deactivated.add(String(userId))
  }

  // ---------------------------------------------------------------- conversation API

  /**
   * A user who talks to the bot: `await user.send('/start')` resolves with the bot's messages once the bot has
   * handled the update; `await user.click('Yes')` presses a button; `user.chat` is the chat as the user sees it.
   */
  user(token: string, options: ConversationOptions = {}): ConversationUser {
    const bot = this.mustBot(token)
    this.userCount += 1
    const id = options.id ?? 100_000 + this.userCount
    return new ConversationUser(
      {
        token,
        bot,
        calls: this,
        signals: this.signals,
        onStop: (fail) => this.onStop(fail),
        injectUpdate: (t, body) => this.injectUpdate(t, body),
        act: (name, input) => this.act(token, name, input),
      },
      {...options, id},
    )
  }

  /**
   * Play a chat script (scripts/format.ts; parsed, or its YAML text) against the bot: each acting step runs a user
   * action of the table and waits until the bot has handled it; `bot:`, `call:` and `silence:` steps check what it
   * did. The script gets users and chats of its own, so runs in parallel do not see each other. Resolves with the
   * outcome (failures with the step's line, expected and actual); rejects only on a script that cannot be read
   * (a ChatScriptError with its line and column).
   */
  runChatScript(
    token: string,
    script: ChatScript | string,
    options: ChatScriptOptions = {},
  ): Promise<ChatScriptResult> {
    const bot = this.mustBot(token)
    return runScript(
      {
        token,
        bot,
        events: this,
        signals: this.signals,
        onStop: (fail) => this.onStop(fail),
        runAction: (name, input) => this.runAction(token, name, input),
        freshId: (kind) => {
          this.scriptIds += 1
          const n = this.scriptIds
          if (kind === 'user') return 7_000_000_000 + n
          return kind === 'group' ? -(4_000_000_000 + n) : -(1_007_000_000_000 + n)
        },
      },
      script,
      options,
    )
  }

  /**
   * Describe a user once (name, username, language, premium): every later update from them (messages, button
   * presses, inline queries, votes) carries this profile unless the call says otherwise. Returns the User.
   */
  setUser(token: string, userId: number, profile: UserProfileOptions): TgObject {
    if (!Number.isSafeInteger(userId) || userId <= 0)
      throw new Error(`setUser: user ${String(userId)} must be a user id (a positive integer)`)
    return this.mustBot(token).users.update(userId, profile)
  }

  /** The control API's base URL: `${apiRoot}/_emulator` (see docs/emulator.md). */
  get controlApiRoot(): string {
    return `${this.apiRoot}/_emulator`
  }

  // ---------------------------------------------------------------- what happened

  /** Every recorded API call of the bot, oldest first. */
  calls(token: string): RecordedCall[] {
    return [...this.mustBot(token).calls]
  }

  /** Outgoing calls only (send*, edit*, deleteMessage, answer*, copy*, forward*…), with their results or errors. */
  sentMessages(token: string, options: {chatId?: number | string} = {}): RecordedCall[] {
    return this.mustBot(token).calls.filter((c) => isOutgoing(c.method) && chatMatches(c, options.chatId))
  }

  /**
   * The next successful outgoing call (optionally in `chatId` and matching `predicate`) not yet returned by an
   * earlier waitForBotMessage: already recorded ones first, else the next to come. Rejects after `timeoutMs`
   * (default 5000).
   */
  waitForBotMessage(token: string, options: WaitOptions = {}): Promise<RecordedCall> {
    return waitForCall(this, this.mustBot(token), options, (fail) => this.onStop(fail))
  }

  /** Updates still in the bot's queue (unconfirmed by getUpdates / unacknowledged by the webhook). */
  pendingUpdates(token: string): Update[] {
    const bot = this.mustBot(token)
    bot.dropExpired()
    return [...bot.queue.values()].map((e) => e.update)
  }

  /** True while a getUpdates request of the bot is waiting (a long poll in progress). */
  isLongPolling(token: string): boolean {
    return this.mustBot(token).poll !== undefined
  }

  /** The webhook as set (including its secret), or undefined in long-polling mode. */
  webhook(token: string): WebhookState | undefined {
    const bot = this.mustBot(token)
    const w = bot.webhook
    if (!w) return undefined
    const allowedUpdates = allowedUpdatesList(bot.allowed)
    return {
      url: w.url,
      maxConnections: w.maxConnections,
      hasCustomCertificate: w.hasCustomCertificate,
      ...(w.secretToken ? {secretToken: w.secretToken} : {}),
      ...(allowedUpdates ? {allowedUpdates} : {}),
      ...(w.ipAddress ? {ipAddress: w.ipAddress} : {}),
    }
  }

  /** The WebhookInfo object getWebhookInfo would answer now. */
  getWebhookInfo(token: string): Record<string, unknown> {
    return webhookInfo(this.mustBot(token))
  }

  // ---------------------------------------------------------------- the table of user actions (actions/index.ts)

  /** Every user action: its name, one-line description, parameters (a JSON Schema object), result and route. */
  actions(): ActionInfo[] {
    return listActions()
  }

  /**
   * Run the user action `name` with input as JSON carries it (snake_case, unchecked, e.g. from an MCP tool or a
   * chat script): checked by the table, run, and its result as JSON (as the control API answers). Rejects with an
   * InputError in our words (`status` 400, or 404 for an unknown action or a missing poll or inline query).
   */
  runAction(token: string, name: string, input: unknown, path: Record<string, string> = {}): Promise<unknown> {
    return invokeAction(this.actionContext(this.mustBot(token)), name, input, path)
  }

  /**
   * Run the user action `name` with its options as JavaScript takes them (camelCase, typed by TypeScript and not
   * checked again), e.g. `emu.act(token, 'boost_chat', {chatId: -1001})`: the action's result. Every action of
   * the table is reached this way; the named methods (sendUserMessage, boostChat…) are the same calls.
   */
  act<K extends ActionName>(token: string, name: K, input: ActionInput<K>): ActionResult<K> {
    return ACTIONS[name].run(this.actionContext(this.mustBot(token)), input)
  }

  private actionContext(bot: BotState): ActionContext {
    return {
      bot,
      inject: (body) => this.injectUpdate(bot.token, body),
      payments: (injectPaid) => this.paymentHost(bot, injectPaid),
      window: (ms) => (this.timeScale === 0 ? ms : this.core.scale(ms)),
    }
  }

  // ---------------------------------------------------------------- internals

  private later(fn: () => void, ms: number): () => void {
    if (this.stopped) return () => undefined
    const timer = setTimeout(
      () => {
        this.timers.delete(timer)
        try {
          fn()
        } catch {
          // a timer's work (a retry, a poll's end, a payment window) never takes the process down
        }
      },
      Math.max(0, ms),
    )
    this.timers.add(timer)
    return () => {
      clearTimeout(timer)
      this.timers.delete(timer)
    }
  }

  private onStop(fail: (err: Error) => void): () => void {
    this.waits.add(fail)
    return () => this.waits.delete(fail)
  }

  private mustBot(token: string): BotState {
    return this.bots.must(token)
  }

  private invoke(
    bot: BotState,
    method: string,
    params: Params,
    onAbort: (fn: () => void) => () => void,
    source: RecordedCall['source'],
  ): Answer | Promise<Answer> {
    return dispatch(bot, method, params, {
      core: this.core,
      onAbort,
      source,
      recorded: (call) => this.emit('call', call, bot.token),
    })
  }

  // ---------------------------------------------------------------- payments (docs/emulator.md, "Payments")

  /**
   * The user pays an invoice (a message of the bot, or an invoice link): a shipping_query for a flexible invoice
   * paid with a provider, then a pre_checkout_query the bot must answer within 10 s (times timeScale), then on
   * `ok: true` the successful_payment message. Resolves with the attempt once settled: `status` is 'paid',
   * 'refused' (the bot's error_message in `errorMessage`), 'timeout', 'shipping_refused'… Throws at once when there
   * is nothing to pay (no such invoice, already paid).
   */
  payInvoice(token: string, options: PayOptions): Promise<PaymentAttempt> {
    return this.act(token, 'pay_invoice', options)
  }

  /** Every payment attempt of the bot's users, oldest first, with its outcome. */
  payments(token: string): PaymentAttempt[] {
    return [...this.mustBot(token).payments.attempts]
  }

  /**
   * The next period of a Stars subscription is paid now (as Telegram does when a period ends): a successful_payment
   * with `is_recurring`. Throws when the bot canceled it with editUserStarSubscription. Returns the new charge id.
   */
  renewSubscription(token: string, chargeId: string): {chargeId: string; message: TgObject} {
    return this.act(token, 'renew_subscription', {chargeId})
  }

  /** A user buys the paid media of the bot's message: a Star transaction, and a purchased_paid_media update. */
  buyPaidMedia(
    token: string,
    options: {chatId: number; messageId: number; userId?: number},
  ): {update_id: number; transaction?: TgObject} {
    return this.act(token, 'buy_paid_media', options)
  }

  // ---------------------------------------------------------------- reactions (docs/emulator.md, "Reactions")

  /**
   * A user reacts to a message: a `message_reaction` update (a `message_reaction_count` one in a channel). Returns
   * the Update, or `{update_id: 0, reason}` when Telegram would send none: the bot is no administrator of the group
   * or channel, or its allowed_updates leave the type out (both reaction types are off unless asked for).
   */
  react(token: string, options: ReactionOptions): Update & {reason?: string} {
    return this.act(token, 'react', options)
  }

  // ---------------------------------------------------------------- membership (docs/emulator.md, "Joining and membership")

  /**
   * A member's status changes in a group or channel: `member` (joined, through `inviteLink` if given), `left`,
   * `kicked`, `restricted`, `administrator`, `creator`. Queues the chat_member update (for a bot that administers
   * the chat and asked for chat_member) and the service message of a join or departure. Returns the updates, a
   * dropped one with update_id 0.
   */
  setMemberStatus(token: string, change: MemberChange): Update[] {
    return this.act(token, 'set_member_status', change)
  }

  /** A user joins a group or channel (as setMemberStatus with status `member`). */
  joinChat(token: string, change: Omit<MemberChange, 'status'>): Update[] {
    return this.act(token, 'join_chat', change)
  }

  /** A user leaves a group or channel (as setMemberStatus with status `left`). */
  leaveChat(token: string, change: Omit<MemberChange, 'status'>): Update[] {
    return this.act(token, 'leave_chat', change)
  }

  /**
   * A user asks to join (a join-request invite link): a `chat_join_request` update, answered by the bot with
   * approveChatJoinRequest / declineChatJoinRequest (or, with `withQuery`, Bot API 10.1's
   * answerChatJoinRequestQuery within 10 s times timeScale). `{update_id: 0, reason}` when the bot gets none.
   */
  requestJoin(token: string, options: JoinRequestOptions): Update & {reason?: string} {
    return this.act(token, 'request_join', options)
  }

  /** The bot is added to, promoted in or removed from a group or channel: a my_chat_member update (and more). */
  setBotStatus(token: string, change: Omit<MemberChange, 'userId' | 'inviteLink' | 'customTitle'>): Update[] {
    return this.act(token, 'set_bot_status', change)
  }

  /** What the emulator knows of a chat's members: their ChatMember, the invite links, the pending join requests. */
  chatMembers(token: string, chatId: number): {members: TgObject[]; inviteLinks: TgObject[]; joinRequests: TgObject[]} {
    const bot = this.mustBot(token)
    return {
      members: bot.members.all(chatId),
      inviteLinks: [...bot.members.links.values()].filter((l) => l.chatId === chatId).map((l) => l.link),
      joinRequests: [...bot.members.requests.values()]
        .filter((r) => r.chatId === chatId)
        .map((r) => ({
          user: r.user,
          date: r.date,
          ...(r.bio ? {bio: r.bio} : {}),
          ...(r.inviteLink ? {invite_link: r.inviteLink} : {}),
          ...(r.queryId ? {query_id: r.queryId} : {}),
        })),
    }
  }

  // ---------------------------------------------------------------- business (docs/emulator.md, "Business connections")

  /**
   * A business account connects the bot (default: user 2222, rights can_reply and can_read_messages): a
   * `business_connection` update. Returns the BusinessConnection and the update.
   */
  connectBusiness(token: string, options: ConnectOptions = {}): {connection: TgObject; update: Update} {
    return this.act(token, 'connect_business', options)
  }

  /** The connection's rights change, or it is disabled (`isEnabled: false`) or enabled again: a business_connection update. */
  editBusinessConnection(
    token: string,
    id: string,
    change: {rights?: string[]; isEnabled?: boolean},
  ): {connection: TgObject; update: Update} {
    return this.act(token, 'edit_business_connection', {...change, id})
  }

  /** A customer (or, `fromOwner`, the account itself) writes in a business chat: a `business_message` update. */
  sendBusinessMessage(token: string, options: BusinessMessageOptions): Update {
    return this.act(token, 'send_business_message', options)
  }

  /** A message of a business chat is edited: an `edited_business_message` update. */
  editBusinessMessage(
    token: string,
    options: {connectionId: string; chatId: number; messageId: number; text: string},
  ): Update {
    return this.act(token, 'edit_business_message', options)
  }

  /** Messages of a business chat are deleted: a `deleted_business_messages` update. */
  deleteBusinessMessages(token: string, options: {connectionId: string; chatId: number; messageIds: number[]}): Update {
    return this.act(token, 'delete_business_messages', options)
  }

  // ---------------------------------------------------------------- boosts and Mini Apps (docs/emulator.md)

  /**
   * A user boosts a channel or supergroup: a `chat_boost` update (for a bot that administers it) and, in a
   * supergroup, the `boost_added` service message. Returns the updates queued.
   */
  boostChat(token: string, options: BoostOptions): Update[] {
    return this.act(token, 'boost_chat', options)
  }

  /** A boost is taken back: a `removed_chat_boost` update (update_id 0 when the bot administers no such chat). */
  removeChatBoost(token: string, options: {chatId: number; boostId: string}): Update {
    return this.act(token, 'remove_chat_boost', options)
  }

  /** A Mini App opened from a keyboard button sends data: a `web_app_data` message from the user. */
  sendWebAppData(token: string, options: {userId?: number; data: string; buttonText: string}): Update {
    return this.act(token, 'send_web_app_data', options)
  }

  /** A Mini App is opened with a query (inline button, menu): the query_id the bot answers with answerWebAppQuery. */
  openWebApp(token: string, options: {userId?: number; chatId?: number} = {}): string {
    return this.act(token, 'open_web_app_query', options)
  }

  /**
   * Guest mode (Bot API 10.0): a user summons the bot in a chat it is not in: a `guest_message` with
   * `guest_query_id`, answered with answerGuestQuery. The bot must be created with `supportsGuestQueries`.
   */
  summonGuest(token: string, options: GuestOptions): Update {
    return this.act(token, 'summon_guest', options)
  }

  /** A user's widget asks the bot (Bot API 10.4): a widget_query from the bot's widget message, answered with answerWidgetQuery. */
  sendWidgetQuery(token: string, options: WidgetQueryOptions): Update {
    return this.act(token, 'widget_query', options)
  }

  /** A forwarded shared widget asks the bot (Bot API 10.4): a shared_widget_query. */
  sendSharedWidgetQuery(token: string, options: SharedWidgetQueryOptions): Update {
    return this.act(token, 'shared_widget_query', options)
  }

  /** What the bot answered to a widget query (answerWidgetQuery's data, '' for none), or undefined before it answered. */
  widgetAnswer(token: string, queryId: string): string | undefined {
    return this.mustBot(token).widgets.queries.get(queryId)?.answer
  }

  /** A user's payment subscription changes (Bot API 10.2): the subscription update (canceled, active, failed). */
  updateSubscription(token: string, options: SubscriptionOptions): Update {
    return this.act(token, 'update_subscription', options)
  }

  /** A user presses a draft's stop button (Bot API 10.3): the stopped_message_generation update. */
  stopGeneration(token: string, options: StopGenerationOptions): Update {
    return this.act(token, 'stop_generation', options)
  }

  /** The ephemeral messages the bot sent that are still shown (Bot API 10.2), oldest first. */
  ephemeralMessages(token: string): TgObject[] {
    return this.mustBot(token)
      .ephemeral.all()
      .map((e) => e.message)
  }

  /** What the payment flow needs: injection, timers cleared by stop(), the 10-second window scaled. */
  private paymentHost(bot: BotState, injectPaid?: (body: TgObject) => Update): PaymentHost {
    // a stopped emulator has no timers left: a payment would wait forever for its window to close
    if (this.stopped) throw new Error('the emulator was stopped')
    const windowMs =
      this.preCheckoutWindowMs ??
      (this.timeScale === 0 ? PRE_CHECKOUT_WINDOW_MS : this.core.scale(PRE_CHECKOUT_WINDOW_MS))
    return {
      bot,
      inject: (body) => this.injectUpdate(bot.token, body),
      ...(injectPaid ? {injectPaid} : {}),
      later: (fn, ms) => this.later(fn, ms),
      windowMs,
      onStop: (fail) => this.onStop(fail),
    }
  }
}

/** "The Bot API must receive an answer within 10 seconds after the pre-checkout query was sent" (DOC). */
const PRE_CHECKOUT_WINDOW_MS = 10_000

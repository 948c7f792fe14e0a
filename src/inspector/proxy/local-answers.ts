/**
 * Calls the api proxy answers itself instead of forwarding them: those about what only this session
 * made up. A synthetic update of `bot trigger` carries ids Telegram never issued (a callback query,
 * an inline, shipping or pre-checkout query, a file, a Stars charge), so Telegram would answer the
 * bot's answerCallbackQuery with "query is too old…", its getFile with "wrong file_id" and grammY
 * would throw. For those ids, and only those, the proxy answers as Telegram would have for a real
 * one: a query once (a second answer gets Telegram's "query is too old" text), getFile with the
 * file's path, the file itself under /file/bot<token>/<path>, a refund once, the approval or
 * decline of a made-up join request once. Each such call is still
 * recorded, marked `answeredLocally`. Bounded: 1000 ids, 32 files of 64 MiB in all, an hour each.
 */
import {randomBytes} from 'node:crypto'

export type QueryKind = 'callback_query' | 'inline_query' | 'shipping_query' | 'pre_checkout_query'

/** The method that answers each kind of query, and the parameter naming it. */
const ANSWERS: Record<string, {kind: QueryKind; param: string}> = {
  answercallbackquery: {kind: 'callback_query', param: 'callback_query_id'},
  answerinlinequery: {kind: 'inline_query', param: 'inline_query_id'},
  answershippingquery: {kind: 'shipping_query', param: 'shipping_query_id'},
  answerprecheckoutquery: {kind: 'pre_checkout_query', param: 'pre_checkout_query_id'},
}

/**
 * Telegram's answer to a query answered twice, too late, or unknown (Client.cpp fail_query_with_error,
 * QUERY_ID_INVALID).
 */
export const QUERY_INVALID = 'Bad Request: query is too old and response timeout expired or query ID is invalid'

/** How the bot answered a synthetic query (its parameters, as sent). */
export type QueryAnswer = Record<string, unknown>

/** A local answer: the HTTP status and the Bot API envelope. */
export interface LocalReply {
  status: number
  envelope: {ok: boolean; result?: unknown; error_code?: number; description?: string}
}

interface Query {
  kind: QueryKind
  at: number
  answered: boolean
  waiters: Array<(answer: QueryAnswer) => void>
  answer?: QueryAnswer
}

interface StoredFile {
  bytes: Buffer
  path: string
  uniqueId: string
  mime: string
  at: number
}

const MAX_IDS = 1000
const MAX_FILES = 32
const MAX_FILE_BYTES = 64 * 1024 * 1024
const LIFETIME_MS = 60 * 60 * 1000

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  return undefined
}

function truthy(value: unknown): boolean {
  return value === true || value === 'true' || value === 1 || value === '1' || value === 'True'
}

export class LocalAnswers {
  readonly #queries = new Map<string, Query>()
  readonly #files = new Map<string, StoredFile>()
  readonly #byPath = new Map<string, string>()
  readonly #charges = new Map<string, {at: number; refunded: boolean}>()
  /** `chat:user` of synthetic join requests, and whether the bot settled them. */
  readonly #joinRequests = new Map<string, {at: number; settled: boolean}>()
  readonly #now: () => number

  constructor(o: {now?: () => number} = {}) {
    this.#now = o.now ?? Date.now
  }

  /** A synthetic query the bot may answer; its answer is given here and to `waitFor`'s callers. */
  addQuery(kind: QueryKind, id: string): void {
    this.#prune()
    this.#queries.set(id, {kind, at: this.#now(), answered: false, waiters: []})
    while (this.#queries.size > MAX_IDS) this.#queries.delete(this.#queries.keys().next().value as string)
  }

  /** The bot's answer to a synthetic query: resolves with its parameters, or undefined after `ms`. */
  waitFor(id: string, ms: number): Promise<QueryAnswer | undefined> {
    const query = this.#queries.get(id)
    if (!query) return Promise.resolve(undefined)
    if (query.answer) return Promise.resolve(query.answer)
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(undefined), ms)
      timer.unref()
      query.waiters.push((answer) => {
        clearTimeout(timer)
        resolve(answer)
      })
    })
  }

  /** The answer a query got elsewhere (a webhook reply, which never reaches the proxy). */
  answeredElsewhere(id: string, params: QueryAnswer): void {
    const query = this.#queries.get(id)
    if (query && !query.answered) this.#settle(query, params)
  }

  /** A made-up Stars charge the bot may refund. */
  addCharge(chargeId: string): void {
    this.#charges.set(chargeId, {at: this.#now(), refunded: false})
    while (this.#charges.size > MAX_IDS) this.#charges.delete(this.#charges.keys().next().value as string)
  }

  /** A made-up join request the bot may approve or decline. */
  addJoinRequest(chatId: number, userId: number): void {
    this.#joinRequests.set(`${chatId}:${userId}`, {at: this.#now(), settled: false})
    while (this.#joinRequests.size > MAX_IDS)
      this.#joinRequests.delete(this.#joinRequests.keys().next().value as string)
  }

  /** Keeps a file for getFile and its download; returns its file_id and file_unique_id. */
  addFile(bytes: Buffer, o: {extension: string; mime: string}): {fileId: string; uniqueId: string; path: string} {
    this.#prune()
    const fileId = `AgAC${randomBytes(24).toString('base64url')}`
    const uniqueId = `AQAD${randomBytes(9).toString('base64url')}`
    const path = `photos/file_${randomBytes(6).toString('hex')}.${o.extension}`
    this.#files.set(fileId, {bytes, path, uniqueId, mime: o.mime, at: this.#now()})
    this.#byPath.set(path, fileId)
    let total = 0
    for (const f of this.#files.values()) total += f.bytes.length
    for (const [oldId, f] of this.#files) {
      if (this.#files.size <= MAX_FILES && total <= MAX_FILE_BYTES) break
      if (oldId === fileId) continue
      total -= f.bytes.length
      this.#files.delete(oldId)
      this.#byPath.delete(f.path)
    }
    return {fileId, uniqueId, path}
  }

  /** The proxy's local answer to a call, or undefined to forward it. */
  answer(method: string, params: Record<string, unknown>): LocalReply | undefined {
    const m = method.toLowerCase()
    const query = ANSWERS[m]
    if (query) {
      const id = text(params[query.param])
      const known = id === undefined ? undefined : this.#queries.get(id)
      if (!known || known.kind !== query.kind) return undefined
      if (known.answered) return failed(400, QUERY_INVALID)
      if (m === 'answerprecheckoutquery' || m === 'answershippingquery') {
        if (params.ok === undefined) return failed(400, 'Bad Request: parameter "ok" is required')
        if (!truthy(params.ok) && !text(params.error_message))
          return failed(400, 'Bad Request: parameter "error_message" is required')
      }
      this.#settle(known, params)
      return {status: 200, envelope: {ok: true, result: true}}
    }
    if (m === 'getfile') {
      const id = text(params.file_id)
      const file = id === undefined ? undefined : this.#files.get(id)
      if (!file || id === undefined) return undefined
      return {
        status: 200,
        envelope: {
          ok: true,
          result: {file_id: id, file_unique_id: file.uniqueId, file_size: file.bytes.length, file_path: file.path},
        },
      }
    }
    if (m === 'approvechatjoinrequest' || m === 'declinechatjoinrequest') {
      const request = this.#joinRequests.get(`${text(params.chat_id)}:${text(params.user_id)}`)
      if (!request) return undefined
      // Settled once; Telegram then has no request to hide (core.telegram.org/method/messages.hideChatJoinRequest).
      if (request.settled) return failed(400, 'Bad Request: HIDE_REQUESTER_MISSING')
      request.settled = true
      return {status: 200, envelope: {ok: true, result: true}}
    }
    if (m === 'refundstarpayment') {
      const id = text(params.telegram_payment_charge_id)
      const charge = id === undefined ? undefined : this.#charges.get(id)
      if (!charge) return undefined
      if (charge.refunded) return failed(400, 'Bad Request: CHARGE_ALREADY_REFUNDED')
      charge.refunded = true
      return {status: 200, envelope: {ok: true, result: true}}
    }
    return undefined
  }

  /** A file kept here, by the file_path getFile gave (the part after /file/bot<token>/). */
  file(path: string): {bytes: Buffer; mime: string} | undefined {
    const fileId = this.#byPath.get(path)
    const file = fileId === undefined ? undefined : this.#files.get(fileId)
    return file ? {bytes: file.bytes, mime: file.mime} : undefined
  }

  #settle(query: Query, params: QueryAnswer): void {
    query.answered = true
    query.answer = params
    for (const waiter of query.waiters.splice(0)) waiter(params)
  }

  #prune(): void {
    const oldest = this.#now() - LIFETIME_MS
    for (const [id, q] of this.#queries) if (q.at < oldest && q.waiters.length === 0) this.#queries.delete(id)
    for (const [id, f] of this.#files)
      if (f.at < oldest) {
        this.#files.delete(id)
        this.#byPath.delete(f.path)
      }
  }
}

function failed(code: number, description: string): LocalReply {
  return {status: code, envelope: {ok: false, error_code: code, description}}
}

/**
 * The emulator's bots by token: registering one, giving a revoked bot a new token (same id and
 * username, as @BotFather does), and which bot a token reaches: from the library and the control
 * API (with acceptAnyToken, a well-formed unknown token registers a bot), or from a Bot API request
 * (a malformed token is 404, an unknown or revoked one 401, as Telegram answers).
 */
import {randomBytes, randomInt} from 'node:crypto'
import {BotState} from './bot.js'
import {ApiError, notFound, unauthorized} from '../errors.js'
import type {BotInfo, CreateBotOptions, EmulatorOptions} from '../types.js'

/** A token the official front-end would route: `<bot id>:<24+ base64url characters>`, at most 80 characters. */
const WELL_FORMED = /^[1-9]\d{0,15}:[A-Za-z0-9_-]{24,}$/

function wellFormed(token: string): boolean {
  return WELL_FORMED.test(token) && token.length <= 80
}

export class BotRegistry {
  readonly #bots = new Map<string, BotState>()
  readonly #o: Pick<
    EmulatorOptions,
    'acceptAnyToken' | 'firstUpdateId' | 'lifetimeScale' | 'supportsInlineQueries' | 'allowPrivateUrls'
  >
  #count = 0

  constructor(
    options: Pick<
      EmulatorOptions,
      'acceptAnyToken' | 'firstUpdateId' | 'lifetimeScale' | 'supportsInlineQueries' | 'allowPrivateUrls'
    >,
  ) {
    this.#o = options
  }

  /** Every bot ever registered (revoked ones included). */
  all(): IterableIterator<BotState> {
    return this.#bots.values()
  }

  /** Register a bot. Without `token`, a random well-formed token is made. */
  create(options: CreateBotOptions = {}): BotInfo {
    const token = options.token ?? randomToken()
    if (!wellFormed(token)) {
      throw new Error('createBot: the token must look like "<bot id>:<24+ characters of A-Z a-z 0-9 _ ->"')
    }
    if (this.#bots.has(token) && !this.#bots.get(token)!.revoked)
      throw new Error('createBot: this token is already registered')
    const id = Number(token.slice(0, token.indexOf(':')))
    this.#count += 1
    const username = options.username ?? `test${this.#count}_bot`
    const bot = new BotState(
      token,
      {
        id,
        username,
        firstName: options.firstName ?? 'Test Bot',
        lastName: options.lastName,
        canJoinGroups: options.canJoinGroups ?? true,
        canReadAllGroupMessages: options.canReadAllGroupMessages ?? false,
        supportsInlineQueries: options.supportsInlineQueries ?? this.#o.supportsInlineQueries ?? false,
        supportsGuestQueries: options.supportsGuestQueries,
        supportsJoinRequestQueries: options.supportsJoinRequestQueries,
      },
      this.#o.firstUpdateId ?? randomInt(100_000_000, 1_000_000_000),
    )
    bot.lifetimeScale = this.#o.lifetimeScale ?? 1
    bot.privateUrls = this.#o.allowPrivateUrls ?? true
    this.#bots.set(token, bot)
    return {token, id, username}
  }

  /** A new token for a (revoked) bot: same id, username and first name. */
  reissue(bot: BotState): string {
    let fresh = randomToken(bot.id)
    while (this.#bots.has(fresh)) fresh = randomToken(bot.id)
    this.create({
      token: fresh,
      username: bot.user.username,
      firstName: bot.user.first_name,
      supportsInlineQueries: bot.user.supports_inline_queries === true,
    })
    return fresh
  }

  /** The bot registered under `token` (revoked ones too), if any. */
  get(token: string): BotState | undefined {
    return this.#bots.get(token)
  }

  /** The same for the library and the control API: with acceptAnyToken a well-formed token registers its bot. */
  find(token: string): BotState | undefined {
    return this.get(token) ?? (this.#o.acceptAnyToken ? this.#tryBot(token) : undefined)
  }

  /** The same, or throw (a library call with a token nobody registered). */
  must(token: string): BotState {
    const bot = this.find(token)
    if (bot) return bot
    throw new Error('BotApiEmulator: unknown token (create the bot with createBot first)')
  }

  /**
   * The bot a Bot API request reaches, or the ApiError Telegram answers: 401 for an unknown or revoked token; for a
   * malformed one, api.telegram.org's 404 under cloud rules, the local server's own checks under local rules.
   */
  forRequest(token: string, local = false): BotState {
    // a registered token is well formed (create) and passes the local server's checks too (an id of at most 16
    // digits is below 2^54): it is looked up first, without the checks, on every call's hot path
    const known = this.#bots.get(token)
    if (known) {
      if (known.revoked) throw unauthorized()
      return known
    }
    if (local) {
      const refused = localTokenRefusal(token)
      if (refused) throw refused
    }
    if (!wellFormed(token)) throw local ? unauthorized() : notFound()
    if (this.#o.acceptAnyToken) return this.must(token)
    throw unauthorized()
  }

  /** With acceptAnyToken: the bot of a well-formed token, created on first use. */
  #tryBot(token: string): BotState | undefined {
    if (!wellFormed(token)) return undefined
    if (!this.#bots.has(token)) this.create({token})
    return this.#bots.get(token)
  }
}

/**
 * telegram-bot-api ClientManager.cpp `ClientManager::send`, before it looks the token up: a token starting with 0,
 * longer than 80 bytes, holding a `/` or no `:` is `401 Unauthorized: invalid token specified`; a bot id that is not
 * an int64 as td::to_integer_safe reads it (exactly its decimal form) is `421 Misdirected Request: unallowed token
 * specified`; an id ≤ 0 or ≥ 2^54 is 401 again. A token that passes but that Telegram does not know is `401
 * Unauthorized` (the server's login fails).
 */
function localTokenRefusal(token: string): ApiError | undefined {
  const invalid = (): ApiError => new ApiError(401, 'Unauthorized: invalid token specified')
  if (token.startsWith('0') || Buffer.byteLength(token) > 80 || token.includes('/') || !token.includes(':'))
    return invalid()
  const idText = token.slice(0, token.indexOf(':'))
  if (
    !/^-?(0|[1-9]\d*)$/.test(idText) ||
    idText === '-0' ||
    BigInt(idText) >= 2n ** 63n ||
    BigInt(idText) < -(2n ** 63n)
  )
    return new ApiError(421, 'Misdirected Request: unallowed token specified')
  const id = BigInt(idText)
  if (id <= 0n || id >= 2n ** 54n) return invalid()
  return undefined
}

function randomToken(id?: number): string {
  const botId = id ?? randomInt(1_000_000_000, 8_000_000_000)
  return `${botId}:${randomBytes(27).toString('base64url').slice(0, 35)}`
}

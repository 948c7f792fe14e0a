/**
 * The offline back end: the Bot API emulator started in-process (local mode) with one fixed fake bot,
 * so a bot runs with no token and no network.
 */
import {randomBytes} from 'node:crypto'

import {BotApiEmulator} from '../emulator/index.js'

/**
 * The token of `bot emulator`'s bot by default. Well-formed (a bot id, ':', 35 characters of
 * [A-Za-z0-9_-]) so every library accepts it, and plainly fake: Telegram would reject it. It is
 * public (it is in this file): on a shared machine anyone who can reach the emulator's port can
 * use it (docs/security.md).
 */
export const OFFLINE_TOKEN = '1234567890:OFFLINE-DEV-TOKEN-NOT-A-REAL-SECRET'
/** The bot id of every offline bot (the token's prefix): history and replay find an earlier offline run by it. */
export const OFFLINE_BOT_ID = 1234567890

/**
 * A token for one `bot dev --offline` session: the offline bot's id and a random secret part, so
 * another local user who reaches the session's emulator cannot read its chat through the control
 * API or inject messages (they would need the token the bot got in its environment).
 */
export function offlineSessionToken(): string {
  return `${OFFLINE_BOT_ID}:${randomBytes(27).toString('base64url').slice(0, 35)}`
}
export const OFFLINE_BOT_USERNAME = 'offline_dev_bot'
export const OFFLINE_BOT_NAME = 'Offline Dev Bot'

/** The fake user who types in the terminal chat. */
export const OFFLINE_USER = {userId: 1111, firstName: 'You', username: 'offline_user'} as const

export interface OfflineBackendOptions {
  /** Emulator port (default 0: a free port). */
  port?: number
  /** Emulator interface (default 127.0.0.1). */
  host?: string
  /** Bot token to create (default OFFLINE_TOKEN). */
  token?: string
  /** Bot username (default offline_dev_bot). */
  botUsername?: string
  /** The terminal user's private chat (default: the user id). */
  chatId?: number
  userId?: number
  firstName?: string
  username?: string
  /** Emulator time scale (default 1). */
  timeScale?: number
  /** Local-server webhook rules (http, any port); false = api.telegram.org's rules. Default true. */
  local?: boolean
  /** Accept every well-formed token (each gets a bot on first use). Default false. */
  acceptAnyToken?: boolean
  /** Telegram's flood limits (EmulatorOptions.floodControl). Default false. */
  floodControl?: boolean
  /** URLs to loopback and private addresses (files by URL, setWebhook) also when not on loopback (EmulatorOptions). */
  allowPrivateUrls?: boolean
}

export interface OfflineBot {
  token: string
  id: number
  username: string
}

export interface OfflineUser {
  chatId: number
  userId: number
  firstName: string
  username: string
}

export interface OfflineBackend {
  emulator: BotApiEmulator
  /** http://127.0.0.1:PORT: the bot's BOT_API_ROOT. */
  apiRoot: string
  /** The fake bot's token (OFFLINE_TOKEN unless another was asked for). */
  token: string
  bot: OfflineBot
  /** Who the terminal chat speaks as. */
  user: OfflineUser
  /** Stop the emulator (idempotent). */
  stop(): Promise<void>
}

function checkId(name: string, value: number | undefined): void {
  if (value === undefined) return
  if (!Number.isSafeInteger(value) || value === 0) throw new RangeError(`${name} ${value} is not a non-zero integer id`)
}

/** Start the emulator (local mode unless asked otherwise) with the fixed fake bot; see OfflineBackend. */
export async function startOfflineBackend(options: OfflineBackendOptions = {}): Promise<OfflineBackend> {
  checkId('chat id', options.chatId)
  checkId('user id', options.userId)
  if (options.userId !== undefined && options.userId < 0)
    throw new RangeError(`user id ${options.userId} must be positive`)
  const userId = options.userId ?? OFFLINE_USER.userId
  const user: OfflineUser = {
    userId,
    chatId: options.chatId ?? userId,
    firstName: options.firstName ?? OFFLINE_USER.firstName,
    username: options.username ?? OFFLINE_USER.username,
  }
  const emulator = await BotApiEmulator.start({
    port: options.port ?? 0,
    host: options.host ?? '127.0.0.1',
    local: options.local ?? true,
    acceptAnyToken: Boolean(options.acceptAnyToken),
    ...(options.allowPrivateUrls !== undefined ? {allowPrivateUrls: options.allowPrivateUrls} : {}),
    ...(options.timeScale !== undefined ? {timeScale: options.timeScale} : {}),
    ...(options.floodControl ? {floodControl: true} : {}),
  })
  let info
  try {
    info = emulator.createBot({
      token: options.token ?? OFFLINE_TOKEN,
      username: options.botUsername ?? OFFLINE_BOT_USERNAME,
      firstName: OFFLINE_BOT_NAME,
      // Inline mode on, so an inline bot can be tried offline (`bot trigger inline`, the control API).
      supportsInlineQueries: true,
    })
  } catch (error) {
    await emulator.stop()
    throw error
  }
  let stopped: Promise<void> | undefined
  return {
    emulator,
    apiRoot: emulator.apiRoot,
    token: info.token,
    bot: {token: info.token, id: info.id, username: info.username},
    user,
    stop: () => (stopped ??= emulator.stop()),
  }
}

/**
 * Settings from the environment, as `bot dev` passes them and as a host sets them in production:
 *
 *   BOT_TOKEN       the token from @BotFather (required)
 *   BOT_API_ROOT    Bot API server (default https://api.telegram.org; a local server or the emulator)
 *   BOT_MODE        "webhook" serves updates over HTTP; anything else (or unset) uses long polling
 *   PORT            webhook mode: the port of the HTTP server (default 3000)
 *   WEBHOOK_PATH    webhook mode: the path of the POST route (default /webhook)
 *   WEBHOOK_SECRET  webhook mode: the value Telegram sends in X-Telegram-Bot-Api-Secret-Token (required)
 *   REDIS_URL       sessions in Redis (redis://[user:password@]host:port[/db], or rediss:// for TLS);
 *                   unset: sessions in memory (one process only: development and tests)
 *   WEB_APP_URL     the Mini App's URL for /app (`bot dev --web-app` sets it); default: /app/ on the host of
 *                   WEBHOOK_URL (the public webhook URL, which `bot dev` sets), where src/http.ts serves it
 *   BOT_TEST_COMMANDS  "1" adds hidden commands for tests: /fail throws, /slow finishes its work after
 *                   the update was acknowledged
 */
export type Mode = 'webhook' | 'polling'

export interface WebhookConfig {
  port: number
  path: string
  secret: string
}

export interface Config {
  token: string
  apiRoot?: string
  mode: Mode
  webhook?: WebhookConfig
  /** Where sessions live when several processes serve the bot; undefined = in memory. */
  redisUrl?: string
  /** The Mini App's URL (src/web-app.ts); undefined: no public URL is known, /app says so. */
  webAppUrl?: string
  /** Hidden /fail and /slow commands (tests of the error handling and of a clean stop). */
  testCommands: boolean
}

/** A setting that is missing or wrong: main.ts prints the message and exits with code 1. */
export class ConfigError extends Error {}

const SECRET = /^[A-Za-z0-9_-]{1,256}$/

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const token = env.BOT_TOKEN?.trim()
  if (!token)
    throw new ConfigError(
      'BOT_TOKEN is not set. Run the bot with `bot dev` (it reads BOT_TOKEN from .env), or set BOT_TOKEN yourself.\n' +
        'Get a token from @BotFather (https://t.me/BotFather), or try the bot without one: `bot dev --offline`.',
    )
  const apiRoot = env.BOT_API_ROOT?.trim().replace(/\/+$/, '') || undefined
  const mode: Mode = env.BOT_MODE === 'webhook' ? 'webhook' : 'polling'
  const redisUrl = env.REDIS_URL?.trim() || undefined
  if (redisUrl && !/^rediss?:\/\/[^\s]+$/.test(redisUrl))
    throw new ConfigError(
      'REDIS_URL must look like redis://host:6379 (or rediss:// for TLS, redis://user:password@host:6379/0).',
    )
  const testCommands = env.BOT_TEST_COMMANDS === '1'
  const webAppUrl = readWebAppUrl(env)
  if (mode === 'polling') return {token, apiRoot, mode, redisUrl, webAppUrl, testCommands}

  const port = Number(env.PORT ?? 3000)
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new ConfigError(`PORT "${env.PORT}" is not a port number (0-65535).`)
  const path = env.WEBHOOK_PATH?.trim() || '/webhook'
  if (!path.startsWith('/')) throw new ConfigError(`WEBHOOK_PATH "${path}" must start with "/".`)
  const secret = env.WEBHOOK_SECRET ?? ''
  if (!SECRET.test(secret))
    throw new ConfigError(
      'WEBHOOK_SECRET is not set (or is not 1-256 of A-Z a-z 0-9 _ -): in webhook mode the bot must check it on every request.\n' +
        '`bot dev` sets it for you; in production generate one (openssl rand -hex 32), give the same value to ' +
        '`bot webhook set URL --secret-token …`, and set WEBHOOK_SECRET on the host.',
    )
  return {token, apiRoot, mode, webhook: {port, path, secret}, redisUrl, webAppUrl, testCommands}
}

/** WEB_APP_URL when set, else /app/ on the host of an https WEBHOOK_URL (Telegram opens https Mini Apps only). */
function readWebAppUrl(env: NodeJS.ProcessEnv): string | undefined {
  const own = env.WEB_APP_URL?.trim()
  if (own) {
    if (!/^https?:\/\/[^\s]+$/.test(own) || !URL.canParse(own))
      throw new ConfigError(
        `WEB_APP_URL "${own}" is not a URL: set it to the Mini App's https:// address, or unset it.`,
      )
    return own
  }
  const hook = env.WEBHOOK_URL?.trim()
  return hook && /^https:\/\//.test(hook) && URL.canParse(hook) ? new URL('/app/', hook).toString() : undefined
}

/** Replace the token (and its secret part) wherever it appears, e.g. in an error that quotes a URL. */
export function redact(text: string, token: string): string {
  const secret = token.slice(token.indexOf(':') + 1)
  let out = text.split(token).join('<token>')
  if (secret.length >= 8) out = out.split(secret).join('<token>')
  return out
}

/** A Redis URL fit for a log line: the host and port, never the password. */
export function redisHost(url: string): string {
  try {
    const u = new URL(url)
    return `${u.protocol}//${u.host}`
  } catch {
    return 'REDIS_URL'
  }
}

/**
 * The bot's Mini App (core.telegram.org/bots/webapps): /app sends a button that opens it; its page
 * (app/index.html, served here at /app/) sends Telegram.WebApp.initData to POST /app/check, and the
 * bot trusts the user named in it only once the signature is checked with the bot's token, as
 * "Validating data received via the Mini App" says. Anyone can open the page with made-up data:
 * every request of the app that acts for a user must carry initData and be checked like this.
 */
import {createHmac, timingSafeEqual} from 'node:crypto'
import {readFileSync} from 'node:fs'
import type {IncomingMessage, ServerResponse} from 'node:http'

/** The user in initData (WebAppUser), the fields the app uses. */
export interface WebAppUser {
  id: number
  first_name: string
  last_name?: string
  username?: string
  language_code?: string
}

export interface VerifiedInitData {
  user?: WebAppUser
  /** When Telegram signed it (seconds since 1970). */
  authDate: number
  /** Set when the app was opened from a button of the bot's chat: answerWebAppQuery may answer it. */
  queryId?: string
  startParam?: string
}

/** A day: data older than this is refused (a stolen copy does not work forever). */
export const MAX_AGE_SECONDS = 24 * 60 * 60

/**
 * initData (the query string Telegram passes the app) checked against the bot's token: the fields but
 * `hash`, as `key=value` lines sorted by key, must give `hash` under HMAC-SHA-256 with the key
 * HMAC-SHA-256("WebAppData", token). undefined when the hash is missing or wrong, or the data too old.
 */
export function verifyInitData(
  initData: string,
  token: string,
  maxAgeSeconds = MAX_AGE_SECONDS,
  now = Date.now(),
): VerifiedInitData | undefined {
  const params = new URLSearchParams(initData)
  const hash = params.get('hash')
  if (!hash || !/^[0-9a-f]{64}$/.test(hash)) return undefined
  const lines = [...params.entries()]
    .filter(([key]) => key !== 'hash')
    .map(([key, value]) => `${key}=${value}`)
    .sort()
  const secret = createHmac('sha256', 'WebAppData').update(token).digest()
  const expected = createHmac('sha256', secret).update(lines.join('\n')).digest()
  if (!timingSafeEqual(expected, Buffer.from(hash, 'hex'))) return undefined
  const authDate = Number(params.get('auth_date'))
  if (!Number.isInteger(authDate) || now / 1000 - authDate > maxAgeSeconds) return undefined
  let user: WebAppUser | undefined
  try {
    const raw = params.get('user')
    user = raw ? (JSON.parse(raw) as WebAppUser) : undefined
  } catch {
    return undefined
  }
  return {
    user,
    authDate,
    queryId: params.get('query_id') ?? undefined,
    startParam: params.get('start_param') ?? undefined,
  }
}

/** The page of the Mini App (app/index.html next to src/ and dist/), read once. */
let page: Buffer | undefined
function appPage(): Buffer {
  page ??= readFileSync(new URL('../app/index.html', import.meta.url))
  return page
}

/**
 * The Mini App's routes, for the bot's HTTP server (src/http.ts): GET /app/ (the page) and POST
 * /app/check (body: the initData string; 200 {ok, user} when signed with `token`, 401 when not).
 * Returns false for any other request, which the server then answers itself.
 */
export function serveWebApp(req: IncomingMessage, res: ServerResponse, token: string): boolean {
  const path = (req.url ?? '/').split('?')[0]
  if (path === '/app') {
    res.writeHead(308, {location: '/app/'}).end()
    return true
  }
  if (path === '/app/' || path === '/app/index.html') {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, {allow: 'GET'}).end()
      return true
    }
    res.writeHead(200, {'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache'})
    res.end(req.method === 'HEAD' ? undefined : appPage())
    return true
  }
  if (path !== '/app/check') return false
  if (req.method !== 'POST') {
    res.writeHead(405, {allow: 'POST'}).end()
    return true
  }
  readText(req)
    .then((initData) => {
      const json = {'content-type': 'application/json'}
      if (initData === undefined) return void res.writeHead(413).end()
      const verified = verifyInitData(initData, token)
      if (!verified) res.writeHead(401, json).end('{"ok":false,"error":"initData is not signed by this bot"}')
      else res.writeHead(200, json).end(JSON.stringify({ok: true, user: verified.user ?? null}))
    })
    .catch(() => res.destroy())
  return true
}

/** The body as text, at most `limit` bytes (initData is a few hundred); undefined when larger. */
async function readText(req: IncomingMessage, limit = 16 * 1024): Promise<string | undefined> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > limit) return undefined
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** What /app sends (src/bot.ts). */
export const APP_TEXT = 'Open the Mini App: it greets you by the name Telegram signed for the bot.'
export const APP_BUTTON = 'Open the app'
export const NO_APP_URL =
  'The Mini App has no public URL yet: set WEB_APP_URL (`bot dev --web-app URL` does), or WEBHOOK_URL in webhook mode (the bot serves the app at /app/ on its host).'

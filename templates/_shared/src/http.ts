import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import {timingSafeEqual} from 'node:crypto'

import type {WebhookConfig} from './config.js'

export type WebhookHandler = (req: IncomingMessage, res: ServerResponse) => unknown

const SECRET_HEADER = 'x-telegram-bot-api-secret-token'

/** Constant-time comparison of the secret header with the expected value. */
export function hasSecret(req: IncomingMessage, secret: string): boolean {
  const got = Buffer.from(String(req.headers[SECRET_HEADER] ?? ''))
  const want = Buffer.from(secret)
  return got.length === want.length && timingSafeEqual(got, want)
}

/** A request the webhook refuses with this status (a body too large, not JSON). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

/** The request's body parsed as JSON, at most `limit` bytes (Telegram's updates are far smaller). */
export async function readJson(req: IncomingMessage, limit = 1024 * 1024): Promise<unknown> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > limit) throw new HttpError(413, `body larger than ${limit} bytes`)
    chunks.push(chunk)
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'))
  } catch {
    throw new HttpError(400, 'body is not JSON')
  }
}

/** Whether the bot can serve now: undefined = yes, a string = what is wrong (e.g. "Redis unreachable"). */
export type HealthCheck = () => Promise<string | undefined> | string | undefined

/** More routes (the Mini App's, src/web-app.ts): true when it answered the request. */
export type ExtraRoutes = (req: IncomingMessage, res: ServerResponse) => boolean

/**
 * The HTTP server of webhook mode: POST <path> goes to the framework's webhook handler,
 * GET /health answers 200 when the bot can serve and 503 when it cannot (for load balancers and
 * `bot dev`), `routes` (the Mini App's) answer theirs, anything else 404. The server knows nothing about the bot, so any host (a container,
 * a VM, a PaaS) can run it.
 */
export function createWebhookServer(
  config: WebhookConfig,
  handler: WebhookHandler,
  onError: (err: unknown) => void,
  health: HealthCheck = () => undefined,
  routes: ExtraRoutes = () => false,
): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]
    if (req.method === 'GET' && (path === '/health' || path === '/')) {
      Promise.resolve()
        .then(health)
        .catch((err: unknown) => String(err instanceof Error ? err.message : err))
        .then((problem) => {
          if (problem)
            res.writeHead(503, {'content-type': 'application/json'}).end(JSON.stringify({ok: false, error: problem}))
          else res.writeHead(200, {'content-type': 'application/json'}).end('{"ok":true}')
        })
      return
    }
    if (path !== config.path) {
      try {
        if (routes(req, res)) return
      } catch (err) {
        onError(err)
        if (!res.headersSent) res.writeHead(500)
        res.end()
        return
      }
      res.writeHead(404).end()
      return
    }
    if (req.method !== 'POST') {
      res.writeHead(405, {allow: 'POST'}).end()
      return
    }
    Promise.resolve()
      .then(() => handler(req, res))
      .catch((err: unknown) => {
        if (err instanceof HttpError) {
          if (!res.headersSent) res.writeHead(err.status)
          res.end(err.message)
          return
        }
        // Not a handler's error (src/bot.ts catches those and the update is acknowledged) but the
        // machinery's: the session storage is unreachable, the body is not JSON. Answer 500 so
        // Telegram delivers the update again later, when it may succeed.
        onError(err)
        if (!res.headersSent) res.writeHead(500)
        res.end()
      })
  })
}

export function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, () => {
      server.off('error', reject)
      const address = server.address()
      resolve(typeof address === 'object' && address ? address.port : port)
    })
  })
}

/** Stop accepting connections and wait for the requests in flight (at most `ms`). */
export function close(server: Server, ms = 5000): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      server.closeAllConnections()
      resolve()
    }, ms)
    server.close(() => {
      clearTimeout(timer)
      resolve()
    })
    server.closeIdleConnections()
  })
}

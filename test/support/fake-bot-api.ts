/**
 * A minimal Bot API on loopback for tests that need `bot dev` running but not the emulator: getMe,
 * the webhook methods, getUpdates (a long poll answered `[]` when its timeout runs out or the server
 * closes) and sendMessage answer as Telegram would; any other method gets 404 "Not Found". Request
 * bodies are counted and drained, never decoded or held (a fuzz test can send it anything through
 * the api proxy without it growing), and every call is counted by method.
 */
import http from 'node:http'
import type {AddressInfo, Socket} from 'node:net'

export interface FakeBotApi {
  url: string
  /** Calls seen, by method (any token). */
  calls: Map<string, number>
  close(): Promise<void>
}

export async function startFakeBotApi(token: string, o: {username?: string} = {}): Promise<FakeBotApi> {
  const botId = Number(token.split(':')[0])
  const calls = new Map<string, number>()
  const polls = new Set<() => void>()
  const sockets = new Set<Socket>()
  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    if (res.headersSent || res.destroyed) return
    const text = JSON.stringify(body)
    res.writeHead(status, {'content-type': 'application/json', 'content-length': Buffer.byteLength(text)})
    res.end(text)
  }
  const server = http.createServer((req, res) => {
    req.on('error', () => {})
    res.on('error', () => {})
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const m = /^\/bot([^/]*)\/([^/]*)$/.exec(url.pathname)
    req.resume() // drained, never held
    req.on('end', () => {
      if (!m) return send(res, 404, {ok: false, error_code: 404, description: 'Not Found'})
      if (decodeURIComponent(m[1]) !== token)
        return send(res, 401, {ok: false, error_code: 401, description: 'Unauthorized'})
      const method = m[2].toLowerCase()
      calls.set(method, (calls.get(method) ?? 0) + 1)
      switch (method) {
        case 'getme':
          return send(res, 200, {
            ok: true,
            result: {id: botId, is_bot: true, first_name: 'Fuzz', username: o.username ?? 'fuzz_test_bot'},
          })
        case 'getwebhookinfo':
          return send(res, 200, {ok: true, result: {url: '', has_custom_certificate: false, pending_update_count: 0}})
        case 'deletewebhook':
        case 'setwebhook':
          return send(res, 200, {ok: true, result: true, description: 'Webhook was deleted'})
        case 'sendmessage':
          return send(res, 200, {
            ok: true,
            result: {message_id: 1, date: Math.floor(Date.now() / 1000), chat: {id: 1, type: 'private'}, text: 'x'},
          })
        case 'getupdates': {
          const seconds = Math.min(Number(url.searchParams.get('timeout') ?? 0) || 0, 50)
          const answer = () => {
            polls.delete(answer)
            clearTimeout(timer)
            send(res, 200, {ok: true, result: []})
          }
          const timer = setTimeout(answer, seconds * 1000)
          polls.add(answer)
          res.on('close', () => {
            polls.delete(answer)
            clearTimeout(timer)
          })
          return
        }
        default:
          return send(res, 404, {ok: false, error_code: 404, description: 'Not Found: method not found'})
      }
    })
  })
  server.on('connection', (s: Socket) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  server.on('clientError', (_e, socket) => socket.destroy())
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    async close() {
      for (const answer of [...polls]) answer()
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/**
 * The Mini App proxy (src/lib/mini-app-proxy.ts) against a real app server on loopback: the frame URL keeps the
 * app's path, query and hash on a port of its own; requests reach the app with the Host it expects; HTML points
 * Telegram's script at the copy the proxy serves (the file @twa-dev/sdk ships) and gets the bridge shim first in
 * <head>; a frame ban is dropped; a redirect to the app stays on the proxy; a WebSocket upgrade passes both ways
 * (Vite's hot reload); an app that does not answer gets 502 that no browser runs as a script.
 */
import {createHash} from 'node:crypto'
import {createServer, request, type IncomingMessage, type Server} from 'node:http'
import type {AddressInfo, Socket} from 'node:net'
import {afterEach, describe, expect, it} from 'vitest'

import {
  BRIDGE_SHIM,
  createMiniAppProxy,
  LOCAL_SCRIPT_PATH,
  type MiniAppProxy,
  rewriteHtml,
  telegramWebAppScript,
} from '../../src/lib/mini-app-proxy.js'

const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!()
})

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  closers.push(async () => {
    server.closeAllConnections()
    await new Promise((r) => server.close(r))
  })
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

function proxy(): MiniAppProxy {
  const p = createMiniAppProxy({timeoutMs: 5000})
  closers.push(() => p.close())
  return p
}

describe('the Mini App proxy', () => {
  it('serves the app through its own port: Host as the app expects, HTML rewritten, frame ban dropped, redirects kept, another Host refused', async () => {
    const seen: Array<{url?: string; host?: string}> = []
    const app = await listen(
      createServer((req, res) => {
        seen.push({url: req.url, host: req.headers.host})
        if (req.url === '/old') {
          res.writeHead(302, {location: `http://${req.headers.host}/app/`})
          return res.end()
        }
        if (req.url?.startsWith('/app/')) {
          res.writeHead(200, {'content-type': 'text/html; charset=utf-8', 'x-frame-options': 'DENY'})
          return res.end(
            '<!doctype html><html><head><script src="https://telegram.org/js/telegram-web-app.js?59"></script></head><body>hi</body></html>',
          )
        }
        res.writeHead(200, {'content-type': 'text/javascript'})
        res.end('console.log(1)')
      }),
    )
    const p = proxy()
    const frame = await p.frameUrl(`${app}/app/?x=1#tgWebAppData=abc`)
    const url = new URL(frame)
    expect(url.hostname).toBe('127.0.0.1')
    expect(url.port).not.toBe(new URL(app).port)
    expect(url.pathname + url.search + url.hash).toBe('/app/?x=1#tgWebAppData=abc')
    // the same origin, the same proxy
    expect(new URL(await p.frameUrl(`${app}/other`)).origin).toBe(url.origin)

    const page = await fetch(frame)
    expect(page.status).toBe(200)
    expect(page.headers.get('x-frame-options')).toBeNull()
    const html = await page.text()
    expect(html).toContain(`<script src="${LOCAL_SCRIPT_PATH}"></script>`)
    expect(html).not.toContain('telegram.org')
    expect(html.indexOf(BRIDGE_SHIM)).toBe(html.indexOf('<head>') + '<head>'.length)
    expect(seen.at(-1)).toEqual({url: '/app/?x=1', host: new URL(app).host})

    const script = await fetch(`${url.origin}${LOCAL_SCRIPT_PATH}`)
    expect(script.headers.get('content-type')).toMatch(/javascript/)
    const text = await script.text()
    expect(text).toBe(telegramWebAppScript())
    expect(text).toContain('Telegram.WebApp')

    const js = await fetch(`${url.origin}/main.js`)
    expect(await js.text()).toBe('console.log(1)')

    // a page of another site rebound to 127.0.0.1 names its own host: refused
    const rebound = await new Promise<number>((resolve, reject) => {
      const req = request({
        host: '127.0.0.1',
        port: url.port,
        path: '/main.js',
        headers: {host: `evil.example:${url.port}`},
      })
      req.on('response', (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      })
      req.on('error', reject)
      req.end()
    })
    expect(rebound).toBe(403)

    const moved = await fetch(`${url.origin}/old`, {redirect: 'manual'})
    expect(moved.status).toBe(302)
    expect(moved.headers.get('location')).toBe(`${url.origin}/app/`)
  })

  it('passes a WebSocket upgrade both ways, with the Host the app expects', async () => {
    let upgradeHost: string | undefined
    const upgraded: Socket[] = []
    const server = createServer()
    server.on('upgrade', (req: IncomingMessage, socket: Socket) => {
      upgraded.push(socket)
      upgradeHost = req.headers.host
      const accept = createHash('sha1')
        .update(`${req.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
        .digest('base64')
      socket.write(
        `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
      )
      // echo raw bytes back, upper-cased: enough to see both directions
      socket.on('data', (chunk: Buffer) => socket.write(chunk.toString('utf8').toUpperCase()))
    })
    const app = await listen(server)
    // an upgraded socket is no longer the server's: closeAllConnections() leaves it open (run before the close)
    closers.push(async () => {
      for (const socket of upgraded) socket.destroy()
    })
    const frame = new URL(await proxy().frameUrl(`${app}/`))

    const reply = await new Promise<string>((resolve, reject) => {
      const req = request({
        host: '127.0.0.1',
        port: frame.port,
        path: '/?token=vite',
        headers: {
          connection: 'Upgrade',
          upgrade: 'websocket',
          'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
          'sec-websocket-version': '13',
          'sec-websocket-protocol': 'vite-hmr',
        },
      })
      req.on('upgrade', (res, socket) => {
        expect(res.statusCode).toBe(101)
        socket.on('data', (data: Buffer) => {
          resolve(data.toString('utf8'))
          socket.destroy()
        })
        socket.write('ping from the page')
      })
      req.on('response', (res) => reject(new Error(`no upgrade: ${res.statusCode}`)))
      req.on('error', reject)
      req.end()
    })
    expect(reply).toBe('PING FROM THE PAGE')
    expect(upgradeHost).toBe(new URL(app).host)
  })

  it('when the app does not answer: a page saying so in the frame, 502 (not runnable as a script) otherwise; a non-http URL is refused', async () => {
    const gone = createServer()
    const app = await listen(gone)
    gone.closeAllConnections()
    await new Promise((r) => gone.close(r))
    const frame = await proxy().frameUrl(`${app}/`)
    const res = await fetch(frame)
    expect(res.status).toBe(502)
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    // the frame's own navigation gets a page saying so, shown in the phone frame
    const shown = await fetch(frame, {headers: {'sec-fetch-dest': 'iframe'}})
    expect(shown.status).toBe(200)
    expect(await shown.text()).toContain(`the Mini App at ${app} did not answer`)
    await expect(proxy().frameUrl('file:///etc/passwd')).rejects.toThrow('is not an http(s) URL')
  })

  it('rewriteHtml: the script in any form Telegram documents, the shim first in <head> or first in the page', () => {
    expect(rewriteHtml('<head><script src="https://telegram.org/js/telegram-web-app.js"></script></head>', 'X')).toBe(
      `<head>X<script src="${LOCAL_SCRIPT_PATH}"></script></head>`,
    )
    expect(rewriteHtml("<script src='http://telegram.org/js/telegram-web-app.js?58'></script>", 'X')).toBe(
      `X<script src='${LOCAL_SCRIPT_PATH}'></script>`,
    )
  })
})

/**
 * A stand-in for the chat page's server, for the Mini App host's browser tests: it serves a bare page with the
 * host (src/inspector/web/chat/miniapp.js), passes the host's `/_emulator/…` calls to the emulator's control API,
 * and answers `POST /miniapp/frame` {url} with the frame URL of the Mini App proxy (src/lib/mini-app-proxy.ts),
 * as the chat page's server does.
 */
import {readFile} from 'node:fs/promises'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {createMiniAppProxy, type MiniAppProxy} from '../../src/lib/mini-app-proxy.js'

const HOST = new URL('../../src/inspector/web/chat/miniapp.js', import.meta.url)

export const HARNESS_HTML = `<!doctype html>
<html><head><meta charset="utf-8"><title>Mini App host harness</title>
<script>window.botChat = {emulatorRoot: '/_emulator', miniAppFrame: '/miniapp/frame'}</script>
<script type="module" src="/miniapp.js"></script>
</head><body><h1>chat</h1></body></html>`

export interface MiniAppPage {
  url: string
  proxy: MiniAppProxy
  close(): Promise<void>
}

export async function startMiniAppPage(controlApiRoot: string): Promise<MiniAppPage> {
  const proxy = createMiniAppProxy({timeoutMs: 10_000})
  const server: Server = createServer(async (req, res) => {
    try {
      const path = req.url ?? '/'
      const chunks: Buffer[] = []
      for await (const c of req) chunks.push(c as Buffer)
      const body = Buffer.concat(chunks).toString('utf8')
      if (path === '/') {
        res.writeHead(200, {'content-type': 'text/html; charset=utf-8'})
        res.end(HARNESS_HTML)
      } else if (path === '/miniapp.js') {
        res.writeHead(200, {'content-type': 'text/javascript; charset=utf-8'})
        res.end(await readFile(HOST, 'utf8'))
      } else if (path === '/miniapp/frame' && req.method === 'POST') {
        const url = await proxy.frameUrl((JSON.parse(body) as {url: string}).url)
        res.writeHead(200, {'content-type': 'application/json'})
        res.end(JSON.stringify({url}))
      } else if (path.startsWith('/_emulator/') && req.method === 'POST') {
        const answer = await fetch(controlApiRoot + path.slice('/_emulator'.length), {
          method: 'POST',
          headers: {'content-type': 'application/json'},
          body,
        })
        res.writeHead(answer.status, {'content-type': 'application/json'})
        res.end(await answer.text())
      } else {
        res.writeHead(404)
        res.end()
      }
    } catch (err) {
      res.writeHead(500, {'content-type': 'application/json'})
      res.end(JSON.stringify({error: (err as Error).message}))
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/`,
    proxy,
    async close() {
      server.closeAllConnections()
      await new Promise((r) => server.close(r))
      await proxy.close()
    },
  }
}

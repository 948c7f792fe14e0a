/** Helpers for the api proxy tests: a started proxy that collects its records, and a raw upstream "sink". */
import http from 'node:http'
import type {AddressInfo, Socket} from 'node:net'
import {afterEach} from 'vitest'
import {startApiProxy, type ApiProxy, type ApiProxyOptions} from '../../src/inspector/proxy/api-proxy.js'
import type {ApiCall} from '../../src/inspector/types.js'

const running: Array<{close(): Promise<void>}> = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close().catch(() => {})))
})

export interface Recorder {
  proxy: ApiProxy
  calls: ApiCall[]
  updates: unknown[][]
}

/** A proxy in front of `upstream` whose onCall/onUpdates collect into arrays (closed after the test). */
export async function recordingProxy(upstream: string, extra: Partial<ApiProxyOptions> = {}): Promise<Recorder> {
  const calls: ApiCall[] = []
  const updates: unknown[][] = []
  const proxy = await startApiProxy({
    upstream,
    onCall: (call) => calls.push(call),
    onUpdates: (list) => updates.push(list),
    ...extra,
  })
  running.push(proxy)
  return {proxy, calls, updates}
}

export interface SinkRequest {
  method: string
  url: string
  headers: http.IncomingHttpHeaders
  bytes: number
  complete: boolean
  aborted: boolean
  req: http.IncomingMessage
  res: http.ServerResponse
}

/**
 * A loopback HTTP server standing in for an api root: it counts each request's body bytes as they
 * arrive and lets `respond` answer (by default, once the body ended, `{"ok":true,"result":true}`).
 */
export async function sink(respond?: (request: SinkRequest) => void) {
  const requests: SinkRequest[] = []
  const sockets = new Set<Socket>()
  const server = http.createServer((req, res) => {
    const item: SinkRequest = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      bytes: 0,
      complete: false,
      aborted: false,
      req,
      res,
    }
    requests.push(item)
    req.on('data', (chunk: Buffer) => {
      item.bytes += chunk.length
    })
    req.on('end', () => {
      item.complete = true
    })
    req.on('close', () => {
      if (!item.complete) item.aborted = true
    })
    req.on('error', () => {})
    if (respond) return respond(item)
    req.on('end', () => {
      res.writeHead(200, {'content-type': 'application/json'})
      res.end(JSON.stringify({ok: true, result: true}))
    })
  })
  server.on('connection', (s: Socket) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as AddressInfo).port
  const handle = {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy()
        server.close(() => r())
      }),
  }
  running.push(handle)
  return handle
}

/** A port nothing listens on (it was free a moment ago). */
export async function deadPort(): Promise<number> {
  const server = http.createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as AddressInfo).port
  await new Promise<void>((r) => server.close(() => r()))
  return port
}

/** POST JSON and read the answer. */
export async function postJson(url: string, body: unknown): Promise<{status: number; json: any; text: string}> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {'content-type': 'application/json'},
    body: JSON.stringify(body),
  })
  const text = await res.text()
  let json: any
  try {
    json = JSON.parse(text)
  } catch {}
  return {status: res.status, json, text}
}

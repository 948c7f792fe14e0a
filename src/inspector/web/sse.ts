/**
 * The inspector's Server-Sent Events: each new or changed history entry goes to every connected
 * page as `event: entry` with the entry's JSON. A client that does not read (its socket buffer
 * past `maxBuffered` bytes) is dropped rather than buffered without bound; a comment line every
 * `heartbeatMs` keeps idle connections open through anything that times them out.
 */
import type {ServerResponse} from 'node:http'

import {redactSecrets} from '../../telegram/redact.js'
import type {HistoryView, UpdateEntry} from '../types.js'
import {SECURITY_HEADERS} from './http.js'

export interface SseHubOptions {
  history: HistoryView
  secrets: string[]
  heartbeatMs?: number
  /** Bytes queued for one client before it counts as stuck and is dropped. */
  maxBuffered?: number
}

export class SseHub {
  private readonly clients = new Set<ServerResponse>()
  private readonly unsubscribe: () => void
  private readonly heartbeat: NodeJS.Timeout
  private readonly maxBuffered: number

  constructor(private readonly o: SseHubOptions) {
    this.maxBuffered = o.maxBuffered ?? 1024 * 1024
    this.unsubscribe = o.history.subscribe((entry) => {
      try {
        this.broadcast(entry)
      } catch {
        // A listener of the history never throws into it.
      }
    })
    this.heartbeat = setInterval(() => {
      try {
        for (const res of this.clients) this.write(res, ': ping\n\n')
      } catch {
        // Guarded timer: nothing here may crash the session.
      }
    }, o.heartbeatMs ?? 15_000)
    this.heartbeat.unref()
  }

  get size(): number {
    return this.clients.size
  }

  /** Takes over a request as an event stream. */
  attach(res: ServerResponse): void {
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'Content-Type': 'text/event-stream; charset=utf-8',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    })
    res.socket?.setNoDelay(true)
    this.clients.add(res)
    res.on('close', () => this.clients.delete(res))
    res.on('error', () => this.drop(res))
    this.write(res, 'retry: 2000\n\n')
  }

  private broadcast(entry: UpdateEntry): void {
    if (this.clients.size === 0) return
    const data = redactSecrets(JSON.stringify(entry), this.o.secrets)
    const message = `id: ${entry.seq}\nevent: entry\ndata: ${data}\n\n`
    for (const res of this.clients) this.write(res, message)
  }

  private write(res: ServerResponse, text: string): void {
    if (res.destroyed || res.writableEnded) {
      this.clients.delete(res)
      return
    }
    if (res.writableLength + text.length > this.maxBuffered) {
      this.drop(res)
      return
    }
    res.write(text)
  }

  private drop(res: ServerResponse): void {
    this.clients.delete(res)
    res.destroy()
  }

  /** Ends every stream (the pages reconnect on their own if a server comes back). */
  close(): void {
    clearInterval(this.heartbeat)
    this.unsubscribe()
    for (const res of this.clients) res.end()
    this.clients.clear()
  }
}

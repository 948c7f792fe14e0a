/**
 * The bot's own word that one of its servers listens (preload.cts, BOT_DEV_LISTEN): a Unix socket
 * in the session's private folder (0700: only this user's processes reach it), where each report
 * is one connection carrying `<pid> <port>\n`. The runner waits for the bot's PORT by connect polls
 * (bot/process.ts); a report for that port ends the wait at once, and its pid tells whose socket
 * to look at first (session-store/proc-net.ts listenerOwner). It only wakes that wait: nothing is
 * believed without the poll's connect and the owner check. Not on Windows (no Unix sockets there
 * for this): the session polls.
 */
import {rmSync} from 'node:fs'
import {createServer, type Server, type Socket} from 'node:net'
import {join} from 'node:path'

/** A report is a pid and a port: a line longer than this is not one. */
const MAX_REPORT_BYTES = 64
/** Connections open at once beyond this are closed unread (a bot starting many servers still wakes the wait). */
const MAX_OPEN = 32
/** A connection that says nothing is closed after this. */
const IDLE_MS = 2000
/** Longest Unix socket path (sun_path is 108 bytes on Linux, 104 on macOS). */
const MAX_PATH = 100

/** Wakes a wait for a port: `listener(pid)` for each report of a server listening on it. */
export interface ListenSignals {
  on(port: number, listener: (pid: number) => void): () => void
  /**
   * A report came in this session: the bot's servers are reported (its Node has the channel, the
   * socket works), so a wait for its PORT can rest on the report and poll only now and then.
   */
  readonly heard: boolean
}

export class ListenReports implements ListenSignals {
  readonly path: string | undefined
  readonly #server: Server | undefined
  readonly #listeners = new Map<number, Set<(pid: number) => void>>()
  readonly #open = new Set<Socket>()
  #heard = false

  /** `dir`: a private folder (0700) the socket is made in. */
  constructor(dir: string) {
    const path = join(dir, 'listen.sock')
    if (process.platform === 'win32' || Buffer.byteLength(path) > MAX_PATH) {
      this.path = undefined
      return
    }
    this.path = path
    const server = createServer((socket) => this.#accept(socket))
    server.on('error', () => {
      // no reports: the session polls
    })
    server.listen(path)
    server.unref()
    this.#server = server
  }

  /** What the bot's env gets: where to report (nothing when there is no socket). */
  env(): Record<string, string> {
    return this.path ? {BOT_DEV_LISTEN: this.path} : {}
  }

  get heard(): boolean {
    return this.#heard
  }

  on(port: number, listener: (pid: number) => void): () => void {
    let set = this.#listeners.get(port)
    if (!set) {
      set = new Set()
      this.#listeners.set(port, set)
    }
    set.add(listener)
    return () => {
      set.delete(listener)
      if (set.size === 0 && this.#listeners.get(port) === set) this.#listeners.delete(port)
    }
  }

  #accept(socket: Socket): void {
    if (this.#open.size >= MAX_OPEN) {
      socket.destroy()
      return
    }
    this.#open.add(socket)
    let text = ''
    socket.setEncoding('utf8')
    socket.setTimeout(IDLE_MS, () => socket.destroy())
    socket.on('error', () => {})
    socket.on('close', () => this.#open.delete(socket))
    socket.on('data', (chunk: string) => {
      text += chunk
      if (text.length > MAX_REPORT_BYTES) socket.destroy()
      else if (text.includes('\n')) {
        socket.destroy()
        this.#report(text.slice(0, text.indexOf('\n')))
      }
    })
  }

  #report(line: string): void {
    const match = /^(\d{1,10}) (\d{1,5})$/.exec(line)
    if (!match) return
    const pid = Number(match[1])
    const port = Number(match[2])
    this.#heard = true
    for (const listener of [...(this.#listeners.get(port) ?? [])]) {
      try {
        listener(pid)
      } catch {
        // a waiter's failure is its own
      }
    }
  }

  /** Close the socket (the session ends; its folder is removed with it). */
  close(): void {
    for (const socket of this.#open) socket.destroy()
    this.#server?.close()
    if (this.path) rmSync(this.path, {force: true})
  }
}

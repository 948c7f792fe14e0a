/**
 * cloudflared provider: a Cloudflare quick tunnel (no account). Spawns
 * `cloudflared tunnel --no-autoupdate --url http://127.0.0.1:<port>` (from PATH, or the program named
 * by BOT_CLOUDFLARED), takes the public URL from its banner, and is ready once cloudflared logs
 * "Registered tunnel connection". The child runs in its own process group and dies with the tunnel:
 * close() stops it (SIGTERM, then SIGKILL), and so does this process's exit. Its exit after start-up
 * is a 'down' event. Its pid and a random marker put in its environment (BOT_DEV_TUNNEL) go to
 * onProcess, so that one left running by a process killed with SIGKILL can be found and proved ours.
 *
 * Ready is not reachable: a fresh trycloudflare host resolves seconds later. The session proves the
 * URL with proveReachable (probe.ts) before setWebhook.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {randomBytes} from 'node:crypto'
import {EventEmitter} from 'node:events'
import {CloudflaredLog, type CloudflaredEvent} from './cloudflared-log.js'
import {TunnelError} from './errors.js'
import {
  DEFAULT_TUNNEL_TIMEOUT_MS,
  TUNNEL_MARKER_ENV,
  type Tunnel,
  type TunnelOpenOptions,
  type TunnelProcess,
  type TunnelProvider,
} from './types.js'
import {findExecutable} from './which.js'
import {messageOf, codeOf} from '../lib/errors.js'

export const CLOUDFLARED_ENV = 'BOT_CLOUDFLARED'

const OTHER_WAYS = 'or use --tunnel localtunnel, --public-url URL, or --tunnel none (no public URL needed)'
export const CLOUDFLARED_INSTALL_FIX =
  'install cloudflared (https://developers.cloudflare.com/cloudflare-one/connections/connect-networks/downloads/: ' +
  '`brew install cloudflared`, the .deb or .rpm package, or a binary from https://github.com/cloudflare/cloudflared/releases), ' +
  `or set ${CLOUDFLARED_ENV} to its path; ${OTHER_WAYS}`

/** How long close() waits after SIGTERM before SIGKILL, and after SIGKILL before giving up. */
const TERM_GRACE_MS = 2000
const KILL_WAIT_MS = 1000

export interface CloudflaredProviderOptions {
  /** The program to run; default: $BOT_CLOUDFLARED, else `cloudflared` on PATH. */
  bin?: string
  /** Where BOT_CLOUDFLARED and PATH are read; default process.env. The child's environment, without secrets (see cloudflaredEnv). */
  env?: NodeJS.ProcessEnv
}

// Children still running when this process exits are killed (synchronously: 'exit' cannot wait).
const live = new Set<ChildProcess>()
let exitHook = false
function track(child: ChildProcess): void {
  live.add(child)
  if (!exitHook) {
    exitHook = true
    process.on('exit', () => {
      for (const c of live) signalTree(c, 'SIGKILL')
    })
  }
}

function signalTree(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return
  try {
    if (process.platform === 'win32') child.kill(signal)
    else process.kill(-child.pid, signal) // its own process group: a wrapper script and cloudflared both
  } catch {
    try {
      child.kill(signal)
    } catch {
      // already gone
    }
  }
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null
}

function waitExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (exited(child)) return Promise.resolve(true)
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.off('exit', onExit)
      resolve(false)
    }, ms)
    const onExit = () => {
      clearTimeout(timer)
      resolve(true)
    }
    child.once('exit', onExit)
  })
}

const TOKEN_SHAPE = /\d{5,}:[A-Za-z0-9_-]{30,}/

/**
 * The environment cloudflared gets: ours without the bot's token and secrets (BOT_*, anything named
 * like a token or secret, any value shaped like a bot token). cloudflared needs none of them, `bot
 * doctor` would take it for a process holding the token, and a TUNNEL_TOKEN would make it run a
 * named tunnel instead of a quick one.
 */
export function cloudflaredEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) continue
    if (/^BOT_/i.test(key) || /TOKEN|SECRET/i.test(key) || TOKEN_SHAPE.test(value)) continue
    out[key] = value
  }
  return out
}

/**
 * Calls `cb` once the child has exited and its output has been read ('close'), or 500 ms after
 * 'exit' if something else (a grandchild) still holds its pipes.
 */
function onEnded(child: ChildProcess, cb: (code: number | null, signal: NodeJS.Signals | null) => void): () => void {
  let timer: NodeJS.Timeout | undefined
  let done = false
  const fire = () => {
    if (done) return
    done = true
    off()
    cb(child.exitCode, child.signalCode)
  }
  const onExit = () => {
    timer = setTimeout(fire, 500)
    timer.unref()
  }
  const off = () => {
    clearTimeout(timer)
    child.off('exit', onExit)
    child.off('close', fire)
  }
  child.on('exit', onExit)
  child.on('close', fire)
  if (exited(child)) onExit()
  return off
}

function exitText(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `was killed by ${signal}` : `exited with code ${code}`
}

/** A running quick tunnel. */
export class CloudflaredTunnel implements Tunnel {
  readonly provider = 'cloudflared'
  private readonly events = new EventEmitter()
  private downError?: Error
  private isDown = false
  private closing?: Promise<void>

  /** @internal built by the provider once cloudflared registered a connection. */
  constructor(
    readonly url: string,
    private readonly child: ChildProcess,
    private readonly log: CloudflaredLog,
  ) {
    child.on('exit', () => live.delete(child))
    onEnded(child, (code, signal) => {
      if (this.closing) return
      const last = log.lastError()
      this.markDown(
        new TunnelError(
          `cloudflared ${exitText(code, signal)}: the quick tunnel ${url} is gone${last ? ` (last: ${last})` : ''}`,
          {
            code: 'tunnel_exited',
            fix: `a new quick tunnel gets a new URL; ${OTHER_WAYS}`,
          },
        ),
      )
    })
  }

  /** The child's pid (for tests and diagnostics). */
  get pid(): number | undefined {
    return this.child.pid
  }

  /** cloudflared's last lines (time stamps dropped, URL paths blanked). */
  lastLines(): string[] {
    return this.log.lastLines()
  }

  on(event: 'down', cb: (err?: Error) => void): void {
    const guarded = (err?: Error) => {
      try {
        cb(err)
      } catch {
        // a listener's failure must not break the others
      }
    }
    this.events.on(event, guarded)
    if (event === 'down' && this.isDown) process.nextTick(() => guarded(this.downError))
  }

  private markDown(err: Error): void {
    if (this.isDown) return
    this.isDown = true
    this.downError = err
    this.events.emit('down', err)
  }

  close(): Promise<void> {
    this.closing ??= stopChild(this.child)
    return this.closing
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (!exited(child)) {
    signalTree(child, 'SIGTERM')
    if (!(await waitExit(child, TERM_GRACE_MS))) {
      signalTree(child, 'SIGKILL')
      await waitExit(child, KILL_WAIT_MS)
    }
  }
  live.delete(child)
  child.stdout?.destroy()
  child.stderr?.destroy()
}

export class CloudflaredProvider implements TunnelProvider {
  readonly name = 'cloudflared'
  private readonly env: NodeJS.ProcessEnv
  private readonly bin?: string

  constructor(options: CloudflaredProviderOptions = {}) {
    this.env = options.env ?? process.env
    this.bin = options.bin
  }

  /** The program that will run, or a TunnelError saying how to get one. */
  locate(): string {
    const named = this.bin ?? this.env[CLOUDFLARED_ENV]
    if (named) {
      const found = findExecutable(named, this.env)
      if (found) return found
      throw new TunnelError(
        `${this.bin ? 'the cloudflared program' : CLOUDFLARED_ENV} "${named}" is not an executable file`,
        {
          code: 'tunnel_missing',
          fix: `point ${CLOUDFLARED_ENV} at the cloudflared binary, or unset it to use cloudflared from PATH; ${OTHER_WAYS}`,
        },
      )
    }
    const found = findExecutable('cloudflared', this.env)
    if (found) return found
    throw new TunnelError('cloudflared is not installed (not found on PATH)', {
      code: 'tunnel_missing',
      fix: CLOUDFLARED_INSTALL_FIX,
    })
  }

  async open(options: TunnelOpenOptions): Promise<CloudflaredTunnel> {
    const {port} = options
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      throw new TunnelError(`local port ${port} is not a TCP port (1–65535)`, {code: 'tunnel_invalid'})
    }
    if (options.signal?.aborted) throw new TunnelError('opening the tunnel was cancelled', {code: 'tunnel_aborted'})
    const program = this.locate()
    let host = options.localHost ?? '127.0.0.1'
    if (host.includes(':') && !host.startsWith('[')) host = `[${host}]`
    const deadlineMs = options.timeoutMs ?? DEFAULT_TUNNEL_TIMEOUT_MS

    let child: ChildProcess
    // Read back from /proc/<pid>/environ, it proves a pid found later is still this cloudflared.
    const marker = randomBytes(8).toString('hex')
    try {
      child = spawn(program, ['tunnel', '--no-autoupdate', '--url', `http://${host}:${port}`], {
        stdio: ['ignore', 'pipe', 'pipe'],
        // Its own process group: a Ctrl-C at the terminal reaches `bot dev`, which stops it in order.
        detached: process.platform !== 'win32',
        env: {...cloudflaredEnv(this.env), [TUNNEL_MARKER_ENV]: marker},
      })
    } catch (err) {
      throw new TunnelError(`cloudflared (${program}) could not be started: ${codeOf(err) ?? messageOf(err)}`, {
        code: 'tunnel_missing',
        fix: `check that ${program} is an executable cloudflared binary; ${OTHER_WAYS}`,
      })
    }
    track(child)
    child.on('exit', () => live.delete(child))
    if (child.pid !== undefined && options.onProcess) {
      const report = (running: boolean) => {
        try {
          options.onProcess!({pid: child.pid!, marker, running} satisfies TunnelProcess)
        } catch {
          // the listener's failure is not the tunnel's
        }
      }
      report(true)
      child.once('exit', () => report(false))
    }

    let url: string | undefined
    let settle: ((err?: TunnelError) => void) | undefined
    const onEvent = (event: CloudflaredEvent) => {
      if (event.type === 'url') url = event.url
      if (!settle) return
      if (event.type === 'registered') settle()
      else if (event.type === 'failure') {
        settle(
          new TunnelError(event.reason, {
            code: event.kind === 'rate-limited' ? 'tunnel_refused' : 'tunnel_unreachable',
            fix: failureFix(event.kind),
          }),
        )
      }
    }
    const log = new CloudflaredLog(onEvent)
    const stdoutLog = new CloudflaredLog(onEvent)
    child.stderr!.setEncoding('utf8')
    child.stderr!.on('data', (chunk: string) => log.push(chunk))
    child.stderr!.on('end', () => log.end())
    child.stdout!.setEncoding('utf8')
    child.stdout!.on('data', (chunk: string) => stdoutLog.push(chunk))
    child.stderr!.on('error', () => {})
    child.stdout!.on('error', () => {})

    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          const last = log.lastError() ?? log.lastLines().at(-1)
          const what = url
            ? `cloudflared created ${url} but registered no connection to Cloudflare's edge within ${deadlineMs / 1000} s`
            : `cloudflared printed no quick tunnel URL within ${deadlineMs / 1000} s`
          finish(
            new TunnelError(`${what}${last ? ` (last: ${last})` : ''}`, {
              code: 'tunnel_unreachable',
              fix: url
                ? `a firewall may block UDP port 7844 (cloudflared's QUIC); ${OTHER_WAYS}`
                : `check the network (cloudflared must reach api.trycloudflare.com); ${OTHER_WAYS}`,
            }),
          )
        }, deadlineMs)
        const onAbort = () => finish(new TunnelError('opening the tunnel was cancelled', {code: 'tunnel_aborted'}))
        const onError = (err: NodeJS.ErrnoException) => {
          finish(
            new TunnelError(`cloudflared (${program}) could not be started: ${err.code ?? err.message}`, {
              code: 'tunnel_missing',
              fix:
                err.code === 'ENOENT'
                  ? CLOUDFLARED_INSTALL_FIX
                  : `check that ${program} is an executable cloudflared binary; ${OTHER_WAYS}`,
            }),
          )
        }
        const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
          log.end()
          const reason = log.lastError()
          finish(
            new TunnelError(
              `cloudflared ${exitText(code, signal)} before the tunnel was ready${reason ? `: ${reason}` : ''}`,
              {
                code: 'tunnel_exited',
                fix: `run \`${program} tunnel --url http://127.0.0.1:${port}\` to see its full output; ${OTHER_WAYS}`,
              },
            ),
          )
        }
        const offEnded = onEnded(child, onExit)
        function finish(err?: TunnelError) {
          settle = undefined
          clearTimeout(timer)
          options.signal?.removeEventListener('abort', onAbort)
          child.off('error', onError)
          offEnded()
          if (err) reject(err)
          else resolve()
        }
        settle = (err?: TunnelError) =>
          finish(
            err ??
              (url
                ? undefined
                : new TunnelError('cloudflared registered a connection but printed no quick tunnel URL', {
                    code: 'tunnel_protocol',
                    fix: `this cloudflared may print its URL differently; ${OTHER_WAYS}`,
                  })),
          )
        options.signal?.addEventListener('abort', onAbort, {once: true})
        child.on('error', onError)
      })
    } catch (err) {
      await stopChild(child)
      throw err
    }
    // Nobody waits for a spawn error any more; keep one listener so it cannot throw.
    child.on('error', () => {})
    return new CloudflaredTunnel(url!, child, log)
  }
}

function failureFix(kind: string): string {
  switch (kind) {
    case 'rate-limited':
      return `wait a few minutes before asking for another quick tunnel; ${OTHER_WAYS}`
    case 'network':
      return `check the network and DNS (cloudflared must reach api.trycloudflare.com over HTTPS); ${OTHER_WAYS}`
    case 'edge':
      return `allow outgoing UDP port 7844, or run cloudflared with --protocol http2 behind --public-url; ${OTHER_WAYS}`
    default:
      return `trycloudflare.com may be having trouble: try again later; ${OTHER_WAYS}`
  }
}

/** A Cloudflare quick tunnel through the installed cloudflared. Finds the program at open(). */
export function cloudflaredProvider(options: CloudflaredProviderOptions = {}): CloudflaredProvider {
  return new CloudflaredProvider(options)
}

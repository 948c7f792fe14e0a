/** An end-to-end check of a tunnel: GET <url><path> through the public side. */
import {deadline} from '../lib/deadline.js'
import {TunnelError} from './errors.js'
import {needsNoDns, publicLookup, type PublicLookup} from './public-dns.js'
import {messageOf} from '../lib/errors.js'

export interface ProbeOptions {
  /** Default 5000 ms. */
  timeoutMs?: number
  signal?: AbortSignal
}

export interface ProbeResult {
  /** True when the answer was 2xx. */
  ok: boolean
  /** HTTP status; 0 when no answer came (network error, timeout, abort). */
  status: number
  /** Time until the whole answer was read, in ms. */
  ms: number
  /** Why there was no answer (when status is 0). */
  error?: string
}

export async function probeTunnel(url: string, path: string, options: ProbeOptions = {}): Promise<ProbeResult> {
  const started = performance.now()
  const limit = deadline(options.timeoutMs ?? 5000, options.signal)
  const signal = limit.signal
  const target = url.replace(/\/+$/, '') + (path.startsWith('/') ? path : `/${path}`)
  try {
    // localtunnel.me shows a reminder page to browsers unless this header is present.
    const res = await fetch(target, {signal, headers: {'bypass-tunnel-reminder': '1', 'user-agent': 'bot-cli-probe'}})
    await res.arrayBuffer()
    return {ok: res.ok, status: res.status, ms: performance.now() - started}
  } catch (err) {
    let error: string
    if (options.signal?.aborted) error = 'aborted'
    else if (limit.timedOut) error = `no answer within ${options.timeoutMs ?? 5000} ms`
    else {
      const cause = (err as {cause?: {code?: string; message?: string}}).cause
      error = cause?.code ?? cause?.message ?? messageOf(err)
    }
    return {ok: false, status: 0, ms: performance.now() - started, error}
  } finally {
    limit.clear()
  }
}

// ---------------------------------------------------------------------------------------------
// The readiness proof: the public URL reaches our relay, before anything tells Telegram about it.

export interface ProveOptions {
  /** The relay's health answer (`bot-dev <nonce>`) or its nonce alone; without it any 2xx proves it. */
  expect?: string
  /** Give up after this long (default 30000 ms). */
  timeoutMs?: number
  /** Pause between two attempts (default 500 ms). */
  intervalMs?: number
  signal?: AbortSignal
  /** How to ask public DNS whether the host exists yet (tests replace it). */
  lookup?: PublicLookup
}

export interface ProveResult {
  /** Time until the proof, in ms. */
  ms: number
  /** HTTP attempts made. */
  attempts: number
}

const MAX_BODY = 4096

/** Reads at most MAX_BODY bytes of a body as text, then lets go of the rest. */
async function boundedText(res: Response): Promise<string> {
  if (!res.body) return ''
  const reader = res.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  try {
    while (size < MAX_BODY) {
      const {done, value} = await reader.read()
      if (done) break
      chunks.push(value)
      size += value.byteLength
    }
  } finally {
    void reader.cancel().catch(() => {})
  }
  return Buffer.concat(chunks).subarray(0, MAX_BODY).toString('utf8')
}

function isOurs(body: string, expect: string | undefined): boolean {
  if (expect === undefined) return true
  const got = body.trim()
  const want = expect.trim()
  return got === want || got === `bot-dev ${want}`
}

function describeError(err: unknown): string {
  const cause = (err as {cause?: {code?: string; message?: string}}).cause
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err))
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve()
    const done = () => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    // Always through a timer, even for 0 ms: the deadline's own timer must get its turn.
    const timer = setTimeout(done, Math.max(0, ms))
    signal.addEventListener('abort', done, {once: true})
  })
}

/**
 * GET <publicUrl><healthPath> until a 2xx whose body is the relay's health answer comes back; then
 * resolves with the time it took. At the deadline: a TunnelError naming what came back, with a fix.
 * Works for any provider (cloudflared, localtunnel, a public URL, loopback). For a quick tunnel's
 * host (*.trycloudflare.com), waits first until public DNS knows it (see public-dns.ts), so this
 * machine never caches "no such host"; any other name is asked of this machine's resolver only.
 */
/** The longest one HTTP attempt of proveReachable may take. */
const ATTEMPT_MS = 5000

export async function proveReachable(
  publicUrl: string,
  healthPath: string,
  options: ProveOptions = {},
): Promise<ProveResult> {
  const started = performance.now()
  const timeoutMs = options.timeoutMs ?? 30_000
  const intervalMs = options.intervalMs ?? 500
  const base = publicUrl.replace(/\/+$/, '')
  const target = base + (healthPath.startsWith('/') ? healthPath : `/${healthPath}`)
  let hostname: string
  try {
    hostname = new URL(target).hostname
  } catch {
    throw new TunnelError(`"${base}" is not a URL`, {code: 'tunnel_invalid', fix: 'give an http(s) URL'})
  }
  const whole = deadline(Math.max(1, Math.ceil(timeoutMs)), options.signal)
  const signal = whole.signal
  const left = () => timeoutMs - (performance.now() - started)
  const aborted = () => new TunnelError('the reachability check was cancelled', {code: 'tunnel_aborted'})

  try {
    let attempts = 0
    let last = 'no answer yet'
    let foreign = false
    let lastStatus = 0
    let dnsKnown = needsNoDns(hostname)
    const lookup = options.lookup ?? publicLookup

    while (!signal.aborted && left() > 0) {
      if (!dnsKnown) {
        const state = await lookup(hostname, signal).catch(() => 'unknown' as const)
        if (options.signal?.aborted) throw aborted()
        if (state === 'no') {
          last = `${hostname} is not in public DNS yet`
          await pause(Math.min(intervalMs, left()), signal)
          continue
        }
        dnsKnown = true
      }
      attempts++
      // The last attempt gets what is left of the whole wait: cut off by that, it says nothing about the tunnel.
      const lastChance = left() < ATTEMPT_MS
      const attempt = deadline(Math.max(1, Math.ceil(Math.min(ATTEMPT_MS, left()))), signal)
      const attemptSignal = attempt.signal
      try {
        const res = await fetch(target, {
          signal: attemptSignal,
          redirect: 'manual',
          headers: {'bypass-tunnel-reminder': 'bot-dev', 'user-agent': 'bot-dev-probe', 'cache-control': 'no-cache'},
        })
        const body = await boundedText(res)
        if (res.status >= 200 && res.status < 300 && isOurs(body, options.expect)) {
          return {ms: Math.round(performance.now() - started), attempts}
        }
        foreign = res.status >= 200 && res.status < 300
        lastStatus = res.status
        const snippet = body.trim().split('\n')[0]!.slice(0, 80)
        last = foreign
          ? `HTTP ${res.status} from something that is not this relay${snippet ? ` ("${snippet}")` : ''}`
          : `HTTP ${res.status}${snippet && !/</.test(snippet) ? ` ("${snippet}")` : ''}`
      } catch (err) {
        if (options.signal?.aborted) throw aborted()
        if (!signal.aborted && !(lastChance && attemptSignal.aborted)) {
          last = attemptSignal.aborted ? 'no answer within 5 s' : describeError(err)
          lastStatus = 0
          foreign = false
        } else if (last === 'no answer yet') {
          last = 'no answer'
        }
      } finally {
        attempt.clear()
      }
      await pause(Math.min(intervalMs, left()), signal)
    }
    if (options.signal?.aborted) throw aborted()
    const others =
      'another way in (--tunnel localtunnel, --tunnel cloudflared, --public-url URL, or --tunnel none, which needs no public URL)'
    const fix = foreign
      ? `the URL answers, but not from this relay: make it forward to the relay's port; or use --tunnel none (no public URL needed)`
      : lastStatus === 404
        ? `the tunnel does not lead to the relay: its server does not know this tunnel, or (cloudflared) a config.yml with ingress rules in ~/.cloudflared or /etc/cloudflared takes over quick tunnels; or use ${others}`
        : `the tunnel may need longer or be broken: try again, or use ${others}`
    throw new TunnelError(
      `${base} did not reach the relay within ${Math.round(timeoutMs / 100) / 10} s (${attempts} ${attempts === 1 ? 'attempt' : 'attempts'}; last: ${last})`,
      {code: 'tunnel_unreachable', fix},
    )
  } finally {
    whole.clear()
  }
}

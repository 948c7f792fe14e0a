/**
 * A fuzz harness for the servers of a session (and the emulator): `fuzzServer(target)` sends
 * `count` generated hostile requests to one server over raw TCP (any bytes, not what an HTTP client
 * would send), several at once, and after each one checks that the serving process is alive and
 * that a legitimate request still works. It reports what came back and the process's memory (its
 * peak resident size, VmHWM, from /proc).
 *
 * The requests (seeded, so a failure can be replayed): request lines with odd methods, targets and
 * versions; Hosts that are right, rebound (rebind.attacker.example:PORT), portless, doubled or
 * missing; cross-site headers (Origin of another site or `null`, Sec-Fetch-Site cross-site /
 * same-site); the target's key or secret on most of them (so the handlers behind the door are
 * reached too) or a wrong one; odd headers (thousands of them, a huge one, a NUL, obs-fold,
 * Content-Length twice or with Transfer-Encoding, a bad chunk, Expect: 100-continue, Upgrade);
 * bodies nested 100,000 levels deep, numbers like 1e999, `__proto__` keys, invalid UTF-8, 100,000
 * form fields, 5,000 multipart parts, gzip / deflate / brotli bombs (64 MiB of zeros in a few KiB),
 * bodies of 4-32 MiB and bodies cut short.
 *
 * A target is a few lines: its port, the paths worth hitting (the main route first), the headers
 * that authenticate, a legitimate request and how to tell its process is alive (see
 * test/fuzz.e2e.test.ts).
 */
import {readFileSync} from 'node:fs'
import net from 'node:net'
import {brotliCompressSync, constants as zlib, deflateSync, gzipSync} from 'node:zlib'

export interface FuzzTarget {
  name: string
  port: number
  /** Paths worth hitting (the server's routes, with their query strings); hostile ones are added. */
  paths: string[]
  /** Headers that get a request past the door (a key, a secret): sent with most requests. */
  auth?: Record<string, string>
  /** A legitimate request: resolves when it worked, rejects saying what went wrong. */
  legit(): Promise<void>
  /** Whether the process serving it is still alive. */
  alive(): boolean
  /** Its pid, for its memory. */
  pid: number
  /** Hostile requests at once (default 4). */
  concurrency?: number
  /** A hostile request still open after this long is cut by the client (default 3000 ms). */
  requestTimeoutMs?: number
}

export interface FuzzReport {
  target: string
  requests: number
  ms: number
  /** How many of each answer: the HTTP status, `none` (closed without an answer) or `cut` (our timeout). */
  answers: Record<string, number>
  /** How many of each kind of body were sent. */
  bodies: Record<string, number>
  /** The process's peak and current resident size after the run (bytes), and its peak before. */
  peakRssBefore: number
  peakRss: number
  rss: number
}

/** The process's memory from /proc/<pid>/status: VmHWM (peak resident) and VmRSS, in bytes. */
export function processMemory(pid: number): {peak: number; rss: number} {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024
  return {peak: kb('VmHWM'), rss: kb('VmRSS')}
}

/** mulberry32: a small seeded generator (the same seed gives the same requests). */
function random(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

export interface Rng {
  next(): number
  chance(p: number): boolean
  pick<T>(items: readonly T[]): T
  int(min: number, max: number): number
}

export function rng(seed: number): Rng {
  const next = random(seed)
  return {
    next,
    chance: (p) => next() < p,
    pick: (items) => items[Math.floor(next() * items.length)],
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
  }
}

const MIB = 1024 * 1024

/** The big payloads, made once per process. */
const payloads = (() => {
  let made: ReturnType<typeof make> | undefined
  function make() {
    const deepArray = Buffer.from('['.repeat(100_000) + ']'.repeat(100_000))
    const deepObject = Buffer.from('{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000))
    const deepUpdate = Buffer.from(
      `{"update_id":1,"message":{"message_id":1,"date":1,"chat":{"id":1,"type":"private"},"text":"x","entities":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`,
    )
    const zeros = Buffer.alloc(64 * MIB)
    const boundary = 'fuzzBoundary7MA4YWxkTrZu0gW'
    const part = (i: number) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="f${i}"; filename="f${i}.bin"\r\nContent-Type: application/octet-stream\r\n\r\nx\r\n`
    const multipart = Buffer.from(Array.from({length: 5000}, (_, i) => part(i)).join('') + `--${boundary}--\r\n`)
    const bombPart = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="document"; filename="z.bin"\r\n\r\n`),
      Buffer.alloc(16 * MIB),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ])
    return {
      boundary,
      deepArray,
      deepObject,
      deepUpdate,
      gzipBomb: gzipSync(zeros, {level: 1}),
      deflateBomb: deflateSync(zeros, {level: 1}),
      brotliBomb: brotliCompressSync(zeros, {params: {[zlib.BROTLI_PARAM_QUALITY]: 1}}),
      multipartBomb: gzipSync(bombPart, {level: 1}),
      multipart,
      huge: Buffer.alloc(32 * MIB, 0x61),
      form: Buffer.from('a=1&'.repeat(100_000)),
      longText: Buffer.from(`{"update_id":1,"message":{"text":"${'x'.repeat(2 * MIB)}"}}`),
    }
  }
  return () => (made ??= make())
})()

/** A small update, valid except where a test says otherwise. */
function update(r: Rng): string {
  return JSON.stringify({
    update_id: r.int(1, 2_000_000_000),
    message: {
      message_id: r.int(1, 1000),
      date: Math.floor(Date.now() / 1000),
      chat: {id: r.int(1, 5000), type: 'private'},
      from: {id: r.int(1, 5000), is_bot: false, first_name: 'F'},
      text: r.pick(['hi', '/start', '<img src=x onerror=alert(1)>', '\u202e\u0000\u001b[2J', '𝕏'.repeat(100)]),
    },
  })
}

interface Body {
  kind: string
  bytes: Buffer
  headers: string[]
  /** Send less than Content-Length says (the server waits for the rest until it gives up or we cut). */
  short?: boolean
}

function body(r: Rng): Body {
  const p = payloads()
  const json = 'Content-Type: application/json'
  const roll = r.next()
  if (roll < 0.12) return {kind: 'none', bytes: Buffer.alloc(0), headers: []}
  if (roll < 0.3) return {kind: 'update', bytes: Buffer.from(update(r)), headers: [json]}
  if (roll < 0.36) return {kind: 'deep-array', bytes: p.deepArray, headers: [json]}
  if (roll < 0.42) return {kind: 'deep-object', bytes: p.deepObject, headers: [json]}
  if (roll < 0.5) return {kind: 'deep-update', bytes: p.deepUpdate, headers: [json]}
  if (roll < 0.54)
    return {
      kind: 'numbers',
      bytes: Buffer.from(
        r.pick([
          '{"update_id":1e308,"zzz":{}}',
          '{"update_id":1e999,"message":{"message_id":-0,"chat":{"id":18446744073709551616}}}',
          '{"kind":"message","text":"x","chatId":1e400,"userId":-1}',
          '{"updateId":"last","update":{"update_id":-5,"message":[]}}',
        ]),
      ),
      headers: [json],
    }
  if (roll < 0.58)
    return {
      kind: 'proto',
      bytes: Buffer.from(
        '{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}},"update_id":1,"message":{"__proto__":{"text":"x"}},"kind":"update","update":{"__proto__":{}}}',
      ),
      headers: [json],
    }
  if (roll < 0.61)
    return {
      kind: 'bad-utf8',
      bytes: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80, 0x22, 0x7d]),
      headers: [json],
    }
  if (roll < 0.64) return {kind: 'long-text', bytes: p.longText, headers: [json]}
  if (roll < 0.67)
    return {kind: 'form-fields', bytes: p.form, headers: ['Content-Type: application/x-www-form-urlencoded']}
  if (roll < 0.7)
    return {
      kind: 'multipart-parts',
      bytes: p.multipart,
      headers: [`Content-Type: multipart/form-data; boundary=${p.boundary}`],
    }
  if (roll < 0.76)
    return {
      kind: 'gzip-bomb',
      bytes: p.gzipBomb,
      headers: [
        r.pick([json, 'Content-Type: text/plain', 'Content-Type: application/octet-stream']),
        'Content-Encoding: gzip',
      ],
    }
  if (roll < 0.79)
    return {
      kind: 'multipart-gzip-bomb',
      bytes: p.multipartBomb,
      headers: [`Content-Type: multipart/form-data; boundary=${p.boundary}`, 'Content-Encoding: gzip'],
    }
  if (roll < 0.82) return {kind: 'deflate-bomb', bytes: p.deflateBomb, headers: [json, 'Content-Encoding: deflate']}
  if (roll < 0.85) return {kind: 'brotli-bomb', bytes: p.brotliBomb, headers: [json, 'Content-Encoding: br']}
  if (roll < 0.88)
    return {
      kind: 'bad-encoding',
      bytes: Buffer.from(update(r)),
      headers: [json, `Content-Encoding: ${r.pick(['gzip', 'deflate', 'br', 'gzip, gzip', 'zstd', 'x-evil'])}`],
    }
  if (roll < 0.9) return {kind: 'huge', bytes: p.huge.subarray(0, r.int(4, 32) * MIB), headers: [json]}
  if (roll < 0.91) return {kind: 'short', bytes: Buffer.from(update(r)), headers: [json], short: true}
  return {kind: 'text', bytes: Buffer.from(update(r)), headers: ['Content-Type: text/plain;charset=UTF-8']}
}

const METHODS = ['GET', 'POST', 'POST', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH', 'FOO', 'CONNECT']

function hostilePath(r: Rng, target: FuzzTarget): string {
  if (r.chance(0.75)) {
    // The first path is the server's main route: the one most worth reaching.
    const path = r.chance(0.6) ? target.paths[0] : r.pick(target.paths)
    if (!r.chance(0.3)) return path
    return (
      path +
      (path.includes('?') ? '&' : '?') +
      r.pick(['key=wrong', 'a=%00%ff', 'x='.repeat(2000), 'update_id=1e999', 'chat=%E2%80%AE', 'q[__proto__][x]=1'])
    )
  }
  return r.pick([
    '/',
    '*',
    'http://evil.example/x',
    '//evil.example/x',
    '/%00',
    '/..%2f..%2fetc/passwd',
    '/../../etc/passwd',
    `/${'a'.repeat(10_000)}`,
    '/_emulator/reset',
    '/%5Femulator/reset',
    '/api/updates/1e308/replay',
    '/api/updates/-1',
    '/api/events',
    '/trigger',
    '/replay',
    '/webhook/x',
    '/bot1:x/getMe',
    '/\u00ff\u00fe',
  ])
}

/** One hostile request: the bytes to send (head, then body) and what kind it is. */
export function hostileRequest(r: Rng, target: FuzzTarget): {head: string; body: Body} {
  const b = body(r)
  const method = b.kind === 'none' ? r.pick(METHODS) : r.pick(['POST', 'POST', 'POST', 'PUT', 'GET', 'PATCH'])
  const version = r.chance(0.92) ? 'HTTP/1.1' : r.pick(['HTTP/1.0', 'HTTP/2.0', 'HTTP/1.1 x', 'HTTP/9.9'])
  const lines = [`${method} ${hostilePath(r, target)} ${version}`]
  const port = target.port
  const hostRoll = r.next()
  if (hostRoll < 0.6) lines.push(`Host: 127.0.0.1:${port}`)
  else if (hostRoll < 0.68) lines.push(`Host: localhost:${port}`)
  else if (hostRoll < 0.72) lines.push(`Host: [::1]:${port}`)
  else if (hostRoll < 0.8) lines.push(`Host: rebind.attacker.example:${port}`)
  else if (hostRoll < 0.84) lines.push('Host: 127.0.0.1')
  else if (hostRoll < 0.88) lines.push(`Host: 127.0.0.1:${port}`, 'Host: evil.example')
  else if (hostRoll < 0.92) lines.push(`Host: 127.0.0.1:${port}.evil.example`)
  else if (hostRoll < 0.95) lines.push(`Host: ${'h'.repeat(5000)}`)
  // else: no Host at all
  if (r.chance(0.35)) {
    lines.push(
      `Origin: ${r.pick(['http://evil.example', 'null', 'http://127.0.0.1:1', `http://rebind.attacker.example:${port}`])}`,
    )
    if (r.chance(0.7)) lines.push(`Sec-Fetch-Site: ${r.pick(['cross-site', 'same-site', 'cross-site', 'weird'])}`)
    if (r.chance(0.5)) lines.push('Sec-Fetch-Mode: no-cors', 'Sec-Fetch-Dest: empty')
  } else if (r.chance(0.1)) lines.push(`Sec-Fetch-Site: ${r.pick(['cross-site', 'same-site'])}`)
  const auth = target.auth ?? {}
  if (r.chance(0.7)) for (const [name, value] of Object.entries(auth)) lines.push(`${name}: ${value}`)
  else if (r.chance(0.5))
    for (const name of Object.keys(auth)) lines.push(`${name}: ${r.pick(['wrong', '', 'x'.repeat(300)])}`)
  lines.push(...b.headers)
  const framing = r.next()
  let payload = b.bytes
  if (b.kind !== 'none' || r.chance(0.3)) {
    if (framing < 0.8) lines.push(`Content-Length: ${b.short ? b.bytes.length + 1000 : b.bytes.length}`)
    else if (framing < 0.88) {
      lines.push('Transfer-Encoding: chunked')
      const bad = r.chance(0.3)
      payload = Buffer.concat([
        Buffer.from(`${bad ? 'zz' : b.bytes.length.toString(16)}\r\n`),
        b.bytes,
        Buffer.from('\r\n0\r\n\r\n'),
      ])
    } else if (framing < 0.92) lines.push(`Content-Length: ${b.bytes.length}`, `Content-Length: ${b.bytes.length + 1}`)
    else if (framing < 0.96) lines.push(`Content-Length: ${b.bytes.length}`, 'Transfer-Encoding: chunked')
    else lines.push(`Content-Length: ${r.pick(['-1', '1e3', '0x10', '99999999999999999999', ' 5'])}`)
  }
  const odd = r.next()
  if (odd < 0.03) lines.push(...Array.from({length: 3000}, (_, i) => `X-F${i}: y`))
  else if (odd < 0.06) lines.push(`X-Big: ${'b'.repeat(20_000)}`)
  else if (odd < 0.08) lines.push('X-Nul: a\u0000b')
  else if (odd < 0.1) lines.push('X-Fold: a', '  folded')
  else if (odd < 0.13) lines.push('Expect: 100-continue')
  else if (odd < 0.15) lines.push('Connection: Upgrade', 'Upgrade: websocket', 'Sec-WebSocket-Version: 13')
  else if (odd < 0.17) lines.push('X-Latin: \u00e9\u00ff')
  else if (odd < 0.19) lines.push('Bad Header Line')
  if (r.chance(0.9)) lines.push('Connection: close')
  return {head: `${lines.join('\r\n')}\r\n\r\n`, body: {...b, bytes: payload}}
}

/** The first final status in `text` (after any 100 Continue), or undefined before one arrived whole. */
function finalStatus(text: string): {status: number; complete: boolean} | undefined {
  let at = 0
  for (;;) {
    const end = text.indexOf('\r\n\r\n', at)
    if (end < 0) return undefined
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(text.slice(at, end))?.[1] ?? 0)
    if (status >= 100 && status < 200 && status !== 101) {
      at = end + 4
      continue
    }
    const head = text.slice(at, end).toLowerCase()
    const length = /\r\ncontent-length: *(\d+)/.exec(head)
    const rest = text.length - end - 4
    const complete =
      head.includes('text/event-stream') ||
      (length !== null && rest >= Number(length[1])) ||
      (head.includes('transfer-encoding: chunked') && text.endsWith('0\r\n\r\n'))
    return {status, complete}
  }
}

/** Sends one raw request; resolves with the answer's status, `none` or `cut`. Never rejects. */
function send(port: number, head: string, b: Body, timeoutMs: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1')
    let text = ''
    let done = false
    const finish = (answer: string) => {
      if (done) return
      done = true
      clearTimeout(timer)
      socket.destroy()
      resolve(answer)
    }
    const timer = setTimeout(
      () => {
        const got = finalStatus(text)
        finish(got ? String(got.status) : 'cut')
      },
      b.short ? Math.min(300, timeoutMs) : timeoutMs,
    )
    socket.on('error', () => {})
    socket.on('data', (chunk: Buffer) => {
      // Only the head matters (a huge answer is not kept).
      if (text.length < 64 * 1024) text += chunk.toString('latin1')
      const got = finalStatus(text)
      if (got?.complete) finish(String(got.status))
    })
    socket.on('close', () => {
      const got = finalStatus(text)
      finish(got ? String(got.status) : 'none')
    })
    socket.on('connect', () => {
      socket.write(head)
      if (b.bytes.length > 0) socket.write(b.bytes)
      if (!b.short) socket.end()
    })
  })
}

/**
 * Sends `count` hostile requests to `target` (`concurrency` at once); after each: the process is
 * alive and a legitimate request works (else it throws, naming the request that broke it).
 */
export async function fuzzServer(target: FuzzTarget, o: {count?: number; seed?: number} = {}): Promise<FuzzReport> {
  const count = o.count ?? 2000
  const seed = o.seed ?? 20
  const r = rng(seed)
  const requests = Array.from({length: count}, () => hostileRequest(r, target))
  const answers: Record<string, number> = {}
  const bodies: Record<string, number> = {}
  const peakRssBefore = processMemory(target.pid).peak
  const started = performance.now()
  let next = 0
  let failure: Error | undefined
  const worker = async () => {
    while (next < requests.length && !failure) {
      const i = next++
      const {head, body: b} = requests[i]
      bodies[b.kind] = (bodies[b.kind] ?? 0) + 1
      const answer = await send(target.port, head, b, target.requestTimeoutMs ?? 3000)
      answers[answer] = (answers[answer] ?? 0) + 1
      const what = () =>
        `${target.name}: after hostile request #${i} (seed ${seed}, body ${b.kind}, ${b.bytes.length} bytes, answered ${answer}):\n${head.slice(0, 600)}`
      if (!target.alive()) {
        failure = new Error(`the process died ${what()}`)
        return
      }
      try {
        await target.legit()
      } catch (error) {
        failure = new Error(`a legitimate request failed (${(error as Error).message}) ${what()}`)
        return
      }
    }
  }
  await Promise.all(Array.from({length: target.concurrency ?? 4}, worker))
  if (failure) throw failure
  const memory = processMemory(target.pid)
  return {
    target: target.name,
    requests: count,
    ms: Math.round(performance.now() - started),
    answers,
    bodies,
    peakRssBefore,
    peakRss: memory.peak,
    rss: memory.rss,
  }
}

/** One line of a report, for the test's output. */
export function reportLine(report: FuzzReport): string {
  const mb = (n: number) => `${Math.round(n / MIB)} MB`
  const answers = Object.entries(report.answers)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k}×${v}`)
    .join(' ')
  return `fuzz ${report.target}: ${report.requests} hostile requests in ${(report.ms / 1000).toFixed(1)} s; peak RSS ${mb(report.peakRssBefore)} → ${mb(report.peakRss)} (now ${mb(report.rss)}); answers ${answers}`
}

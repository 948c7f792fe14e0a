/**
 * Generated hostile requests against one emulator (issue 20 items 1-3 together), standing alone until the suite's
 * fuzz harness (test/support/ on branch i20) gets an emulator target: deep JSON, large, compressed and broken bodies,
 * odd content types and encodings, cross-site headers and rebound Hosts, on both surfaces and /file. After each one the
 * emulator must have answered without a 500 (an unexpected failure), and a legitimate getMe must still answer 200. The
 * run is seeded (BOT_FUZZ_SEED, BOT_FUZZ_COUNT); peak RSS is printed.
 */
import http from 'node:http'
import {deflateSync, gzipSync} from 'node:zlib'
import {describe, expect, it} from 'vitest'
import {setup} from './helpers.js'

const COUNT = Number(process.env.BOT_FUZZ_COUNT ?? 2000)
const SEED = Number(process.env.BOT_FUZZ_SEED ?? 20_2003)
const MiB = 1024 * 1024

/** mulberry32: a small seeded generator, so a failure can be run again. */
function generator(seed: number) {
  let a = seed >>> 0
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]
  return {next, pick, chance: (p: number) => next() < p}
}

interface Hostile {
  method: string
  path: string
  headers: Record<string, string>
  body?: Buffer
}

function send(port: number, r: Hostile): Promise<{status: number; text: string}> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {host: '127.0.0.1', port, method: r.method, path: r.path, headers: r.headers, setHost: false},
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (c: string) => (text += c.length < 4096 ? c : c.slice(0, 4096)))
        res.on('end', () => resolve({status: res.statusCode ?? 0, text}))
      },
    )
    req.on('error', reject)
    // an answer that never comes is a failure too (a request the emulator forgot)
    req.setTimeout(10_000, () => {
      req.destroy()
      reject(new Error(`no answer within 10 s: ${r.method} ${r.path.slice(0, 120)} ${JSON.stringify(r.headers)}`))
    })
    req.end(r.body)
  })
}

describe('generated hostile requests', () => {
  it(`${COUNT} of them (seed ${SEED}): no 500, and a legitimate request answers after each`, async () => {
    const {emu, token} = await setup()
    emu.sendUserMessage(token, {text: 'hi', userId: 5})
    const g = generator(SEED)
    const own = `127.0.0.1:${emu.port}`
    const bomb = gzipSync(Buffer.alloc(60 * MiB), {level: 9})
    const deep = (depth: number, open = '[', close = ']') => open.repeat(depth) + close.repeat(depth)

    const bodies: Array<() => {type?: string; body: Buffer; encoding?: string}> = [
      () => ({
        type: 'application/json',
        body: Buffer.from(`{"chat_id":5,"text":"x","reply_markup":${deep(g.pick([99, 101, 5000, 200_000]))}}`),
      }),
      () => ({
        type: 'application/json',
        body: Buffer.from(`{"message":{"text":"x","x":${deep(g.pick([60, 70, 100_000]), '{"a":', '}')}}}`),
      }),
      () => ({
        type: 'application/json',
        body: Buffer.from(`{"chat_id":5,"text":"${'x'.repeat(g.pick([10, 5000, 2 * MiB]))}"}`),
      }),
      () => ({
        type: 'application/x-www-form-urlencoded',
        body: Buffer.from(`chat_id=5&text=x&entities=${deep(150_000)}`),
      }),
      () => ({type: 'application/x-www-form-urlencoded', body: Buffer.from('&'.repeat(g.pick([10, MiB + 1])))}),
      () => ({type: g.pick(['text/plain', 'application/json']), body: bomb, encoding: 'gzip'}),
      () => ({type: 'application/json', body: deflateSync('{"chat_id":5,"text":"deflated"}'), encoding: 'deflate'}),
      () => ({
        type: 'application/json',
        body: Buffer.from('garbage that is not gzip'),
        encoding: g.pick(['gzip', 'deflate', 'br', 'x']),
      }),
      () => {
        const b = 'fz'
        const parts = Array.from({length: g.pick([1, 49, 51, 1001])}, (_, i) =>
          g.chance(0.5)
            ? `--${b}\r\nContent-Disposition: form-data; name="f${i}"; filename="f${i}"\r\n\r\nx\r\n`
            : `--${b}\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\n${deep(g.pick([1, 150]))}\r\n`,
        )
        return {type: `multipart/form-data; boundary=${b}`, body: Buffer.from(`${parts.join('')}--${b}--\r\n`)}
      },
      () => ({type: 'multipart/form-data', body: Buffer.from('--x\r\n\r\n')}),
      () => ({
        type: 'multipart/form-data; boundary=zz',
        body: Buffer.from('--zz\r\nContent-Disposition: form-data; name="a"\r\n\r\nunterminated'),
      }),
      () => ({
        type: g.pick([undefined, 'text/plain', 'application/octet-stream', 'x/y; boundary=', '']),
        body: Buffer.from(g.pick(['', '{}', '\u0000\u0001', 'a'.repeat(100_000)])),
      }),
    ]
    const paths = [
      () =>
        `/bot${token}/${g.pick(['sendMessage', 'getUpdates', 'setWebhook', 'sendDocument', 'sendMediaGroup', 'editMessageText', 'answerInlineQuery', 'setMyCommands', 'nope', ''])}`,
      () =>
        `/bot${token}/sendMessage?chat_id=5&text=q&reply_markup=${encodeURIComponent(deep(g.pick([50, 101, 2000])))}`,
      () =>
        `/_emulator/bots/${token}/${g.pick(['messages', 'updates', 'calls', 'state', 'faults', 'callback_queries', 'chats/5/block', 'polls/1/answers', 'x'])}`,
      () => `/_emulator/${g.pick(['reset', 'bots', '', 'bots/x/y'])}`,
      () => `/file/bot${token}/${g.pick(['documents/file_0.txt', '../../etc/passwd', '%zz'])}`,
      () => g.pick(['/', '/bot', '/botx/getMe', `/bot${token}`, '/%', '/_emulator']),
    ]
    const hostile = (): Hostile => {
      const headers: Record<string, string> = {
        Host: g.chance(0.8)
          ? own
          : g.pick([
              `rebind.attacker.example:${emu.port}`,
              `127.0.0.1:${emu.port + 1}`,
              'localhost',
              `LOCALHOST:${emu.port}`,
            ]),
      }
      if (g.chance(0.2)) headers.Origin = g.pick(['null', 'http://attacker.example', `http://${own}`, 'https://x'])
      if (g.chance(0.2)) headers['Sec-Fetch-Site'] = g.pick(['cross-site', 'same-site', 'same-origin', 'none', 'weird'])
      const method = g.pick(['GET', 'POST', 'POST', 'POST', 'PUT', 'OPTIONS'])
      const path = g.pick(paths)()
      if (method === 'GET' && g.chance(0.7)) return {method, path, headers}
      const {type, body, encoding} = g.pick(bodies)()
      if (type !== undefined) headers['Content-Type'] = type
      if (encoding) headers['Content-Encoding'] = encoding
      headers['Content-Length'] = String(body.length)
      return {method, path, headers, body}
    }

    let peak = process.memoryUsage().rss
    const statuses = new Map<number, number>()
    for (let i = 0; i < COUNT; i++) {
      const r = hostile()
      const answer = await send(emu.port, r)
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1)
      expect(
        answer.status,
        `request ${i}: ${r.method} ${r.path.slice(0, 120)} ${JSON.stringify(r.headers)} → ${answer.text.slice(0, 300)}`,
      ).not.toBe(500)
      const me = await send(emu.port, {method: 'GET', path: `/bot${token}/getMe`, headers: {Host: own}}).catch(
        (err: Error) => {
          throw new Error(
            `${err.message}\nafter request ${i}: ${r.method} ${r.path.slice(0, 120)} ${JSON.stringify(r.headers)} (${r.body?.length ?? 0} bytes) → ${answer.status} ${answer.text.slice(0, 200)}`,
          )
        },
      )
      expect(me.status, `getMe after request ${i}: ${r.method} ${r.path.slice(0, 120)}`).toBe(200)
      peak = Math.max(peak, process.memoryUsage().rss)
    }
    console.log(
      `${COUNT} hostile requests (seed ${SEED}): ${[...statuses]
        .sort(([a], [b]) => a - b)
        .map(([s, n]) => `${s}×${n}`)
        .join(' ')}; peak RSS of the test process ${(peak / MiB).toFixed(0)} MiB`,
    )
  }, 120_000)
})

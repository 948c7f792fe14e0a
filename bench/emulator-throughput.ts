/**
 * Updates per second through the Bot API emulator to a trivial bot (long polling and webhook), and the same
 * polling path against telegram-test-api 4.2.1 as the reference, on this machine, in this run. Loopback only.
 *
 *   npx tsx bench/emulator-throughput.ts            (BENCH_UPDATES=2000 BENCH_ROUNDTRIPS=300 by default)
 *
 * The trivial bot: getUpdates → sendMessage(chat_id, text) for each update, one at a time (as grammY and
 * Telegraf do by default), offset = last update_id + 1. In webhook mode: an HTTP server that calls sendMessage
 * and then answers 200 (plus a variant answering with the method in the webhook reply).
 * Updates are injected in-process for both servers (emulator.sendUserMessage; telegram-test-api's
 * client.makeMessage + server.addUserMessage), spread over 50 private chats.
 */
import http from 'node:http'
import type {AddressInfo} from 'node:net'
import {BotApiEmulator} from '../src/emulator/index.js'

const N = Number(process.env.BENCH_UPDATES ?? 2000)
const ROUNDTRIPS = Number(process.env.BENCH_ROUNDTRIPS ?? 300)
const CHATS = 50
const DEADLINE_MS = 60_000

interface Result {
  label: string
  updates: number
  ms: number
  perSecond: number
  p50?: number
  p99?: number
}

const post = async (url: string, body: unknown, signal?: AbortSignal): Promise<any> => {
  const res = await fetch(url, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify(body), signal})
  return res.json()
}

/** The trivial polling bot. `onReply` is called after each successful sendMessage. */
function startPollingBot(base: string, longPoll: boolean, onReply: () => void) {
  let stopped = false
  let current: AbortController | undefined // one per getUpdates (a long-lived signal makes undici pile up listeners)
  const done = (async () => {
    let offset = 0
    while (!stopped) {
      let updates: any[]
      try {
        current = new AbortController()
        const answer = await post(`${base}/getUpdates`, {offset, timeout: longPoll ? 30 : 0}, current.signal)
        updates = answer.result ?? []
      } catch {
        if (stopped) return
        continue
      }
      for (const u of updates) {
        offset = u.update_id + 1
        const chatId = u.message.chat.id
        const sent = await post(`${base}/sendMessage`, {chat_id: chatId, text: `re: ${u.message.text}`}).catch(() => undefined)
        if (sent?.ok) onReply()
      }
    }
  })()
  return {stop: async () => {
    stopped = true
    current?.abort()
    await done
  }}
}

/** A reply counter that can be awaited (no polling loop competing for the CPU). */
class Counter {
  value = 0
  private waiters: Array<{target: number; resolve: () => void}> = []
  add(): void {
    this.value += 1
    this.waiters = this.waiters.filter((w) => {
      if (this.value < w.target) return true
      w.resolve()
      return false
    })
  }
  /** Resolves when the count reaches `target`; rejects at the deadline. */
  reach(target: number, what: string): Promise<void> {
    if (this.value >= target) return Promise.resolve()
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${what}: only ${this.value}/${target} within ${DEADLINE_MS} ms`)), DEADLINE_MS)
      this.waiters.push({target, resolve: () => {
        clearTimeout(timer)
        resolve()
      }})
    })
  }
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

/** Burst: N updates queued at once, time until the bot has answered all. Then sequential round trips. */
async function measure(label: string, inject: (i: number) => void | Promise<void>, replies: Counter): Promise<Result[]> {
  const start = replies.value
  const t0 = performance.now()
  for (let i = 0; i < N; i++) await inject(i)
  await replies.reach(start + N, label)
  const ms = performance.now() - t0
  const burst: Result = {label: `${label} (burst of ${N})`, updates: N, ms, perSecond: (N / ms) * 1000}

  const latencies: number[] = []
  const r0 = performance.now()
  for (let i = 0; i < ROUNDTRIPS; i++) {
    const before = replies.value
    const t = performance.now()
    await inject(N + i)
    await replies.reach(before + 1, `${label} round trip`)
    latencies.push(performance.now() - t)
  }
  const rms = performance.now() - r0
  const roundTrips: Result = {label: `${label} (round trips)`, updates: ROUNDTRIPS, ms: rms, perSecond: (ROUNDTRIPS / rms) * 1000,
    p50: percentile(latencies, 50), p99: percentile(latencies, 99)}
  return [burst, roundTrips]
}

async function emulatorPolling(): Promise<Result[]> {
  const emu = await BotApiEmulator.start()
  try {
    const {token} = emu.createBot()
    const replies = new Counter()
    const bot = startPollingBot(`${emu.apiRoot}/bot${token}`, true, () => replies.add())
    const results = await measure('emulator, long polling', (i) => {
      emu.sendUserMessage(token, {text: `m${i}`, userId: 1000 + (i % CHATS)})
    }, replies)
    await bot.stop()
    return results
  } finally {
    await emu.stop()
  }
}

async function emulatorWebhook(useReply: boolean): Promise<Result[]> {
  const emu = await BotApiEmulator.start()
  const {token} = emu.createBot()
  const replies = new Counter()
  const agentBase = `${emu.apiRoot}/bot${token}`
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', async () => {
      const update = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      const reply = {chat_id: update.message.chat.id, text: `re: ${update.message.text}`}
      if (useReply) {
        res.writeHead(200, {'content-type': 'application/json'})
        res.end(JSON.stringify({method: 'sendMessage', ...reply}))
        return
      }
      const sent = await post(`${agentBase}/sendMessage`, reply)
      if (sent.ok) replies.add()
      res.writeHead(200)
      res.end()
    })
  })
  server.keepAliveTimeout = 60_000
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
  try {
    await post(`${agentBase}/setWebhook`, {url})
    if (useReply) emu.on('call', (c) => {
      if (c.source === 'webhook-reply' && c.result) replies.add()
    })
    const label = useReply ? 'emulator, webhook (reply in response)' : 'emulator, webhook (sendMessage call)'
    return await measure(label, (i) => {
      emu.sendUserMessage(token, {text: `m${i}`, userId: 1000 + (i % CHATS)})
    }, replies)
  } finally {
    await emu.stop()
    server.closeAllConnections()
    await new Promise((r) => server.close(r))
  }
}

async function telegramTestApiPolling(): Promise<Result[]> {
  const mod = await import('telegram-test-api')
  const TelegramServer = ((mod as any).default?.default ?? (mod as any).default ?? mod) as any
  const server = new TelegramServer({port: 0, host: '127.0.0.1'})
  await server.start()
  const port = (server.server.address() as AddressInfo).port
  const apiURL = `http://127.0.0.1:${port}`
  const token = '123456:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'
  const clients = Array.from({length: CHATS}, (_, c) => server.getClient(token, {userId: 1000 + c, chatId: 1000 + c}))
  const replies = new Counter()
  // telegram-test-api ignores offset and timeout: getUpdates answers at once, so this loop polls without pause
  const bot = startPollingBot(`${apiURL}/bot${token}`, false, () => replies.add())
  try {
    return await measure('telegram-test-api 4.2.1, polling', async (i) => {
      const client = clients[i % CHATS]
      await server.addUserMessage(client.makeMessage(`m${i}`))
    }, replies)
  } finally {
    await bot.stop()
    await server.stop()
  }
}

function print(results: Result[]): void {
  const width = Math.max(...results.map((r) => r.label.length))
  for (const r of results) {
    const latency = r.p50 === undefined ? '' : `   p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99!.toFixed(2)} ms`
    console.log(`${r.label.padEnd(width)}  ${r.perSecond.toFixed(0).padStart(7)} updates/s  (${r.updates} in ${r.ms.toFixed(0)} ms)${latency}`)
  }
}

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)

/** The median of each scenario over the rounds (by updates per second). */
function medians(runs: Result[][]): Result[] {
  return runs[0].map((_, i) => {
    const sorted = runs.map((r) => r[i]).sort((a, b) => a.perSecond - b.perSecond)
    return sorted[Math.floor(sorted.length / 2)]
  })
}

async function main(): Promise<void> {
  console.log(`node ${process.version}, ${N} updates per burst, ${ROUNDTRIPS} sequential round trips, ${CHATS} chats, ` +
    `loopback; median of ${ROUNDS} interleaved rounds\n`)
  const runs = {poll: [] as Result[][], hook: [] as Result[][], hookReply: [] as Result[][], tta: [] as Result[][]}
  for (let round = 0; round < ROUNDS; round++) {
    runs.poll.push(await emulatorPolling())
    runs.tta.push(await telegramTestApiPolling())
    runs.hook.push(await emulatorWebhook(false))
    runs.hookReply.push(await emulatorWebhook(true))
  }
  const poll = medians(runs.poll)
  const tta = medians(runs.tta)
  print([...poll, ...medians(runs.hook), ...medians(runs.hookReply), ...tta])
  console.log('')
  console.log(`ratio emulator / telegram-test-api, polling burst:       ${(poll[0].perSecond / tta[0].perSecond).toFixed(2)}×`)
  console.log(`ratio emulator / telegram-test-api, polling round trips: ${(poll[1].perSecond / tta[1].perSecond).toFixed(2)}×`)
}

main().then(() => process.exit(0), (err: unknown) => {
  console.error(err)
  process.exit(1)
})

/**
 * Figures for the Bot API emulator, each against a baseline measured in the same run, loopback only:
 *
 *   npx tsx bench/emulator-throughput.ts     (BENCH_UPDATES=2000 BENCH_ROUNDTRIPS=1000 BENCH_ROUNDS=3 by default)
 *
 * 1. Updates per second to a trivial bot (long polling and webhook), and the same polling path against
 *    telegram-test-api 4.2.1 as the reference. The trivial bot: getUpdates → sendMessage(chat_id, text) for each
 *    update, one at a time (as grammY and Telegraf do by default), offset = last update_id + 1; in webhook mode an
 *    HTTP server that calls sendMessage and then answers 200 (or answers with the method in the webhook reply).
 *    Its HTTP client is node:http with a keep-alive agent, so the figures are the servers' cost; the polling round
 *    trips are also measured with fetch (undici) as the client, whose own cost is most of a round trip.
 *    Updates are injected in-process for both servers (emulator.sendUserMessage; telegram-test-api's
 *    client.makeMessage + server.addUserMessage), spread over 50 private chats.
 *    A third server is measured in the same turns: the floor (bench/emulator-floor.ts), which answers and does
 *    nothing else. Its ratio to telegram-test-api is the most any server can reach with this client on this machine,
 *    to read the emulator's ratio against.
 * 2. The conversation API's round trip (`await user.send(text)` until the reply is in and the bot is done) with a
 *    grammY bot, long polling and webhook.
 * 3. python-telegram-bot 13 (Debian's, /usr/bin/python3) long polling the emulator, driven over the control API:
 *    POST /_emulator/bots/{token}/messages, then GET …/calls?wait=…&method=sendMessage until its reply.
 * 4. Per-test isolation: a fresh emulator (timeScale 0) + a grammY bot started on it + one `user.send` round trip +
 *    both stopped, in long polling and in webhook mode.
 */
import {spawn, spawnSync} from 'node:child_process'
import http from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import getPort from 'get-port'
import {Bot as GrammyBot, webhookCallback} from 'grammy'
import {BotApiEmulator} from '../src/emulator/index.js'
import {startFloorServer} from './emulator-floor.js'

const N = Number(process.env.BENCH_UPDATES ?? 2000)
const ROUNDTRIPS = Number(process.env.BENCH_ROUNDTRIPS ?? 1000)
const CHATS = 50
const DEADLINE_MS = 60_000

interface Result {
  label: string
  updates: number
  ms: number
  perSecond: number
  p50?: number
  p99?: number
  /** The process's CPU time (user + system) per update, µs: both sides of the loopback are in this process. */
  cpuUs?: number
}

const viaFetch = async (url: string, body: unknown, signal?: AbortSignal): Promise<any> => {
  const res = await fetch(url, {
    method: 'POST',
    headers: {'content-type': 'application/json'},
    body: JSON.stringify(body),
    signal,
  })
  return res.json()
}

const agent = new http.Agent({keepAlive: true, maxSockets: 8})

/** POST JSON with node:http (keep-alive); resolves with the parsed answer. */
function viaHttp(url: string, body: unknown, signal?: AbortSignal): Promise<any> {
  const u = new URL(url)
  const data = JSON.stringify(body)
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'POST',
        agent,
        signal,
        headers: {'content-type': 'application/json', 'content-length': Buffer.byteLength(data)},
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => {
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')))
          } catch (err) {
            reject(err)
          }
        })
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(data)
  })
}

type Post = typeof viaHttp
const post: Post = viaHttp

/**
 * A pause switch for a bot's loop: closed, the loop stops before its next getUpdates (telegram-test-api's bot polls
 * without pause, and would take the CPU from the emulator's turns of the paired measure below).
 */
class Gate {
  private closed: {released: Promise<void>; release: () => void; park: () => void} | undefined

  /** Resolves once the loop waits at the gate. */
  close(): Promise<void> {
    let release!: () => void
    let park!: () => void
    const released = new Promise<void>((r) => {
      release = r
    })
    const parked = new Promise<void>((r) => {
      park = r
    })
    this.closed = {released, release, park}
    return parked
  }

  open(): void {
    const closed = this.closed
    this.closed = undefined
    closed?.release()
  }

  /** The loop's check before each call: a promise to wait for while closed. */
  pass(): Promise<void> | undefined {
    if (!this.closed) return undefined
    this.closed.park()
    return this.closed.released
  }
}

/** The trivial polling bot. `onReply` is called after each successful sendMessage. */
function startPollingBot(base: string, longPoll: boolean, onReply: () => void, call: Post = post, gate?: Gate) {
  let stopped = false
  let current: AbortController | undefined // one per getUpdates (a long-lived signal makes undici pile up listeners)
  const done = (async () => {
    let offset = 0
    while (!stopped) {
      const closed = gate?.pass()
      if (closed) await closed
      if (stopped) return
      let updates: any[]
      try {
        current = new AbortController()
        const answer = await call(`${base}/getUpdates`, {offset, timeout: longPoll ? 30 : 0}, current.signal)
        updates = answer.result ?? []
      } catch {
        if (stopped) return
        continue
      }
      for (const u of updates) {
        offset = u.update_id + 1
        const chatId = u.message.chat.id
        const sent = await call(`${base}/sendMessage`, {chat_id: chatId, text: `re: ${u.message.text}`}).catch(
          () => undefined,
        )
        if (sent?.ok) onReply()
      }
    }
  })()
  return {
    stop: async () => {
      stopped = true
      gate?.open()
      current?.abort()
      await done
    },
  }
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
      const timer = setTimeout(
        () => reject(new Error(`${what}: only ${this.value}/${target} within ${DEADLINE_MS} ms`)),
        DEADLINE_MS,
      )
      this.waiters.push({
        target,
        resolve: () => {
          clearTimeout(timer)
          resolve()
        },
      })
    })
  }
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

/** A polling bot on one of the servers, ready to be measured. */
interface Subject {
  label: string
  inject: (i: number) => void | Promise<void>
  replies: Counter
  /** Closes while the other server of a pair is measured (telegram-test-api's bot polls without pause). */
  gate?: Gate
  stop(): Promise<void>
}

/** `count` (default N) updates queued at once: the time until the bot has answered all. */
async function burstOf(s: Subject, from: number, count = N): Promise<Result> {
  const start = s.replies.value
  const t0 = performance.now()
  for (let i = 0; i < count; i++) await s.inject(from + i)
  await s.replies.reach(start + count, s.label)
  const ms = performance.now() - t0
  return {label: `${s.label} (burst of ${count})`, updates: count, ms, perSecond: (count / ms) * 1000}
}

/** One update injected, until the bot has answered it. */
async function roundTrip(s: Subject, i: number): Promise<void> {
  const before = s.replies.value
  await s.inject(i)
  await s.replies.reach(before + 1, `${s.label} round trip`)
}

/** Burst (unless `burst` is false), then ROUNDTRIPS sequential round trips. */
async function measure(s: Subject, burst = true): Promise<Result[]> {
  const results: Result[] = []
  if (burst) results.push(await burstOf(s, 0))
  results.push(await roundTrips(`${s.label} (round trips)`, ROUNDTRIPS, (i) => roundTrip(s, N + i)))
  return results
}

/** `count` sequential runs of `once`, as a Result with p50/p99 latencies. */
async function roundTrips(label: string, count: number, once: (i: number) => Promise<unknown>): Promise<Result> {
  const latencies: number[] = []
  const r0 = performance.now()
  for (let i = 0; i < count; i++) {
    const t = performance.now()
    await once(i)
    latencies.push(performance.now() - t)
  }
  return summary(label, latencies, performance.now() - r0)
}

function summary(label: string, latencies: number[], ms: number): Result {
  return {
    label,
    updates: latencies.length,
    ms,
    perSecond: (latencies.length / ms) * 1000,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  }
}

/** The emulator with the trivial bot long polling it; updates injected in-process. */
async function emulatorSubject(call: Post = post, client = ''): Promise<Subject> {
  const emu = await BotApiEmulator.start()
  const {token} = emu.createBot()
  const replies = new Counter()
  const bot = startPollingBot(`${emu.apiRoot}/bot${token}`, true, () => replies.add(), call)
  return {
    label: `emulator, long polling${client}`,
    inject: (i) => {
      emu.sendUserMessage(token, {text: `m${i}`, userId: 1000 + (i % CHATS)})
    },
    replies,
    stop: async () => {
      await bot.stop()
      await emu.stop()
    },
  }
}

/** telegram-test-api 4.2.1 with the same bot polling it (without pause: it ignores timeout). */
async function telegramTestApiSubject(call: Post = post, client = ''): Promise<Subject> {
  const mod = await import('telegram-test-api')
  const TelegramServer = ((mod as any).default?.default ?? (mod as any).default ?? mod) as any
  // telegram-test-api treats port 0 as "unset" and takes 9000: give it a free port
  const server = new TelegramServer({port: await getPort({host: '127.0.0.1'}), host: '127.0.0.1'})
  await server.start()
  const port = (server.server.address() as AddressInfo).port
  const apiURL = `http://127.0.0.1:${port}`
  const token = '123456:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'
  const clients = Array.from({length: CHATS}, (_, c) => server.getClient(token, {userId: 1000 + c, chatId: 1000 + c}))
  const replies = new Counter()
  const gate = new Gate()
  // telegram-test-api ignores offset and timeout: getUpdates answers at once, so this loop polls without pause
  const bot = startPollingBot(`${apiURL}/bot${token}`, false, () => replies.add(), call, gate)
  return {
    label: `telegram-test-api 4.2.1, polling${client}`,
    inject: async (i) => {
      await server.addUserMessage(clients[i % CHATS].makeMessage(`m${i}`))
    },
    replies,
    gate,
    stop: async () => {
      await bot.stop()
      await server.stop()
    },
  }
}

/** The floor (bench/emulator-floor.ts: a server that only answers) with the same bot long polling it. */
async function floorSubject(): Promise<Subject> {
  const floor = await startFloorServer()
  const replies = new Counter()
  // Long polling: between turns its bot waits in a held getUpdates, as the emulator's does (no gate needed).
  const bot = startPollingBot(`${floor.apiRoot}/bot${floor.token}`, true, () => replies.add())
  return {
    label: 'floor (a server that only answers), long polling',
    inject: (i) => floor.inject(1000 + (i % CHATS), `m${i}`),
    replies,
    stop: async () => {
      await bot.stop()
      await floor.stop()
    },
  }
}

async function alone(subject: Promise<Subject>, burst: boolean): Promise<Result[]> {
  const s = await subject
  try {
    return await measure(s, burst)
  } finally {
    await s.stop()
  }
}

/** Bursts each server serves in a round (in turns, which goes first alternating), their times added. */
const BURSTS = 3
/** Round trips in blocks of this many, the two servers taking turns. */
const BLOCK = 50
/** Round trips, then a burst of as many updates, each server serves before the measure (JIT, sockets), not counted. */
const WARM_UP = 200

/**
 * The emulator, telegram-test-api and the floor measured in turns, all started, each bot paused while another
 * server is measured: WARM_UP first, then BURSTS bursts each in turns (which goes first rotates), then the round
 * trips in blocks of BLOCK, in turns. Another tenant's load on a shared machine then falls on all alike, and each
 * ratio is one of figures measured side by side. Returns [emulator burst, emulator round trips, telegram-test-api
 * burst, its round trips, floor burst, floor round trips].
 */
async function pairedPolling(round: number): Promise<Result[]> {
  const emu = await emulatorSubject()
  const tta = await telegramTestApiSubject()
  const floor = await floorSubject()
  const subjects = [emu, tta, floor]
  try {
    const turn = async <T>(s: Subject, run: () => Promise<T>): Promise<T> => {
      s.gate?.open()
      try {
        return await run()
      } finally {
        await s.gate?.close()
      }
    }
    await tta.gate!.close()
    for (const s of subjects)
      await turn(s, async () => {
        for (let i = 0; i < WARM_UP; i++) await roundTrip(s, BURSTS * N + ROUNDTRIPS + i)
        await burstOf(s, BURSTS * N + ROUNDTRIPS + WARM_UP, WARM_UP)
      })
    const burstMs = new Map<Subject, number>(subjects.map((s) => [s, 0]))
    for (let b = 0; b < BURSTS; b++) {
      const first = (round + b) % subjects.length
      for (const s of [...subjects.slice(first), ...subjects.slice(0, first)]) {
        const r = await turn(s, () => burstOf(s, b * N))
        burstMs.set(s, burstMs.get(s)! + r.ms)
      }
    }
    const burstResult = (s: Subject): Result => {
      const ms = burstMs.get(s)!
      return {
        label: `${s.label} (${BURSTS} bursts of ${N})`,
        updates: BURSTS * N,
        ms,
        perSecond: ((BURSTS * N) / ms) * 1000,
      }
    }
    const latencies = new Map<Subject, number[]>(subjects.map((s) => [s, []]))
    const ms = new Map<Subject, number>(subjects.map((s) => [s, 0]))
    const cpu = new Map<Subject, number>(subjects.map((s) => [s, 0]))
    for (let done = 0; done < ROUNDTRIPS; done += BLOCK) {
      for (const s of subjects) {
        await turn(s, async () => {
          const t0 = performance.now()
          const c0 = process.cpuUsage()
          for (let i = done; i < Math.min(ROUNDTRIPS, done + BLOCK); i++) {
            const t = performance.now()
            await roundTrip(s, BURSTS * N + i)
            latencies.get(s)!.push(performance.now() - t)
          }
          const used = process.cpuUsage(c0)
          cpu.set(s, cpu.get(s)! + used.user + used.system)
          ms.set(s, ms.get(s)! + performance.now() - t0)
        })
      }
    }
    return subjects.flatMap((s) => [
      burstResult(s),
      {...summary(`${s.label} (round trips)`, latencies.get(s)!, ms.get(s)!), cpuUs: cpu.get(s)! / ROUNDTRIPS},
    ])
  } finally {
    for (const s of subjects) await s.stop()
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
    if (useReply)
      emu.on('call', (c) => {
        if (c.source === 'webhook-reply' && c.result) replies.add()
      })
    const label = useReply ? 'emulator, webhook (reply in response)' : 'emulator, webhook (sendMessage call)'
    const inject = (i: number): void => {
      emu.sendUserMessage(token, {text: `m${i}`, userId: 1000 + (i % CHATS)})
    }
    return await measure({label, inject, replies, stop: async () => undefined})
  } finally {
    await emu.stop()
    server.closeAllConnections()
    await new Promise((r) => server.close(r))
  }
}

// ---------------------------------------------------------------- the conversation API, PTB, isolation

function echoGrammy(token: string, apiRoot: string): GrammyBot {
  const bot = new GrammyBot(token, {client: {apiRoot}})
  bot.on('message:text', (ctx) => ctx.reply(`re: ${ctx.message.text}`))
  return bot
}

const expectEcho = (replies: ReadonlyArray<object>, text: string): void => {
  if (replies.length !== 1 || (replies[0] as {text?: unknown}).text !== `re: ${text}`)
    throw new Error(`unexpected replies to ${text}: ${JSON.stringify(replies)}`)
}

async function conversationPolling(): Promise<Result> {
  const emu = await BotApiEmulator.start()
  const {token} = emu.createBot()
  const bot = echoGrammy(token, emu.apiRoot)
  const running = bot.start()
  try {
    const user = emu.user(token, {firstName: 'Ada'})
    return await roundTrips('conversation API, grammY long polling (user.send)', ROUNDTRIPS, async (i) =>
      expectEcho(await user.send(`m${i}`), `m${i}`),
    )
  } finally {
    await bot.stop()
    await running
    await emu.stop()
  }
}

async function conversationWebhook(): Promise<Result> {
  const emu = await BotApiEmulator.start()
  const {token} = emu.createBot()
  const bot = echoGrammy(token, emu.apiRoot)
  await bot.init()
  const server = http.createServer(webhookCallback(bot, 'http'))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  try {
    await post(`${emu.apiRoot}/bot${token}/setWebhook`, {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    })
    const user = emu.user(token, {firstName: 'Ada'})
    return await roundTrips('conversation API, grammY webhook (user.send)', ROUNDTRIPS, async (i) =>
      expectEcho(await user.send(`m${i}`), `m${i}`),
    )
  } finally {
    await emu.stop()
    server.closeAllConnections()
    await new Promise((r) => server.close(r))
  }
}

const PYTHON = '/usr/bin/python3'
const hasPtb = (): boolean => spawnSync(PYTHON, ['-c', 'import telegram'], {stdio: 'ignore'}).status === 0

/** PTB 13's echo bot (examples/python-control-api) long polling the emulator; the user side over the control API. */
async function ptbOverControlApi(): Promise<Result> {
  const emu = await BotApiEmulator.start()
  const {token} = emu.createBot()
  const script = join(import.meta.dirname, '..', 'examples', 'python-control-api', 'echo_bot.py')
  const child = spawn(PYTHON, [script], {
    env: {...process.env, BOT_TOKEN: token, BOT_API_ROOT: emu.apiRoot, PYTHONWARNINGS: 'ignore'},
    stdio: 'ignore',
  })
  const control = `${emu.controlApiRoot}/bots/${token}`
  const get = async (path: string): Promise<any> => (await fetch(`${control}${path}`)).json()
  try {
    const deadline = Date.now() + DEADLINE_MS
    while (!emu.isLongPolling(token)) {
      if (Date.now() > deadline) throw new Error('python-telegram-bot did not start polling')
      await new Promise((r) => setTimeout(r, 20))
    }
    let since = 0
    return await roundTrips(
      'python-telegram-bot 13, long polling, over the control API',
      Math.min(ROUNDTRIPS, 100),
      async (i) => {
        await post(`${control}/messages`, {text: `m${i}`, user_id: 1000 + (i % CHATS)})
        const answer = await get(`/calls?since=${since}&wait=30&method=sendMessage`)
        if (answer.calls.length !== 1 || answer.calls[0].params.text !== `m${i}`)
          throw new Error(`PTB: unexpected calls ${JSON.stringify(answer)}`)
        since = answer.next
      },
    )
  } finally {
    child.kill('SIGKILL')
    await emu.stop()
  }
}

/** A fresh emulator, a grammY bot started on it, one user.send round trip, both stopped: the cost of isolation. */
async function isolation(mode: 'polling' | 'webhook'): Promise<Result> {
  return roundTrips(
    `per-test isolation: new emulator (timeScale 0) + grammY (${mode}) + 1 round trip + stop`,
    50,
    async (i) => {
      // timeScale 0: no real delays (grammY's stop() repeats its last offset at once, which the server throttles)
      const emu = await BotApiEmulator.start({timeScale: 0})
      const {token} = emu.createBot()
      const bot = echoGrammy(token, emu.apiRoot)
      if (mode === 'polling') {
        const running = bot.start()
        expectEcho(await emu.user(token).send(`m${i}`), `m${i}`)
        await bot.stop()
        await running
      } else {
        await bot.init()
        const server = http.createServer(webhookCallback(bot, 'http'))
        await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
        await post(`${emu.apiRoot}/bot${token}/setWebhook`, {
          url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
        })
        expectEcho(await emu.user(token).send(`m${i}`), `m${i}`)
        server.closeAllConnections()
        await new Promise((r) => server.close(r))
      }
      await emu.stop()
    },
  )
}

function print(results: Result[]): void {
  const width = Math.max(...results.map((r) => r.label.length))
  for (const r of results) {
    const latency =
      (r.p50 === undefined ? '' : `   p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99!.toFixed(2)} ms`) +
      (r.cpuUs === undefined ? '' : `, CPU ${r.cpuUs.toFixed(0)} µs each`)
    console.log(
      `${r.label.padEnd(width)}  ${r.perSecond.toFixed(0).padStart(7)} /s  (${r.updates} in ${r.ms.toFixed(0)} ms)${latency}`,
    )
  }
}

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)

/** The median of each scenario over the rounds (by rate). */
function medians(runs: Result[][]): Result[] {
  return runs[0].map((_, i) => {
    const sorted = runs.map((r) => r[i]).sort((a, b) => a.perSecond - b.perSecond)
    return sorted[Math.floor(sorted.length / 2)]
  })
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

/** The scenarios of one round, by name (BENCH_ONLY=a,b runs a subset). */
const SCENARIOS: Record<string, (round: number) => Promise<Result[]>> = {
  poll: (round) => pairedPolling(round),
  pollFetch: () => alone(emulatorSubject(viaFetch, ', fetch client'), false),
  ttaFetch: () => alone(telegramTestApiSubject(viaFetch, ', fetch client'), false),
  hook: () => emulatorWebhook(false),
  hookReply: () => emulatorWebhook(true),
  conv: async () => [await conversationPolling(), await conversationWebhook()],
  ptb: async () => [await ptbOverControlApi()],
  iso: async () => [await isolation('polling'), await isolation('webhook')],
}

/** A verdict line: the figure, ✓ or ✗, the target. */
function verdict(what: string, value: string, met: boolean, target: string): void {
  console.log(`${met ? '✓' : '✗'} ${what.padEnd(62)} ${value.padStart(8)}   (target ${target})`)
}

async function main(): Promise<void> {
  console.log(
    `node ${process.version}, ${N} updates per burst, ${ROUNDTRIPS} sequential round trips, ${CHATS} chats, ` +
      `loopback; median of ${ROUNDS} interleaved rounds\n`,
  )
  const python = hasPtb()
  const only = process.env.BENCH_ONLY?.split(',')
  const names = Object.keys(SCENARIOS).filter((n) => (only ? only.includes(n) : true) && (n !== 'ptb' || python))
  const runs: Record<string, Result[][]> = Object.fromEntries(names.map((n) => [n, []]))
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of names) runs[name].push(await SCENARIOS[name](round))
  }
  const m = Object.fromEntries(names.map((n) => [n, medians(runs[n])]))
  print(['poll', 'pollFetch', 'hook', 'hookReply', 'ttaFetch', 'conv', 'ptb', 'iso'].flatMap((n) => m[n] ?? []))
  if (!python) console.log(`(python-telegram-bot skipped: ${PYTHON} cannot import telegram)`)
  console.log('')
  if (runs.poll) {
    // each round measures both servers side by side (pairedPolling): its ratios are paired figures
    const bursts = runs.poll.map(([emuBurst, , ttaBurst]) => emuBurst.perSecond / ttaBurst.perSecond)
    const trips = runs.poll.map(([, emuTrips, , ttaTrips]) => emuTrips.perSecond / ttaTrips.perSecond)
    const p50s = runs.poll.map(([, emuTrips, , ttaTrips]) => ttaTrips.p50! / emuTrips.p50!)
    const list = (values: number[]): string => values.map((v) => `${v.toFixed(2)}×`).join(', ')
    // the floor answers and does nothing else: its ratio is the most any server reaches with this client, here
    const floorBursts = runs.poll.map(([, , ttaBurst, , floorBurst]) => floorBurst.perSecond / ttaBurst.perSecond)
    const floorTrips = runs.poll.map(([, , , ttaTrips, , floorTrips]) => floorTrips.perSecond / ttaTrips.perSecond)
    console.log(`ratios emulator / telegram-test-api in each round: burst ${list(bursts)}; round trips ${list(trips)}`)
    console.log(`  round trips by median latency in each round: ${list(p50s)}`)
    console.log(
      `ratios floor / telegram-test-api in each round (the most a server reaches here): burst ${list(floorBursts)}; round trips ${list(floorTrips)}`,
    )
    verdict(
      'polling round trips, emulator / telegram-test-api (median)',
      `${median(trips).toFixed(2)}×`,
      median(trips) >= 3,
      '≥ 3×',
    )
    verdict(
      'polling burst, emulator / telegram-test-api (median)',
      `${median(bursts).toFixed(2)}×`,
      median(bursts) >= 2,
      '≥ 2×',
    )
  }
  if (m.pollFetch && m.ttaFetch) {
    console.log(
      `ratio emulator / telegram-test-api, polling round trips, fetch client: ${(m.pollFetch[0].perSecond / m.ttaFetch[0].perSecond).toFixed(2)}×`,
    )
  }
  const [isoPolling, isoWebhook] = m.iso ?? []
  if (isoPolling)
    verdict(
      'per-test isolation, grammY long polling (median)',
      `${isoPolling.p50!.toFixed(1)} ms`,
      isoPolling.p50! <= 10,
      '≤ 10 ms',
    )
  if (isoWebhook)
    verdict(
      'per-test isolation, grammY webhook (median)',
      `${isoWebhook.p50!.toFixed(1)} ms`,
      isoWebhook.p50! <= 20,
      '≤ 20 ms',
    )
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err)
    process.exit(1)
  },
)

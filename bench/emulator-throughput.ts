/**
 * Figures for the Bot API emulator, each against a baseline measured in the same run, loopback only:
 *
 *   npx tsx bench/emulator-throughput.ts     (BENCH_UPDATES=2000 BENCH_ROUNDTRIPS=300 BENCH_ROUNDS=3 by default)
 *
 * 1. Updates per second to a trivial bot (long polling and webhook), and the same polling path against
 *    telegram-test-api 4.2.1 as the reference. The trivial bot: getUpdates → sendMessage(chat_id, text) for each
 *    update, one at a time (as grammY and Telegraf do by default), offset = last update_id + 1; in webhook mode an
 *    HTTP server that calls sendMessage and then answers 200 (or answers with the method in the webhook reply).
 *    Its HTTP client is node:http with a keep-alive agent, so the figures are the servers' cost; the polling round
 *    trips are also measured with fetch (undici) as the client, whose own cost is most of a round trip.
 *    Updates are injected in-process for both servers (emulator.sendUserMessage; telegram-test-api's
 *    client.makeMessage + server.addUserMessage), spread over 50 private chats.
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

/** The trivial polling bot. `onReply` is called after each successful sendMessage. */
function startPollingBot(base: string, longPoll: boolean, onReply: () => void, call: Post = post) {
  let stopped = false
  let current: AbortController | undefined // one per getUpdates (a long-lived signal makes undici pile up listeners)
  const done = (async () => {
    let offset = 0
    while (!stopped) {
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

/** Burst: N updates queued at once, time until the bot has answered all (unless `burst` is false). Then sequential round trips. */
async function measure(
  label: string,
  inject: (i: number) => void | Promise<void>,
  replies: Counter,
  burst = true,
): Promise<Result[]> {
  const results: Result[] = []
  if (burst) {
    const start = replies.value
    const t0 = performance.now()
    for (let i = 0; i < N; i++) await inject(i)
    await replies.reach(start + N, label)
    const ms = performance.now() - t0
    results.push({label: `${label} (burst of ${N})`, updates: N, ms, perSecond: (N / ms) * 1000})
  }
  results.push(
    await roundTrips(`${label} (round trips)`, ROUNDTRIPS, async (i) => {
      const before = replies.value
      await inject(N + i)
      await replies.reach(before + 1, `${label} round trip`)
    }),
  )
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
  const ms = performance.now() - r0
  return {
    label,
    updates: count,
    ms,
    perSecond: (count / ms) * 1000,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  }
}

async function emulatorPolling(call: Post = post, burst = true, client = ''): Promise<Result[]> {
  const emu = await BotApiEmulator.start()
  try {
    const {token} = emu.createBot()
    const replies = new Counter()
    const bot = startPollingBot(`${emu.apiRoot}/bot${token}`, true, () => replies.add(), call)
    const results = await measure(
      `emulator, long polling${client}`,
      (i) => {
        emu.sendUserMessage(token, {text: `m${i}`, userId: 1000 + (i % CHATS)})
      },
      replies,
      burst,
    )
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
    if (useReply)
      emu.on('call', (c) => {
        if (c.source === 'webhook-reply' && c.result) replies.add()
      })
    const label = useReply ? 'emulator, webhook (reply in response)' : 'emulator, webhook (sendMessage call)'
    return await measure(
      label,
      (i) => {
        emu.sendUserMessage(token, {text: `m${i}`, userId: 1000 + (i % CHATS)})
      },
      replies,
    )
  } finally {
    await emu.stop()
    server.closeAllConnections()
    await new Promise((r) => server.close(r))
  }
}

async function telegramTestApiPolling(call: Post = post, burst = true, client = ''): Promise<Result[]> {
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
  // telegram-test-api ignores offset and timeout: getUpdates answers at once, so this loop polls without pause
  const bot = startPollingBot(`${apiURL}/bot${token}`, false, () => replies.add(), call)
  try {
    return await measure(
      `telegram-test-api 4.2.1, polling${client}`,
      async (i) => {
        const client = clients[i % CHATS]
        await server.addUserMessage(client.makeMessage(`m${i}`))
      },
      replies,
      burst,
    )
  } finally {
    await bot.stop()
    await server.stop()
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
    const latency = r.p50 === undefined ? '' : `   p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99!.toFixed(2)} ms`
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

/** The scenarios of one round, by name (BENCH_ONLY=a,b runs a subset). */
const SCENARIOS: Record<string, () => Promise<Result[]>> = {
  poll: () => emulatorPolling(),
  tta: () => telegramTestApiPolling(),
  pollFetch: () => emulatorPolling(viaFetch, false, ', fetch client'),
  ttaFetch: () => telegramTestApiPolling(viaFetch, false, ', fetch client'),
  hook: () => emulatorWebhook(false),
  hookReply: () => emulatorWebhook(true),
  conv: async () => [await conversationPolling(), await conversationWebhook()],
  ptb: async () => [await ptbOverControlApi()],
  iso: async () => [await isolation('polling'), await isolation('webhook')],
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
    for (const name of names) runs[name].push(await SCENARIOS[name]())
  }
  const m = Object.fromEntries(names.map((n) => [n, medians(runs[n])]))
  print(['poll', 'pollFetch', 'hook', 'hookReply', 'tta', 'ttaFetch', 'conv', 'ptb', 'iso'].flatMap((n) => m[n] ?? []))
  if (!python) console.log(`(python-telegram-bot skipped: ${PYTHON} cannot import telegram)`)
  console.log('')
  if (m.poll && m.tta) {
    console.log(
      `ratio emulator / telegram-test-api, polling burst:                     ${(m.poll[0].perSecond / m.tta[0].perSecond).toFixed(2)}×`,
    )
    console.log(
      `ratio emulator / telegram-test-api, polling round trips:               ${(m.poll[1].perSecond / m.tta[1].perSecond).toFixed(2)}×   (target ≥ 3×)`,
    )
    // the median latency is what another tenant's load on a shared machine disturbs least
    console.log(
      `  the same by median latency (p50 ${m.tta[1].p50!.toFixed(2)} / ${m.poll[1].p50!.toFixed(2)} ms):             ${(m.tta[1].p50! / m.poll[1].p50!).toFixed(2)}×`,
    )
  }
  if (m.pollFetch && m.ttaFetch) {
    console.log(
      `ratio emulator / telegram-test-api, polling round trips, fetch client: ${(m.pollFetch[0].perSecond / m.ttaFetch[0].perSecond).toFixed(2)}×`,
    )
    console.log(
      `  the same by median latency (p50 ${m.ttaFetch[0].p50!.toFixed(2)} / ${m.pollFetch[0].p50!.toFixed(2)} ms):             ${(m.ttaFetch[0].p50! / m.pollFetch[0].p50!).toFixed(2)}×`,
    )
  }
  for (const r of m.iso ?? []) console.log(`${r.label}: median ${r.p50!.toFixed(1)} ms   (target ≤ 20 ms)`)
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err)
    process.exit(1)
  },
)

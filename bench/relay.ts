/**
 * Relay overhead: latency (p50/p99) and throughput of webhook POSTs sent straight to a trivial bot
 * vs through the relay, at concurrency 1 and 40. Loopback only; every scenario is time-bounded.
 *
 *   npm run build && npx tsx bench/relay.ts [--seconds 3] [--bot-ms 0] [--events] [--relay-module FILE] [--profile DIR]
 *
 * --bot-ms N makes the bot wait N ms (like an API call) before answering, for a less trivial bot.
 * --events also builds the update line for every update, as `bot dev` does.
 * --relay-module FILE runs another build of src/dev/relay/relay.ts (default dist/dev/relay/relay.js).
 * The CPU lines compare the relay's CPU time per update with the bot's own (target ≤ 1.5× at 40).
 * The bot and the relay each run in their own process (as in `bot dev`), the load generator in
 * this one. Targets: p50 added ≤ 0.5 ms; throughput at 40 ≥ 80 % of direct.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {existsSync, readFileSync} from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import {createInterface} from 'node:readline'
import {resolve} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'

const SECRET = 'bench_secret_token'
const PATH = '/webhook/bench'

const BOT_SOURCE = `
const http = require('node:http')
const wait = Number(process.env.BOT_MS || 0)
const answer = (res) => { res.writeHead(200, {'content-type': 'application/json', 'content-length': 2}); res.end('{}') }
const server = http.createServer((req, res) => {
  req.on('data', () => {})
  req.on('end', () => (wait ? setTimeout(answer, wait, res) : answer(res)))
})
server.keepAliveTimeout = 65000
server.listen(0, '127.0.0.1', () => console.log('PORT ' + server.address().port))
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(0))
`

/**
 * The relay process: plain node running the built relay (dist/, as `bot dev` runs it), or the
 * module given with --relay-module (e.g. an older build, for a before/after comparison).
 * With --events it also builds the update line `bot dev` prints, for every update.
 */
const RELAY_SOURCE = `
const {Relay} = await import(process.env.RELAY_MODULE_URL)
let printed = 0
const onUpdate = process.env.RELAY_EVENTS === '1'
  ? (e) => { printed += (e.time.slice(11, 19) + ' ← #' + e.updateId + ' ' + e.updateType + ' chat ' + e.chatId + ' ' + JSON.stringify(e.preview) + ' → ' + e.status + ' ' + e.ms + ' ms').length }
  : undefined
const relay = new Relay({secret: ${JSON.stringify(SECRET)}, path: ${JSON.stringify(PATH)}, holdTimeoutMs: 30000, onUpdate})
const port = await relay.listen()
relay.setTarget({host: '127.0.0.1', port: Number(process.env.BOT_PORT), path: ${JSON.stringify(PATH)}})
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(printed < 0 ? 1 : 0))
console.log('PORT ' + port)
`

function startChild(args: string[], env: Record<string, string> = {}): Promise<{child: ChildProcess; port: number}> {
  const child = spawn(process.execPath, args, {stdio: ['ignore', 'pipe', 'inherit'], env: {...process.env, ...env}})
  return new Promise((resolve, reject) => {
    const rl = createInterface({input: child.stdout!})
    rl.on('line', (line) => {
      const m = /^PORT (\d+)$/.exec(line)
      if (m) resolve({child, port: Number(m[1])})
    })
    child.once('exit', (code) => reject(new Error(`child exited with ${code}`)))
    setTimeout(() => reject(new Error('child did not start within 20 s')), 20_000).unref()
  })
}

// Every request is a new update (a fresh update_id): the relay answers a repeated id from memory.
const BODY_REST =
  ',' +
  JSON.stringify({
    message: {
      message_id: 1,
      date: 1700000000,
      chat: {id: 1111, type: 'private', first_name: 'Test'},
      from: {id: 1111, is_bot: false, first_name: 'Test'},
      text: 'hello bench',
    },
  }).slice(1)
let seq = 100_000_000
const nextBody = () => Buffer.from(`{"update_id":${++seq}${BODY_REST}`)

interface Result {
  p50: number
  p99: number
  rps: number
  n: number
  errors: number
}

/** CPU time (user + system) a process has used so far, in ms (Linux /proc; undefined elsewhere). */
function cpuMs(pid: number | undefined): number | undefined {
  if (!pid || process.platform !== 'linux') return undefined
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100 // utime + stime, at USER_HZ = 100
  } catch {
    return undefined
  }
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

async function load(port: number, concurrency: number, seconds: number): Promise<Result> {
  const agent = new http.Agent({keepAlive: true, maxSockets: concurrency})
  const latencies: number[] = []
  let errors = 0
  const one = () =>
    new Promise<void>((resolve) => {
      const body = nextBody()
      const started = performance.now()
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          path: PATH,
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': body.length,
            'x-telegram-bot-api-secret-token': SECRET,
          },
        },
        (res) => {
          res.on('data', () => {})
          res.on('end', () => {
            if (res.statusCode === 200) latencies.push(performance.now() - started)
            else errors++
            resolve()
          })
        },
      )
      req.on('error', () => {
        errors++
        resolve()
      })
      req.end(body)
    })
  // Warm-up (connections, JIT), not measured.
  const warmEnd = performance.now() + 500
  await Promise.all(
    Array.from({length: concurrency}, async () => {
      while (performance.now() < warmEnd) await one()
    }),
  )
  latencies.length = 0
  errors = 0
  const started = performance.now()
  const end = started + seconds * 1000
  await Promise.all(
    Array.from({length: concurrency}, async () => {
      while (performance.now() < end) await one()
    }),
  )
  const elapsed = (performance.now() - started) / 1000
  agent.destroy()
  const sorted = Float64Array.from(latencies).sort()
  return {
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    rps: latencies.length / elapsed,
    n: latencies.length,
    errors,
  }
}

async function main(): Promise<void> {
  const secondsArg = process.argv.indexOf('--seconds')
  const seconds = secondsArg > 0 ? Number(process.argv[secondsArg + 1]) : 3
  const botMsArg = process.argv.indexOf('--bot-ms')
  const botMs = botMsArg > 0 ? Number(process.argv[botMsArg + 1]) : 0
  // --profile DIR: the relay and the bot write V8 CPU profiles there (open them in Chrome DevTools).
  const profileArg = process.argv.indexOf('--profile')
  const profile = profileArg > 0 ? ['--cpu-prof', '--cpu-prof-dir', process.argv[profileArg + 1]] : []
  const bot = await startChild([...profile, '-e', BOT_SOURCE], {BOT_MS: String(botMs)})
  // The children never outlive the bench, however it ends.
  const children: ChildProcess[] = [bot.child]
  process.on('exit', () => children.forEach((c) => c.kill()))
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130))
  const moduleArg = process.argv.indexOf('--relay-module')
  const relayModule = resolve(
    moduleArg > 0 ? process.argv[moduleArg + 1] : fileURLToPath(new URL('../dist/dev/relay/relay.js', import.meta.url)),
  )
  if (!existsSync(relayModule))
    throw new Error(`${relayModule} not found: run \`npm run build\` first (or pass --relay-module)`)
  const events = process.argv.includes('--events')
  const relay = await startChild([...profile, '--input-type=module', '-e', RELAY_SOURCE], {
    RELAY_MODULE_URL: pathToFileURL(relayModule).href,
    BOT_PORT: String(bot.port),
    RELAY_EVENTS: events ? '1' : '0',
  })
  children.push(relay.child)
  try {
    console.log(
      `Relay overhead (loopback, ${seconds} s per scenario, bot and relay in their own processes, bot work ${botMs} ms, ${os.cpus().length} CPUs, load ${os.loadavg()[0].toFixed(1)})`,
    )
    console.log(`relay: ${relayModule}${events ? ', building the update line for every update (--events)' : ''}`)
    console.log('')
    console.log('concurrency  path     p50 ms   p99 ms      req/s       n')
    const rows: Array<{c: number; direct: Result; relayed: Result}> = []
    const cpu: string[] = []
    for (const c of [1, 40]) {
      const direct = await load(bot.port, c, seconds)
      const before = {bot: cpuMs(bot.child.pid), relay: cpuMs(relay.child.pid)}
      const relayed = await load(relay.port, c, seconds)
      const after = {bot: cpuMs(bot.child.pid), relay: cpuMs(relay.child.pid)}
      if (
        before.bot !== undefined &&
        after.bot !== undefined &&
        before.relay !== undefined &&
        after.relay !== undefined &&
        relayed.n > 0
      ) {
        // Includes the 0.5 s warm-up, so divide by all requests served in that window (≈ n · (seconds+0.5)/seconds).
        const served = relayed.n * ((seconds + 0.5) / seconds)
        const us = (ms: number) => ((ms * 1000) / served).toFixed(0)
        const ratio = (after.relay - before.relay) / (after.bot - before.bot)
        cpu.push(
          `concurrency ${c}: CPU per update ≈ ${us(after.relay - before.relay)} µs in the relay vs ${us(after.bot - before.bot)} µs in the bot: ${ratio.toFixed(2)}×${c === 40 ? ` (target ≤ 1.5×) ${ratio <= 1.5 ? 'OK' : 'MISSED'}` : ''}`,
        )
      }
      rows.push({c, direct, relayed})
      for (const [name, r] of [
        ['direct', direct],
        ['relay', relayed],
      ] as const)
        console.log(
          `${String(c).padStart(11)}  ${name.padEnd(7)} ${r.p50.toFixed(3).padStart(7)}  ${r.p99.toFixed(3).padStart(7)}  ${r.rps.toFixed(0).padStart(9)}  ${String(r.n).padStart(6)}${r.errors ? `  (${r.errors} errors)` : ''}`,
        )
    }
    console.log('')
    const c1 = rows.find((r) => r.c === 1)!
    const c40 = rows.find((r) => r.c === 40)!
    const added = c1.relayed.p50 - c1.direct.p50
    const ratio = c40.relayed.rps / c40.direct.rps
    console.log(
      `p50 added by the relay at concurrency 1: ${added.toFixed(3)} ms (target ≤ 0.5 ms) ${added <= 0.5 ? 'OK' : 'MISSED'}`,
    )
    console.log(
      `p99 added at concurrency 1: ${(c1.relayed.p99 - c1.direct.p99).toFixed(3)} ms; p50 added at 40: ${(c40.relayed.p50 - c40.direct.p50).toFixed(3)} ms`,
    )
    console.log(
      `throughput at concurrency 40 through the relay: ${(ratio * 100).toFixed(1)} % of direct (target ≥ 80 %) ${ratio >= 0.8 ? 'OK' : 'MISSED'}`,
    )
    for (const line of cpu) console.log(line)
  } finally {
    bot.child.kill()
    relay.child.kill()
  }
}

await main()

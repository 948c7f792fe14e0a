/**
 * Relay overhead: latency (p50/p99) and throughput of webhook POSTs sent straight to a trivial bot
 * vs through the relay, at concurrency 1 and 40. Loopback only; every scenario is time-bounded.
 *
 *   npx tsx bench/relay.ts [--seconds 3] [--bot-ms 0] [--profile DIR]
 *
 * --bot-ms N makes the bot wait N ms (like an API call) before answering, for a less trivial bot.
 * The bot and the relay each run in their own process (as in `bot dev`), the load generator in
 * this one. Targets: p50 added ≤ 0.5 ms; throughput at 40 ≥ 80 % of direct.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {readFileSync} from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import {createInterface} from 'node:readline'
import {fileURLToPath} from 'node:url'

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
`

async function relayChild(botPort: number): Promise<void> {
  const {Relay} = await import('../src/dev/relay.js')
  const relay = new Relay({secret: SECRET, path: PATH, holdTimeoutMs: 30_000})
  const port = await relay.listen()
  relay.setTarget({host: '127.0.0.1', port: botPort, path: PATH})
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0))
  console.log('PORT ' + port)
}

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
const BODY_REST = ',' + JSON.stringify({message: {message_id: 1, date: 1700000000, chat: {id: 1111, type: 'private', first_name: 'Test'}, from: {id: 1111, is_bot: false, first_name: 'Test'}, text: 'hello bench'}}).slice(1)
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
        {host: '127.0.0.1', port, path: PATH, method: 'POST', agent, headers: {'content-type': 'application/json', 'content-length': body.length, 'x-telegram-bot-api-secret-token': SECRET}},
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
  await Promise.all(Array.from({length: concurrency}, async () => {
    while (performance.now() < warmEnd) await one()
  }))
  latencies.length = 0
  errors = 0
  const started = performance.now()
  const end = started + seconds * 1000
  await Promise.all(Array.from({length: concurrency}, async () => {
    while (performance.now() < end) await one()
  }))
  const elapsed = (performance.now() - started) / 1000
  agent.destroy()
  const sorted = Float64Array.from(latencies).sort()
  return {p50: percentile(sorted, 50), p99: percentile(sorted, 99), rps: latencies.length / elapsed, n: latencies.length, errors}
}

async function main(): Promise<void> {
  const secondsArg = process.argv.indexOf('--seconds')
  const seconds = secondsArg > 0 ? Number(process.argv[secondsArg + 1]) : 3
  const botMsArg = process.argv.indexOf('--bot-ms')
  const botMs = botMsArg > 0 ? Number(process.argv[botMsArg + 1]) : 0
  const bot = await startChild(['-e', BOT_SOURCE], {BOT_MS: String(botMs)})
  // --profile DIR: the relay process writes a V8 CPU profile there (open it in Chrome DevTools).
  const profileArg = process.argv.indexOf('--profile')
  const profile = profileArg > 0 ? ['--cpu-prof', '--cpu-prof-dir', process.argv[profileArg + 1]] : []
  const relay = await startChild([...profile, ...process.execArgv, fileURLToPath(import.meta.url), 'relay-child', String(bot.port)])
  try {
    console.log(`Relay overhead (loopback, ${seconds} s per scenario, bot and relay in their own processes, bot work ${botMs} ms, ${os.cpus().length} CPUs, load ${os.loadavg()[0].toFixed(1)})`)
    console.log('')
    console.log('concurrency  path     p50 ms   p99 ms      req/s       n')
    const rows: Array<{c: number; direct: Result; relayed: Result}> = []
    const cpu: string[] = []
    for (const c of [1, 40]) {
      const direct = await load(bot.port, c, seconds)
      const before = {bot: cpuMs(bot.child.pid), relay: cpuMs(relay.child.pid)}
      const relayed = await load(relay.port, c, seconds)
      const after = {bot: cpuMs(bot.child.pid), relay: cpuMs(relay.child.pid)}
      if (before.bot !== undefined && after.bot !== undefined && before.relay !== undefined && after.relay !== undefined && relayed.n > 0) {
        // Includes the 0.5 s warm-up, so divide by all requests served in that window (≈ n · (seconds+0.5)/seconds).
        const served = relayed.n * ((seconds + 0.5) / seconds)
        const us = (ms: number) => ((ms * 1000) / served).toFixed(0)
        cpu.push(`concurrency ${c}: CPU per update ≈ ${us(after.relay - before.relay)} µs in the relay vs ${us(after.bot - before.bot)} µs in the bot`)
      }
      rows.push({c, direct, relayed})
      for (const [name, r] of [['direct', direct], ['relay', relayed]] as const)
        console.log(`${String(c).padStart(11)}  ${name.padEnd(7)} ${r.p50.toFixed(3).padStart(7)}  ${r.p99.toFixed(3).padStart(7)}  ${r.rps.toFixed(0).padStart(9)}  ${String(r.n).padStart(6)}${r.errors ? `  (${r.errors} errors)` : ''}`)
    }
    console.log('')
    const c1 = rows.find((r) => r.c === 1)!
    const c40 = rows.find((r) => r.c === 40)!
    const added = c1.relayed.p50 - c1.direct.p50
    const ratio = c40.relayed.rps / c40.direct.rps
    console.log(`p50 added by the relay at concurrency 1: ${added.toFixed(3)} ms (target ≤ 0.5 ms) ${added <= 0.5 ? 'OK' : 'MISSED'}`)
    console.log(`p99 added at concurrency 1: ${(c1.relayed.p99 - c1.direct.p99).toFixed(3)} ms; p50 added at 40: ${(c40.relayed.p50 - c40.direct.p50).toFixed(3)} ms`)
    console.log(`throughput at concurrency 40 through the relay: ${(ratio * 100).toFixed(1)} % of direct (target ≥ 80 %) ${ratio >= 0.8 ? 'OK' : 'MISSED'}`)
    for (const line of cpu) console.log(line)
  } finally {
    bot.child.kill()
    relay.child.kill()
  }
}

if (process.argv[2] === 'relay-child') await relayChild(Number(process.argv[3]))
else await main()

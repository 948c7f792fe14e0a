/**
 * Relay overhead: latency (p50/p99) and throughput of webhook POSTs sent straight to a trivial bot
 * vs through the relay, at concurrency 1 and 40, and the relay's CPU time per update against the
 * bot's. Loopback only; every scenario is time-bounded.
 *
 *   npm run build && npx tsx bench/relay.ts [--seconds 3] [--bot-ms 0] [--events [line|record|floor]] [--relay-module FILE] [--profile DIR]
 *
 * --events does per update what `bot dev` does besides forwarding: the update line (render.ts's
 * updateText, the session's decorate) and the recording (SessionRecording with its history and
 * JSONL log, as the inspector keeps it). The targets apply with --events.
 * --events line or --events record does only that half (the line then reads the update itself, with
 * the relay's bounded scan): what each costs, to read the --events figures against. --events floor
 * puts the least a recording can do (bench/recording-floor.mjs: keep each update's redacted JSON and
 * log it, nothing else) in place of the real one, with the real update line.
 * --bot-ms N makes the bot wait N ms (like an API call) before answering, for a less trivial bot.
 * --relay-module FILE runs another build of src/dev/relay/relay.ts (default dist/dev/relay/relay.js;
 * render.js and recording.js are taken from the same build, e.g. an older dist for a before/after).
 * --profile DIR: the relay and the bot write V8 CPU profiles there.
 * --relay-module bench/relay-floor.mjs (without --events) measures the floor: a forwarder that does
 * nothing else (no checks, bounds or events), i.e. what one more loopback hop costs on this machine.
 *
 * The bot and the relay each run in their own process (as in `bot dev`), the load generator in
 * this one. Direct runs bracket the relayed one (direct, relay, direct: their mean is the
 * reference), so a change in the machine's load during the run counts less. CPU per update is
 * read from /proc over the measured window only (not the warm-up).
 *
 * Targets, printed with ✓/✗: p50 added at concurrency 1 ≤ 0.2 ms; at concurrency 40, throughput
 * ≥ 80 % of direct and CPU per update ≤ 1.5× the bot's.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {existsSync, mkdtempSync, rmSync} from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import {createInterface} from 'node:readline'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'

import {cpuTimes} from './proc-cpu.js'

const SECRET = 'bench_secret_token'
const PATH = '/webhook/bench'
const TOKEN = '123456:AAHbenchbenchbenchbenchbenchbench_xyz'

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
 * With --events it also does what `bot dev` does per update: the update line (updateText, the
 * recording's decorate) and the recording (SessionRecording: history, JSONL log in a temp folder).
 */
const RELAY_SOURCE = `
const {Relay} = await import(process.env.RELAY_MODULE_URL)
let printed = 0
let onUpdate
let recording
const events = process.env.RELAY_EVENTS
if (events === 'all' || events === 'record') {
  const {SessionRecording} = await import(new URL('../recording.js', process.env.RELAY_MODULE_URL))
  recording = new SessionRecording({
    token: ${JSON.stringify(TOKEN)},
    mode: 'webhook',
    keepDir: process.env.STATE_DIR,
    emit: (e) => { printed += e.text.length },
  })
  recording.addSecrets(${JSON.stringify(SECRET)}, ${JSON.stringify(PATH)})
  recording.open({id: 123456, first_name: 'Bench', username: 'bench_bot'})
}
if (events === 'floor') {
  const {RecordingFloor} = await import(process.env.RECORDING_FLOOR_URL)
  const {redactionPattern, TOKEN_SHAPE, REDACTED} = await import(new URL('../../telegram/redact.js', process.env.RELAY_MODULE_URL))
  recording = new RecordingFloor({
    keepDir: process.env.STATE_DIR,
    redaction: redactionPattern([${JSON.stringify(TOKEN)}, ${JSON.stringify(SECRET)}, ${JSON.stringify(PATH)}], TOKEN_SHAPE),
    redacted: REDACTED,
  })
}
if (events === 'all' || events === 'line' || events === 'floor') {
  const {updateText} = await import(new URL('../render.js', process.env.RELAY_MODULE_URL))
  onUpdate = (e) => {
    const event = {type: 'update', ...e, text: updateText(e)}
    recording?.decorate(event)
    printed += event.text.length
  }
}
const relay = new Relay({secret: ${JSON.stringify(SECRET)}, path: ${JSON.stringify(PATH)}, holdTimeoutMs: 30000, secrets: [${JSON.stringify(TOKEN)}, ${JSON.stringify(SECRET)}], onUpdate})
const port = await relay.listen()
if (recording) recording.attachRelay(relay)
relay.setTarget({host: '127.0.0.1', port: Number(process.env.BOT_PORT), path: ${JSON.stringify(PATH)}})
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => { recording?.history?.close(); recording?.close?.(); process.exit(printed < 0 ? 1 : 0) })
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
  /** CPU ms of each watched process over the measured window. */
  cpu: number[]
}

/** CPU time (user + system) a process has used so far, in ms (Linux /proc; undefined elsewhere). */
function cpuMs(pid: number | undefined): number | undefined {
  const t = pid ? cpuTimes(pid) : undefined
  return t && t.user + t.sys
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

/** `concurrency` clients POSTing fresh updates for `seconds` (after a 0.5 s warm-up); CPU of `watch` over that window. */
async function load(
  port: number,
  concurrency: number,
  seconds: number,
  watch: Array<number | undefined>,
): Promise<Result> {
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
  const cpuBefore = watch.map(cpuMs)
  const started = performance.now()
  const end = started + seconds * 1000
  await Promise.all(
    Array.from({length: concurrency}, async () => {
      while (performance.now() < end) await one()
    }),
  )
  const elapsed = (performance.now() - started) / 1000
  const cpuAfter = watch.map(cpuMs)
  agent.destroy()
  const sorted = Float64Array.from(latencies).sort()
  return {
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    rps: latencies.length / elapsed,
    n: latencies.length,
    errors,
    cpu: cpuAfter.map((a, i) => (a === undefined || cpuBefore[i] === undefined ? Number.NaN : a - cpuBefore[i]!)),
  }
}

/** Mean of two direct runs (the reference around a relayed run). */
function mean(a: Result, b: Result): Result {
  return {
    p50: (a.p50 + b.p50) / 2,
    p99: (a.p99 + b.p99) / 2,
    rps: (a.rps + b.rps) / 2,
    n: a.n + b.n,
    errors: a.errors + b.errors,
    cpu: a.cpu.map((x, i) => x + b.cpu[i]),
  }
}

const verdict = (ok: boolean) => (ok ? '✓' : '✗')

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
  const stateDir = mkdtempSync(join(os.tmpdir(), 'bench-relay-'))
  process.on('exit', () => {
    children.forEach((c) => c.kill())
    rmSync(stateDir, {recursive: true, force: true})
  })
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130))
  const moduleArg = process.argv.indexOf('--relay-module')
  const relayModule = resolve(
    moduleArg > 0 ? process.argv[moduleArg + 1] : fileURLToPath(new URL('../dist/dev/relay/relay.js', import.meta.url)),
  )
  if (!existsSync(relayModule))
    throw new Error(`${relayModule} not found: run \`npm run build\` first (or pass --relay-module)`)
  const eventsArg = process.argv.indexOf('--events')
  const eventsPart = process.argv[eventsArg + 1]
  const only =
    eventsArg > 0 && (eventsPart === 'line' || eventsPart === 'record' || eventsPart === 'floor')
      ? eventsPart
      : undefined
  if (eventsArg > 0 && eventsPart !== undefined && !eventsPart.startsWith('--') && !only)
    throw new Error(`--events takes line, record, floor or nothing (the line and the recording), not ${eventsPart}`)
  const events = eventsArg > 0
  if (events && !existsSync(join(dirname(relayModule), '..', 'recording.js')))
    throw new Error(`--events needs recording.js and render.js beside ${dirname(relayModule)}`)
  const relay = await startChild([...profile, '--input-type=module', '-e', RELAY_SOURCE], {
    RELAY_MODULE_URL: pathToFileURL(relayModule).href,
    BOT_PORT: String(bot.port),
    RELAY_EVENTS: events ? (only ?? 'all') : 'none',
    RECORDING_FLOOR_URL: new URL('./recording-floor.mjs', import.meta.url).href,
    STATE_DIR: stateDir,
  })
  children.push(relay.child)
  try {
    console.log(
      `Relay overhead (loopback, ${seconds} s per scenario, bot and relay in their own processes, bot work ${botMs} ms, ${os.cpus().length} CPUs, load ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')})`,
    )
    console.log(
      `relay: ${relayModule}${
        !events
          ? ''
          : only === 'line'
            ? '; per update also the update line, not the recording (--events line)'
            : only === 'record'
              ? '; per update also the recording, not the update line (--events record)'
              : only === 'floor'
                ? '; per update also the update line and the least a recording does (--events floor)'
                : '; per update also the update line and the recording, as bot dev (--events)'
      }`,
    )
    console.log('')
    console.log('concurrency  path     p50 ms   p99 ms      req/s       n')
    const rows: Array<{c: number; direct: Result; relayed: Result}> = []
    const watch = [bot.child.pid, relay.child.pid]
    for (const c of [1, 40]) {
      const before = await load(bot.port, c, seconds, watch)
      const relayed = await load(relay.port, c, seconds, watch)
      const after = await load(bot.port, c, seconds, watch)
      const direct = mean(before, after)
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
      `p99 added at concurrency 1: ${(c1.relayed.p99 - c1.direct.p99).toFixed(3)} ms; p50 added at 40: ${(c40.relayed.p50 - c40.direct.p50).toFixed(3)} ms`,
    )
    const cpuLines: string[] = []
    let cpuRatio = Number.NaN
    for (const {c, relayed} of rows) {
      const [botCpu, relayCpu] = relayed.cpu
      if (!Number.isFinite(botCpu) || !Number.isFinite(relayCpu) || relayed.n === 0) continue
      const us = (ms: number) => ((ms * 1000) / relayed.n).toFixed(1)
      const r = relayCpu / botCpu
      if (c === 40) cpuRatio = r
      cpuLines.push(
        `CPU per update at concurrency ${c}: ${us(relayCpu)} µs in the relay vs ${us(botCpu)} µs in the bot = ${r.toFixed(2)}×`,
      )
    }
    for (const line of cpuLines) console.log(line)
    console.log('')
    console.log(
      `Verdicts${events && !only ? '' : ' (the targets are set for --events: the update line and recording on)'}:`,
    )
    console.log(`${verdict(added <= 0.2)} p50 added at concurrency 1: ${added.toFixed(3)} ms (target ≤ 0.2 ms)`)
    console.log(
      `${verdict(ratio >= 0.8)} throughput at concurrency 40: ${(ratio * 100).toFixed(1)} % of direct (target ≥ 80 %)`,
    )
    if (Number.isFinite(cpuRatio))
      console.log(
        `${verdict(cpuRatio <= 1.5)} CPU per update at concurrency 40: ${cpuRatio.toFixed(2)}× the bot's (target ≤ 1.5×)`,
      )
    else console.log('? CPU per update: not measured (needs Linux /proc)')
  } finally {
    bot.child.kill()
    relay.child.kill()
  }
}

await main()

/**
 * The cost of shared sessions: webhook updates per second handled by a scaffolded bot (built,
 * `node dist/main.js`, webhook mode) in three set-ups measured in the same run:
 *
 *   one      one instance, sessions in memory, updates POSTed straight to it (the baseline)
 *   redis    one instance, sessions in Redis
 *   cluster  nginx (round robin) in front of three instances sharing one Redis
 *
 * Each update is a `/count` from one of 1000 chats: the handler reads the chat's session, adds one,
 * saves it and sends one message (to the Bot API emulator, in this process). The load generator
 * POSTs updates as Telegram does (secret header, a fresh update_id each), `--concurrency` at a time,
 * for `--seconds` after a warm-up; only 200 answers count. Loopback only; Redis and nginx are
 * Debian's, as in the e2e test.
 *
 *   npm run build && npx tsx bench/templates-scale.ts [--template grammy] [--seconds 5] [--concurrency 32] [--rounds 2] [--dir built-project]
 *
 * The three set-ups run side by side and are measured in turn, the order alternating between rounds;
 * the best round of each is compared (the machine may be busy with other work).
 *
 * Without --dir it scaffolds the template with `bot init` (npm install, prefer-offline) and builds it.
 */
import {execFile} from 'node:child_process'
import {existsSync, rmSync} from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import {join} from 'node:path'
import {promisify} from 'node:util'

import {BotApiEmulator} from '../src/emulator/index.js'
import {cliEnv, runCli} from '../test/support/cli.js'
import {startCluster, type Cluster} from '../test/init/cluster.js'
import {tempDir} from '../test/init/support.js'

const run = promisify(execFile)

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? process.argv[i + 1] : fallback
}

const template = arg('template', 'grammy')
const seconds = Number(arg('seconds', '5'))
const concurrency = Number(arg('concurrency', '32'))
const CHATS = 1000

interface Result {
  rps: number
  p50: number
  p99: number
  n: number
  errors: number
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN
}

let updateId = 500_000_000
function body(): Buffer {
  const chat = 10_000 + Math.floor(Math.random() * CHATS)
  return Buffer.from(
    JSON.stringify({
      update_id: ++updateId,
      message: {
        message_id: updateId,
        date: Math.floor(Date.now() / 1000),
        chat: {id: chat, type: 'private', first_name: 'Bench'},
        from: {id: chat, is_bot: false, first_name: 'Bench'},
        text: '/count',
        entities: [{type: 'bot_command', offset: 0, length: 6}],
      },
    }),
  )
}

async function load(url: string, secret: string): Promise<Result> {
  const target = new URL(url)
  const agent = new http.Agent({keepAlive: true, maxSockets: concurrency})
  const latencies: number[] = []
  let errors = 0
  const one = () =>
    new Promise<void>((resolve) => {
      const data = body()
      const started = performance.now()
      const req = http.request(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          agent,
          timeout: 30_000,
          headers: {
            'content-type': 'application/json',
            'content-length': data.length,
            'x-telegram-bot-api-secret-token': secret,
          },
        },
        (res) => {
          res.resume()
          res.on('end', () => {
            if (res.statusCode === 200) latencies.push(performance.now() - started)
            else errors++
            resolve()
          })
        },
      )
      req.on('timeout', () => req.destroy(new Error('timeout')))
      req.on('error', () => {
        errors++
        resolve()
      })
      req.end(data)
    })
  const until = async (end: number) => {
    await Promise.all(
      Array.from({length: concurrency}, async () => {
        while (performance.now() < end) await one()
      }),
    )
  }
  await until(performance.now() + 1000) // warm-up: connections, JIT, sessions created
  latencies.length = 0
  errors = 0
  const started = performance.now()
  await until(started + seconds * 1000)
  const elapsed = (performance.now() - started) / 1000
  agent.destroy()
  const sorted = Float64Array.from(latencies).sort()
  return {
    rps: latencies.length / elapsed,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    n: latencies.length,
    errors,
  }
}

async function prepare(): Promise<{dir: string; cleanup: () => void}> {
  const given = arg('dir', '')
  if (given) {
    if (!existsSync(join(given, 'dist', 'main.js')))
      throw new Error(`${given} has no dist/main.js: run its build first`)
    return {dir: given, cleanup: () => {}}
  }
  const root = tempDir('bot-bench-scale-')
  const dir = join(root, `${template}-bench-bot`)
  console.error(`scaffolding ${template} in ${dir} (npm install, then build)…`)
  const r = await runCli(['init', dir, '--template', template, '--pm', 'npm', '--no-git', '--yes', '--json'], {
    env: {npm_config_prefer_offline: 'true'},
    timeoutMs: 300_000,
  })
  if (r.code !== 0) throw new Error(`bot init failed:\n${r.stdout}\n${r.stderr}`)
  await run('npm', ['run', 'build'], {cwd: dir, env: cliEnv()})
  return {dir, cleanup: () => rmSync(root, {recursive: true, force: true})}
}

interface Setup {
  label: string
  name: string
  options: {instances: number; redis: boolean; nginx: boolean}
  token?: string
  cluster?: Cluster
  results: Result[]
}

async function measure(setup: Setup, emu: BotApiEmulator): Promise<Result> {
  const {token, cluster} = setup
  const before = emu.sentMessages(token!).filter((c) => c.method === 'sendMessage' && !c.error).length
  const result = await load(cluster!.webhookUrl, cluster!.secret)
  // Every acknowledged update was handled for real: its reply reached the Bot API.
  const replies = emu.sentMessages(token!).filter((c) => c.method === 'sendMessage' && !c.error).length - before
  const failed = emu.sentMessages(token!).filter((c) => c.error).length
  if (replies < result.n || failed > 0)
    throw new Error(
      `${setup.name}: ${result.n} updates acknowledged but ${replies} replies sent (${failed} failed calls)`,
    )
  return result
}

const row = (label: string, r: Result) =>
  `${label.padEnd(43)} ${r.rps.toFixed(0).padStart(10)}  ${r.p50.toFixed(2).padStart(7)}  ${r.p99.toFixed(2).padStart(7)}  ${String(r.n).padStart(6)}  ${String(r.errors).padStart(6)}`

async function main(): Promise<void> {
  const rounds = Number(arg('rounds', '2'))
  const {dir, cleanup} = await prepare()
  const emu = await BotApiEmulator.start()
  const setups: Setup[] = [
    {
      label: 'one instance, sessions in memory (baseline)',
      name: 'one',
      options: {instances: 1, redis: false, nginx: false},
      results: [],
    },
    {
      label: 'one instance, sessions in Redis',
      name: 'redis',
      options: {instances: 1, redis: true, nginx: false},
      results: [],
    },
    {
      label: 'nginx + 3 instances + Redis',
      name: 'cluster',
      options: {instances: 3, redis: true, nginx: true},
      results: [],
    },
  ]
  try {
    for (const setup of setups) {
      const {token} = emu.createBot({username: `bench_${setup.name}_bot`})
      // A bot can only message chats it has seen: make the bench's chats known.
      for (let i = 0; i < CHATS; i++) emu.addChat(token, {id: 10_000 + i, type: 'private', first_name: 'Bench'})
      setup.token = token
      setup.cluster = await startCluster({dir, token, apiRoot: emu.apiRoot, ...setup.options})
    }
    console.log(
      `Templates at scale: ${template}, /count over ${CHATS} chats, ${seconds} s per measurement after 1 s warm-up, concurrency ${concurrency}, ` +
        `${rounds} rounds (order alternates), ${os.cpus().length} CPUs, load ${os.loadavg()[0].toFixed(1)}`,
    )
    console.log('')
    console.log('round  set-up                                       updates/s   p50 ms   p99 ms       n  errors')
    for (let round = 0; round < rounds; round++) {
      for (const setup of round % 2 === 0 ? setups : [...setups].reverse()) {
        const r = await measure(setup, emu)
        setup.results.push(r)
        console.log(`${String(round + 1).padStart(5)}  ${row(setup.label, r)}`)
      }
    }
    // The best round of each set-up: the one least disturbed by whatever else the machine ran.
    const best = setups.map((s) => s.results.reduce((a, b) => (b.rps > a.rps ? b : a)))
    console.log('')
    console.log('best round per set-up                              updates/s   p50 ms   p99 ms       n  errors')
    setups.forEach((s, i) => console.log(`       ${row(s.label, best[i])}`))
    console.log('')
    console.log(`ratio, one instance with Redis / baseline:      ${(best[1].rps / best[0].rps).toFixed(2)}`)
    console.log(`ratio, nginx + 3 instances + Redis / baseline:  ${(best[2].rps / best[0].rps).toFixed(2)}`)
    console.log(
      `(On one machine the three instances, nginx, Redis, the emulator and the load share ${os.cpus().length} CPUs: the cluster's figure is the cost of the extra hops and the shared store, not the gain of more machines.)`,
    )
  } finally {
    for (const s of setups) await s.cluster?.stop()
    await emu.stop()
    cleanup()
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err)
    process.exit(1)
  },
)

/**
 * Api proxy overhead: p50/p95 latency of N sequential Bot API calls (sendMessage with a JSON body,
 * getMe without one) sent straight to the emulator vs through the recording api proxy, in the same
 * run, alternating call by call so both see the same machine load. The emulator and the proxy each
 * run in their own process (the proxy as in `bot dev`, recording every call), the client in this
 * one, over keep-alive connections. Loopback only.
 *
 *   npx tsx bench/api-proxy.ts [--calls 2000] [--warmup 300]
 *
 * Target: the proxy adds ≤ 0.5 ms per call at p50.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {createInterface} from 'node:readline'
import {fileURLToPath} from 'node:url'
import {Pool} from 'undici'

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`)
  const value = i >= 0 ? Number(process.argv[i + 1]) : fallback
  return Number.isFinite(value) && value > 0 ? value : fallback
}

async function emulatorRole(): Promise<void> {
  const {BotApiEmulator} = await import('../src/emulator/index.js')
  const emu = await BotApiEmulator.start({})
  const bot = emu.createBot({username: 'bench_bot'})
  emu.addChat(bot.token, {id: 42, type: 'private', first_name: 'Bench'})
  console.log(`READY ${emu.apiRoot} ${bot.token}`)
}

async function proxyRole(upstream: string): Promise<void> {
  const {startApiProxy} = await import('../src/inspector/proxy/api-proxy.js')
  let recorded = 0
  const proxy = await startApiProxy({upstream, onCall: (call) => void (recorded += call.method.length > 0 ? 1 : 0)})
  process.on('SIGTERM', () => process.exit(recorded >= 0 ? 0 : 1))
  console.log(`READY ${proxy.url}`)
}

function startRole(args: string[]): Promise<{child: ChildProcess; words: string[]}> {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not start within 60 s`)), 60_000)
    createInterface({input: child.stdout!}).on('line', (line) => {
      if (!line.startsWith('READY ')) return
      clearTimeout(timer)
      resolve({child, words: line.split(' ').slice(1)})
    })
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code})`)))
  })
}

interface Call {
  method: string
  body?: string
}

async function once(pool: Pool, path: string, call: Call): Promise<number> {
  const start = process.hrtime.bigint()
  const res = await pool.request({
    path: `${path}/${call.method}`,
    method: call.body ? 'POST' : 'GET',
    headers: call.body ? {'content-type': 'application/json'} : undefined,
    body: call.body,
  })
  const text = await res.body.text()
  const ms = Number(process.hrtime.bigint() - start) / 1e6
  if (res.statusCode !== 200 || !text.startsWith('{"ok":true'))
    throw new Error(`${call.method} answered ${res.statusCode}`)
  return ms
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]
const fmt = (ms: number) => ms.toFixed(3)

async function main(): Promise<void> {
  const calls = arg('calls', 2000)
  const warmup = arg('warmup', 300)
  const emulator = await startRole(['--role', 'emulator'])
  const [apiRoot, token] = emulator.words
  const proxy = await startRole(['--role', 'proxy', apiRoot])
  const [proxyUrl] = proxy.words
  const direct = new Pool(apiRoot, {connections: 1, pipelining: 1})
  const proxied = new Pool(proxyUrl, {connections: 1, pipelining: 1})
  const path = `/bot${token}`
  const scenarios: Call[] = [
    {method: 'sendMessage', body: JSON.stringify({chat_id: 42, text: 'bench message with a little text in it'})},
    {method: 'getMe'},
  ]
  console.log(
    `api proxy overhead: ${calls} sequential calls per method and route (after ${warmup} warm-up), alternating direct/proxied; emulator and proxy in their own processes`,
  )
  console.log(
    `${'method'.padEnd(12)} ${'direct p50 / p95'.padEnd(20)} ${'proxied p50 / p95'.padEnd(20)} ${'added p50'.padEnd(11)} ${'added p95'.padEnd(11)} ratio p50`,
  )
  let worst = 0
  try {
    for (const call of scenarios) {
      for (let i = 0; i < warmup; i++) {
        await once(direct, path, call)
        await once(proxied, path, call)
      }
      const a: number[] = []
      const b: number[] = []
      for (let i = 0; i < calls; i++) {
        // Alternate which goes first, so neither route always follows the other.
        if (i % 2 === 0) {
          a.push(await once(direct, path, call))
          b.push(await once(proxied, path, call))
        } else {
          b.push(await once(proxied, path, call))
          a.push(await once(direct, path, call))
        }
      }
      a.sort((x, y) => x - y)
      b.sort((x, y) => x - y)
      const added50 = pct(b, 50) - pct(a, 50)
      const added95 = pct(b, 95) - pct(a, 95)
      worst = Math.max(worst, added50)
      console.log(
        `${call.method.padEnd(12)} ${`${fmt(pct(a, 50))} / ${fmt(pct(a, 95))} ms`.padEnd(20)} ${`${fmt(pct(b, 50))} / ${fmt(pct(b, 95))} ms`.padEnd(20)} ${`+${fmt(added50)} ms`.padEnd(11)} ${`+${fmt(added95)} ms`.padEnd(11)} ${(pct(b, 50) / pct(a, 50)).toFixed(2)}×`,
      )
    }
    console.log(
      `target: added p50 ≤ 0.5 ms per call → ${worst <= 0.5 ? 'met' : 'NOT met'} (worst added p50 ${fmt(worst)} ms)`,
    )
  } finally {
    await Promise.all([direct.close(), proxied.close()])
    emulator.child.kill('SIGTERM')
    proxy.child.kill('SIGTERM')
  }
}

const role = process.argv.indexOf('--role')
if (role >= 0) {
  const which = process.argv[role + 1]
  await (which === 'emulator' ? emulatorRole() : proxyRole(process.argv[role + 2]))
} else {
  await main()
}

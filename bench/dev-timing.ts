/**
 * `bot dev` timings, loopback only (the emulator + the loopback localtunnel server + the real
 * localtunnel client), as real processes (`node bin/run.js dev …`; needs `npm run build`):
 *
 * 1. start → first update delivered: an update is queued before `bot dev` starts; the time until
 *    the fixture bot has processed it, minus the bot's own start-up (the same bot started alone,
 *    until it listens on PORT, measured in the same run).
 * 2. What starting the bot once the webhook URL is known costs (the bot gets WEBHOOK_URL from its
 *    first start, so it cannot start before the tunnel is open): measured in the same run, round by
 *    round, beside the session through the tunnel (S), the bot's own start-up alone (B), the
 *    tunnel's opening alone (T: the localtunnel provider bot dev uses, against the same server, until
 *    it has the URL) and the same session without a tunnel (L, `--tunnel none`: the bot starts at
 *    once). Printed: S / (T + B) and S / max(T, B), and S − L beside T: S − L ≈ T when the bot's
 *    start-up follows the tunnel's opening (the sum), ≈ max(T, B) − B if they overlapped.
 * 3. SIGINT → exit, with the webhook deleted at exit.
 *
 *   npx tsx bench/dev-timing.ts [--runs 5] [--no-poller-check] [--tunnel-delay MS] [--bot-start MS]
 *
 * --tunnel-delay makes the loopback tunnel server take MS before it hands out a tunnel, as a real
 * one does (localtunnel, cloudflared: a second or more). --bot-start makes the fixture bot take MS
 * more to start (FIXTURE_START_DELAY_MS), as a framework's does (the grammY template: ~0.8 s).
 *
 * (The check for another poller runs while the relay, the bot and the tunnel start; it is bounded by
 * its 0.5 s window and ends at once when updates are pending. No public DNS is asked: the tunnel's
 * host is not a quick tunnel's.)
 *
 * Targets: ≤ 500 ms beyond the bot's own start-up; ≤ 1 s from SIGINT to exit. The verdict
 * is printed on each line (OK / MISSED).
 */
import {spawn} from 'node:child_process'
import {existsSync, mkdtempSync, readFileSync} from 'node:fs'
import {createServer, type AddressInfo} from 'node:net'
import {createConnection} from 'node:net'
import {loadavg, tmpdir} from 'node:os'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

import {BotApiEmulator} from '../src/emulator/index.js'
import {localtunnelProvider} from '../src/tunnel/index.js'
import {startLocaltunnelServer} from '../test/support/lt-server.js'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const BIN = join(ROOT, 'bin', 'run.js')
const BOT = join(ROOT, 'test', 'fixtures', 'bots', 'echo-bot.mjs')

const runsArg = process.argv.indexOf('--runs')
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 5
const delayArg = process.argv.indexOf('--tunnel-delay')
const TUNNEL_DELAY_MS = delayArg > 0 ? Number(process.argv[delayArg + 1]) : 0
const botStartArg = process.argv.indexOf('--bot-start')
const BOT_START_MS = botStartArg > 0 ? Number(process.argv[botStartArg + 1]) : 0
const BOT_ENV = BOT_START_MS > 0 ? {FIXTURE_START_DELAY_MS: String(BOT_START_MS)} : {}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = performance.now() + timeoutMs
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 2))
  }
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection({host: '127.0.0.1', port})
    s.once('connect', () => {
      s.destroy()
      resolve(true)
    })
    s.once('error', () => resolve(false))
  })
}

/** The fixture bot alone: spawn → listening on PORT. */
async function botStartup(): Promise<number> {
  const port = 20_000 + Math.floor(Math.random() * 20_000)
  const started = performance.now()
  const child = spawn(process.execPath, [BOT], {
    env: {
      ...process.env,
      BOT_MODE: 'webhook',
      PORT: String(port),
      WEBHOOK_PATH: '/x',
      WEBHOOK_SECRET: 's',
      BOT_TOKEN: '1:x',
      ...BOT_ENV,
    },
    stdio: 'ignore',
  })
  try {
    const deadline = started + 10_000
    while (!(await canConnect(port))) {
      if (performance.now() > deadline) throw new Error('the bot did not listen')
      await new Promise((r) => setTimeout(r, 2))
    }
    return performance.now() - started
  } finally {
    child.kill()
  }
}

/** The tunnel alone: the localtunnel provider bot dev uses opens a tunnel to a local port; until it has the URL. */
async function tunnelOpening(host: string): Promise<number> {
  const server = createServer((socket) => socket.destroy())
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  const {port} = server.address() as AddressInfo
  const started = performance.now()
  try {
    const tunnel = await localtunnelProvider({host}).open({port, localHost: '127.0.0.1', timeoutMs: 20_000})
    const ms = performance.now() - started
    await tunnel.close()
    return ms
  } finally {
    server.close()
  }
}

/** `bot dev` with these delivery flags: start → the update queued before it processed by the bot (ms), then SIGINT. */
async function session(
  emu: BotApiEmulator,
  delivery: string[],
  run: number,
  label: string,
): Promise<{start: number; stop: number; deleted: number}> {
  const {token} = emu.createBot({username: `timing${run}${label}_bot`})
  const dir = mkdtempSync(join(tmpdir(), 'bot-dev-timing-'))
  const record = join(dir, 'record.txt')
  const queued = emu.sendUserMessage(token, {text: '/start'})
  const started = performance.now()
  const child = spawn(
    process.execPath,
    [
      BIN,
      'dev',
      '--api-root',
      emu.apiRoot,
      ...delivery,
      '--no-watch',
      ...(process.argv.includes('--no-poller-check') ? ['--no-poller-check'] : []),
      '--',
      process.execPath,
      BOT,
    ],
    {
      cwd: dir,
      env: {
        ...process.env,
        ...BOT_ENV,
        BOT_TOKEN: token,
        BOT_STATE_DIR: join(dir, 'state'),
        FIXTURE_RECORD: record,
        NO_COLOR: '1',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  )
  let stderr = ''
  child.stderr!.on('data', (d) => (stderr += d))
  const exited = new Promise<number>((r) => child.once('exit', (code) => r(code ?? -1)))
  await until(
    () => existsSync(record) && readFileSync(record, 'utf8').startsWith(String(queued.update_id)),
    `the first update (${label})`,
  ).catch((e) => {
    child.kill('SIGKILL')
    throw new Error(`${e.message}\n${stderr}`)
  })
  const start = performance.now() - started
  await until(() => /Ready/.test(stderr), 'Ready')

  let deletedAt = 0
  const onCall = (c: {method: string}) => {
    if (c.method.toLowerCase() === 'deletewebhook' && !deletedAt) deletedAt = performance.now()
  }
  emu.on('call', onCall)
  const sigint = performance.now()
  child.kill('SIGINT')
  const code = await exited
  const stopped = performance.now()
  emu.off('call', onCall)
  if (code !== 0 || emu.webhook(token) !== undefined)
    throw new Error(`bad exit (code ${code}, webhook ${JSON.stringify(emu.webhook(token))})\n${stderr}`)
  return {start, stop: stopped - sigint, deleted: deletedAt ? deletedAt - sigint : Number.NaN}
}

async function main(): Promise<void> {
  const emu = await BotApiEmulator.start({timeScale: 0.01})
  const lt = await startLocaltunnelServer(TUNNEL_DELAY_MS > 0 ? {newTunnelDelayMs: TUNNEL_DELAY_MS} : {})
  const startRows: number[] = []
  const loopRows: number[] = []
  const botRows: number[] = []
  const tunnelRows: number[] = []
  const stopRows: number[] = []
  const deleteRows: number[] = []
  const loads = [loadavg()[0]]
  try {
    for (let run = 0; run < RUNS; run++) {
      botRows.push(await botStartup())
      tunnelRows.push(await tunnelOpening(lt.url))
      const through = await session(emu, ['--tunnel-host', lt.url], run, 't')
      startRows.push(through.start)
      stopRows.push(through.stop)
      deleteRows.push(through.deleted)
      loopRows.push((await session(emu, ['--tunnel', 'none'], run, 'n')).start)
      loads.push(loadavg()[0])
    }
  } finally {
    await lt.close()
    await emu.stop()
  }
  const fmt = (ms: number) => `${ms.toFixed(0).padStart(6)} ms`
  const runs = (xs: number[]) => `(runs: ${xs.map((v) => v.toFixed(0)).join(', ')})`
  console.log(
    `bot dev timings (loopback: emulator + localtunnel server + the real localtunnel client${TUNNEL_DELAY_MS ? `, tunnel handed out after ${TUNNEL_DELAY_MS} ms` : ''}${BOT_START_MS ? `, the bot's start-up +${BOT_START_MS} ms` : ''}), ${RUNS} runs, medians; load average (1 min) ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}`,
  )
  console.log('')
  const S = median(startRows)
  const B = median(botRows)
  const T = median(tunnelRows)
  const L = median(loopRows)
  console.log(`S  start → first update processed, through the tunnel  ${fmt(S)}   ${runs(startRows)}`)
  console.log(`B  the bot's own start-up (alone)                      ${fmt(B)}   ${runs(botRows)}`)
  console.log(`T  the tunnel's opening (alone, until its URL)          ${fmt(T)}   ${runs(tunnelRows)}`)
  console.log(`L  start → first update processed, --tunnel none       ${fmt(L)}   ${runs(loopRows)}`)
  const beyond = S - B
  console.log(
    `S − B  beyond the bot's start-up                        ${fmt(beyond)}   target ≤ 500 ms ${beyond <= 500 ? 'OK' : 'MISSED'}`,
  )
  console.log(
    `S / (T + B)     ×${(S / (T + B)).toFixed(2)}   (the bot started after the tunnel opened: ≈ 1 plus bot dev's own start-up)`,
  )
  console.log(`S / max(T, B)   ×${(S / Math.max(T, B)).toFixed(2)}   (≈ 1 only if the two overlapped)`)
  console.log(
    `S − L  what the tunnel adds to the session  ${fmt(S - L)}   = ×${((S - L) / T).toFixed(2)} of T (×1: the tunnel's opening adds in full, the bot waits for it)`,
  )
  console.log(`SIGINT → deleteWebhook received  ${fmt(median(deleteRows))}`)
  const stop = median(stopRows)
  console.log(
    `SIGINT → exit (webhook deleted)  ${fmt(stop)}   target ≤ 1000 ms ${stop <= 1000 ? 'OK' : 'MISSED'}   ${runs(stopRows)}`,
  )
}

await main()

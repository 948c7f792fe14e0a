/**
 * `bot dev` timings, loopback only (the emulator + the loopback localtunnel server + the real
 * localtunnel client), as real processes (`node bin/run.js dev …`; needs `npm run build`):
 *
 * 1. start → first update delivered: an update is queued before `bot dev` starts; the time until
 *    the fixture bot has processed it, minus the bot's own start-up (the same bot started alone,
 *    until it listens on PORT, measured in the same run).
 * 2. SIGINT → exit, with the webhook deleted at exit.
 *
 *   npx tsx bench/dev-timing.ts [--runs 5] [--no-poller-check] [--tunnel-delay MS]
 *
 * --tunnel-delay makes the loopback tunnel server take MS before it hands out a tunnel, as a real
 * one does (localtunnel, cloudflared: a second or more): through a tunnel the bot is started once
 * the webhook URL is known (WEBHOOK_URL from its first start), so this shows what that order costs.
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
import {createConnection} from 'node:net'
import {tmpdir} from 'node:os'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

import {BotApiEmulator} from '../src/emulator/index.js'
import {startLocaltunnelServer} from '../test/support/lt-server.js'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const BIN = join(ROOT, 'bin', 'run.js')
const BOT = join(ROOT, 'test', 'fixtures', 'bots', 'echo-bot.mjs')

const runsArg = process.argv.indexOf('--runs')
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 5
const delayArg = process.argv.indexOf('--tunnel-delay')
const TUNNEL_DELAY_MS = delayArg > 0 ? Number(process.argv[delayArg + 1]) : 0

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

async function main(): Promise<void> {
  const emu = await BotApiEmulator.start({timeScale: 0.01})
  const lt = await startLocaltunnelServer(TUNNEL_DELAY_MS > 0 ? {newTunnelDelayMs: TUNNEL_DELAY_MS} : {})
  const startRows: number[] = []
  const botRows: number[] = []
  const stopRows: number[] = []
  const deleteRows: number[] = []
  try {
    for (let run = 0; run < RUNS; run++) {
      const {token} = emu.createBot({username: `timing${run}_bot`})
      const dir = mkdtempSync(join(tmpdir(), 'bot-dev-timing-'))
      const record = join(dir, 'record.txt')
      botRows.push(await botStartup())

      const queued = emu.sendUserMessage(token, {text: '/start'})
      const started = performance.now()
      const child = spawn(
        process.execPath,
        [
          BIN,
          'dev',
          '--api-root',
          emu.apiRoot,
          '--tunnel-host',
          lt.url,
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
        'the first update',
      ).catch((e) => {
        child.kill('SIGKILL')
        throw new Error(`${e.message}\n${stderr}`)
      })
      startRows.push(performance.now() - started)
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
      stopRows.push(stopped - sigint)
      deleteRows.push(deletedAt - sigint)
    }
  } finally {
    await lt.close()
    await emu.stop()
  }
  const fmt = (ms: number) => `${ms.toFixed(0).padStart(6)} ms`
  console.log(
    `bot dev timings (loopback: emulator + localtunnel server + the real localtunnel client${TUNNEL_DELAY_MS ? `, tunnel handed out after ${TUNNEL_DELAY_MS} ms` : ''}), ${RUNS} runs, medians`,
  )
  console.log('')
  console.log(
    `start → first update processed  ${fmt(median(startRows))}   (runs: ${startRows.map((v) => v.toFixed(0)).join(', ')})`,
  )
  console.log(`the bot's own start-up           ${fmt(median(botRows))}`)
  const beyond = median(startRows) - median(botRows)
  console.log(`beyond the bot's start-up        ${fmt(beyond)}   target ≤ 500 ms ${beyond <= 500 ? 'OK' : 'MISSED'}`)
  console.log(`SIGINT → deleteWebhook received  ${fmt(median(deleteRows))}`)
  const stop = median(stopRows)
  console.log(
    `SIGINT → exit (webhook deleted)  ${fmt(stop)}   target ≤ 1000 ms ${stop <= 1000 ? 'OK' : 'MISSED'}   (runs: ${stopRows.map((v) => v.toFixed(0)).join(', ')})`,
  )
}

await main()

/**
 * No-loss soak, loopback only: 10,000 updates over several chats through `bot dev` (a real
 * process: emulator → loopback localtunnel server → real localtunnel client → relay → bot) while
 * the bot restarts every 500 updates (a file change) and the tunnel's sockets are dropped 3 times.
 * Checks that every update was processed, none lost, per-chat order kept; reports duplicates.
 *
 * Deliveries:
 *   --delivery tunnel   (default) as above.
 *   --delivery bridge   `bot dev --tunnel none`: no tunnel, `bot dev` polls and posts to the relay.
 *   --tunnel-dies       the tunnel server dies for good at 25 % of the updates: `bot dev` swaps in the
 *                       bridge (same bot process) and the rest arrive that way.
 *
 *   npx tsx bench/soak.ts [--updates 10000] [--chats 20] [--no-drops] [--no-restarts] [--delivery bridge] [--tunnel-dies]   (needs `npm run build`)
 */
import {spawn} from 'node:child_process'
import {
  closeSync,
  copyFileSync,
  existsSync,
  fstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  utimesSync,
} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

import {BotApiEmulator} from '../src/emulator/index.js'
import {startLocaltunnelServer} from '../test/support/lt-server.js'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const BIN = join(ROOT, 'bin', 'run.js')
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name)
  return i > 0 ? Number(process.argv[i + 1]) : fallback
}
const UPDATES = arg('--updates', 10_000)
const CHATS = arg('--chats', 20)
const RESTART_EVERY = 500
const flagValue = (name: string, fallback: string) => {
  const i = process.argv.indexOf(name)
  return i > 0 ? process.argv[i + 1] : fallback
}
const DELIVERY = flagValue('--delivery', 'tunnel')
if (DELIVERY !== 'tunnel' && DELIVERY !== 'bridge') throw new Error(`--delivery ${DELIVERY}: use tunnel or bridge`)
const TUNNEL_DIES = process.argv.includes('--tunnel-dies')
const DIES_AT = Math.round(UPDATES * 0.25)
// --no-drops / --no-restarts isolate where duplicates come from.
const DROPS =
  process.argv.includes('--no-drops') || DELIVERY === 'bridge' || TUNNEL_DIES
    ? []
    : [0.25, 0.5, 0.75].map((f) => Math.round(UPDATES * f))
const RESTARTS = !process.argv.includes('--no-restarts')
const DEADLINE_MS = 300_000

async function main(): Promise<void> {
  const emu = await BotApiEmulator.start({timeScale: 0.01})
  const lt = await startLocaltunnelServer()
  const {token} = emu.createBot({username: 'soak_bot'})
  const dir = mkdtempSync(join(tmpdir(), 'bot-dev-soak-'))
  const project = join(dir, 'project')
  mkdirSync(project)
  const botFile = join(project, 'bot.mjs')
  copyFileSync(join(ROOT, 'test', 'fixtures', 'bots', 'echo-bot.mjs'), botFile)
  const record = join(dir, 'record.txt')

  let failedDeliveries = 0
  emu.on('delivery', (d) => {
    if (!d.ok) failedDeliveries++
  })

  const deliveryArgs =
    DELIVERY === 'bridge'
      ? ['--tunnel', 'none']
      : [
          '--tunnel-host',
          lt.url,
          ...(TUNNEL_DIES
            ? [
                '--probe-interval',
                '200',
                '--tunnel-timeout',
                '1000',
                '--tunnel-backoff',
                '100',
                '--tunnel-down-after',
                '500',
                '--tunnel-retries',
                '2',
              ]
            : []),
        ]
  const started = performance.now()
  const child = spawn(
    process.execPath,
    [BIN, 'dev', '--api-root', emu.apiRoot, ...deliveryArgs, '--debounce', '20', '--', process.execPath, 'bot.mjs'],
    {
      cwd: project,
      env: {...process.env, BOT_TOKEN: token, BOT_STATE_DIR: join(dir, 'state'), FIXTURE_RECORD: record, NO_COLOR: '1'},
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let stderr = ''
  let restartsSeen = 0
  let fellBack = false
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr += d
    restartsSeen += d.split('↻').length - 1
    if (/Updates now arrive by polling/.test(d)) fellBack = true
    if (stderr.length > 1_000_000) stderr = stderr.slice(-200_000)
  })
  child.stdout!.resume()
  const exited = new Promise<number>((r) => child.once('exit', (code) => r(code ?? -1)))
  const deadline = started + DEADLINE_MS
  const wait = async (check: () => boolean, what: string) => {
    while (!check()) {
      if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}\n${stderr.slice(-3000)}`)
      await new Promise((r) => setTimeout(r, 10))
    }
  }
  await wait(() => /Ready/.test(stderr), 'bot dev to be ready')
  const ready = performance.now()

  const sent: Array<{id: number; chat: number}> = []
  for (let i = 0; i < UPDATES; i++) {
    const chat = 5000 + (i % CHATS)
    sent.push({id: emu.sendUserMessage(token, {text: `soak ${i}`, chatId: chat}).update_id, chat})
  }

  // Read the bot's record as it grows: "<update_id> <chat> <mode> <pid>" per processed update.
  const processed: Array<{id: number; chat: number}> = []
  const unique = new Set<number>()
  let offset = 0
  let tail = ''
  const readRecord = () => {
    if (!existsSync(record)) return
    const fd = openSync(record, 'r')
    try {
      const size = fstatSync(fd).size
      if (size <= offset) return
      const buf = Buffer.alloc(size - offset)
      readSync(fd, buf, 0, buf.length, offset)
      offset = size
      const lines = (tail + buf.toString('utf8')).split('\n')
      tail = lines.pop() ?? ''
      for (const line of lines) {
        const [id, chat] = line.split(' ').map(Number)
        processed.push({id, chat})
        unique.add(id)
      }
    } finally {
      closeSync(fd)
    }
  }

  let restarts = 0
  let drops = 0
  let died = false
  const ids = new Set(sent.map((s) => s.id))
  await wait(() => {
    readRecord()
    while (RESTARTS && restarts < Math.floor(unique.size / RESTART_EVERY) && unique.size < UPDATES) {
      restarts++
      const now = new Date()
      utimesSync(botFile, now, now)
    }
    if (TUNNEL_DIES && !died && unique.size >= DIES_AT) {
      died = true
      void lt.kill()
    }
    while (drops < DROPS.length && unique.size >= DROPS[drops]) {
      drops++
      lt.dropAll()
    }
    return [...ids].every((id) => unique.has(id))
  }, 'every update to be processed')
  const allDone = performance.now()

  child.kill('SIGINT')
  const code = await exited
  const webhookAfter = emu.webhook(token)
  const pendingAfter = emu.pendingUpdates(token).length
  await lt.close()
  await emu.stop()

  // Per-chat order: the first time each update is processed, ids of a chat only go up.
  const firstSeen = new Set<number>()
  const lastByChat = new Map<number, number>()
  let orderViolations = 0
  for (const p of processed) {
    if (firstSeen.has(p.id)) continue
    firstSeen.add(p.id)
    const last = lastByChat.get(p.chat) ?? -Infinity
    if (p.id < last) orderViolations++
    lastByChat.set(p.chat, p.id)
  }
  const lost = sent.filter((s) => !unique.has(s.id)).length
  const duplicates = processed.length - unique.size
  const secs = (allDone - ready) / 1000
  const path =
    DELIVERY === 'bridge'
      ? 'bridge (getUpdates) → relay → bot'
      : TUNNEL_DIES
        ? 'tunnel → relay → bot, then the tunnel dies for good → bridge'
        : 'tunnel → relay → bot'
  console.log(`No-loss soak: ${UPDATES} updates over ${CHATS} chats through bot dev (emulator timeScale 0.01, ${path})`)
  console.log('')
  console.log(`processed (unique)        ${unique.size} / ${UPDATES}`)
  console.log(`lost                      ${lost}`)
  console.log(`duplicates                ${duplicates} (${((100 * duplicates) / UPDATES).toFixed(2)} %)`)
  console.log(`per-chat order violations ${orderViolations}`)
  console.log(`bot restarts              ${restarts} triggered, ${restartsSeen} reported by bot dev`)
  console.log(`tunnel drops              ${drops}`)
  if (TUNNEL_DIES) {
    const pids = new Set(
      readFileSync(record, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(' ')[3]),
    )
    console.log(
      `tunnel died for good      at ${DIES_AT} updates; fallback to the bridge ${fellBack ? 'reported' : 'NOT reported'}; bot processes ${pids.size} (restarts + 1 = ${restarts + 1})`,
    )
  }
  console.log(`failed webhook deliveries ${failedDeliveries} (retried by the emulator)`)
  const repeats = /(\d+) repeated by Telegram/.exec(stderr)?.[1] ?? '0'
  console.log(`retries of answered updates ${repeats} (answered again by the relay, not sent to the bot twice)`)
  console.log(`time                      ${secs.toFixed(1)} s (${(UPDATES / secs).toFixed(0)} updates/s)`)
  console.log(
    `after SIGINT              exit code ${code}, webhook ${webhookAfter ? 'STILL SET' : 'deleted'}, ${pendingAfter} pending`,
  )
  const ok = lost === 0 && orderViolations === 0 && code === 0 && !webhookAfter && pendingAfter === 0
  console.log(ok ? 'RESULT: OK (nothing lost, order kept)' : 'RESULT: FAILED')
  if (!ok) process.exitCode = 1
}

await main()

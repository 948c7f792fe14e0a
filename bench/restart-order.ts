/**
 * Restart without the wait: a save in the grammY template (`templates/grammy`, `node --import tsx
 * src/main.ts`, webhook mode, `bot dev --offline --json`) → the restarted bot answers a chat line,
 * measured three ways in the same run, interleaved round by round:
 *
 *   own start-up   the bot's own start: spawn `node --import tsx src/main.ts` (PORT, webhook mode,
 *                  the Bot API emulator of this process) → an update POSTed to it as soon as it says it
 *                  runs → answered (its handler's sendMessage done)
 *   start-first    `bot dev` as it restarts now: the new bot on a fresh PORT beside the old one, the
 *                  relay switched once it listens, the old one stopped after
 *   stop-first     `bot dev` with BOT_DEV_RESTART=stop-first: the order before (the old bot stopped,
 *                  30-60 ms of the template's clean shutdown, then the new one started; until
 *                  session-store/processes.ts left zombies out, also the 1-2 s this machine's init
 *                  takes to collect tsx's orphaned esbuild child)
 *
 * For each save a chat line is sent once `bot dev` says it restarts (the relay holds it) and the time
 * runs until the bot's reply. The two sessions work in two copies of the project (node_modules shared
 * through a symbolic link), so a save restarts one of them only. Each step starts once the bots of the
 * step before are gone, their whole process group (its command, package.json's "bot".dev.command,
 * runs without a shell, but a `dev:bot` script's `sh -c` would go at once). It prints the own start-up (the baseline), both orders, start-first − own start-up (the target's figure), the stages of each restart, and the
 * machine's load average while it ran. The save-and-wait round is bench/restart-support.ts's.
 *
 *   npm run build && npx tsx bench/restart-order.ts [--rounds 8] [--dir scaffolded-grammy-project] [--vs other-checkout]
 *
 * Without --dir it scaffolds the template with `bot init` (npm install, prefer-offline). --vs: a
 * third session, start-first, run by another build of bot (that checkout's bin/run.js, built), in
 * the same rounds: a before/after under the same load.
 * Target: start-first ≤ own start-up + 100 ms.
 */
import {cpSync, existsSync, mkdirSync, rmSync, symlinkSync} from 'node:fs'
import {availableParallelism, loadavg} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import getPort from 'get-port'

import {BotApiEmulator} from '../src/emulator/index.js'
import {cliEnv, runCli} from '../test/support/cli.js'
import {tempDir} from '../test/init/support.js'
import {
  Child,
  devEvent,
  devRestart,
  groupGone,
  median,
  ms as f,
  nextSeq,
  post,
  record,
  stageLines,
  stages,
  type Stages,
} from './restart-support.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const RUN = join(ROOT, 'bin/run.js')
const SECRET = 'bench_restart_order_secret'
const PATH = '/webhook/restart-order'

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? process.argv[i + 1] : fallback
}
const rounds = Number(arg('rounds', '8'))

async function prepare(): Promise<{dir: string; cleanup: () => void}> {
  const given = arg('dir', '')
  if (given) {
    if (!existsSync(join(given, 'node_modules', 'grammy'))) throw new Error(`${given} has no node_modules/grammy`)
    return {dir: given, cleanup: () => {}}
  }
  const root = tempDir('bot-bench-restart-order-')
  const dir = join(root, 'grammy-bench-bot')
  console.error(`scaffolding grammy in ${dir} (npm install, prefer-offline)…`)
  const r = await runCli(['init', dir, '--template', 'grammy', '--pm', 'npm', '--no-git', '--yes', '--json'], {
    env: {npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false'},
    timeoutMs: 300_000,
  })
  if (r.code !== 0) throw new Error(`bot init failed:\n${r.stdout}\n${r.stderr}`)
  return {dir, cleanup: () => rmSync(root, {recursive: true, force: true})}
}

/** A copy of the project's own files (not node_modules: a link to the original's). */
function copyProject(from: string, to: string): void {
  mkdirSync(to, {recursive: true})
  for (const name of ['src', 'package.json', 'tsconfig.json'])
    if (existsSync(join(from, name))) cpSync(join(from, name), join(to, name), {recursive: true})
  symlinkSync(join(from, 'node_modules'), join(to, 'node_modules'))
}

type Way = 'startFirst' | 'stopFirst' | 'vs'
const NAMES: Record<Way, string> = {startFirst: 'start-first', stopFirst: 'stop-first', vs: 'start-first (--vs)'}
const vs = arg('vs', '')
const WAYS: Way[] = vs ? ['startFirst', 'stopFirst', 'vs'] : ['startFirst', 'stopFirst']

async function main(): Promise<void> {
  const {dir, cleanup} = await prepare()
  const work = tempDir('bot-bench-restart-order-work-')
  const emu = await BotApiEmulator.start({timeScale: 1})
  const {token} = emu.createBot({username: 'restart_order_bench_bot'})
  const children: Child[] = []
  const own = {total: [] as number[], listen: [] as number[], answer: [] as number[]}
  const ways: Record<Way, Stages> = {startFirst: stages(), stopFirst: stages(), vs: stages()}
  const loads: number[] = [loadavg()[0]]
  try {
    const dirs = {startFirst: join(work, 'start-first'), stopFirst: join(work, 'stop-first'), vs: join(work, 'vs')}
    for (const way of WAYS) copyProject(dir, dirs[way])
    const devs = {} as Record<Way, Child>
    const oldPid: Record<Way, number> = {startFirst: 0, stopFirst: 0, vs: 0}
    for (const way of WAYS) {
      const env = {
        ...cliEnv(),
        NO_COLOR: '1',
        BOT_STATE_DIR: join(work, `state-${way}`),
        ...(way === 'stopFirst' ? {BOT_DEV_RESTART: 'stop-first'} : {}),
      }
      const run = way === 'vs' ? join(vs, 'bin/run.js') : RUN
      const child = new Child(process.execPath, [run, 'dev', '--offline', '--json'], {cwd: dirs[way], env})
      children.push(child)
      const started = child.next(
        devEvent('bot-start', (e) => {
          oldPid[way] = e.pid
          return true
        }),
        'the bot',
      )
      await child.next(devEvent('ready'), `bot dev (${way}) ready`)
      await started
      devs[way] = child
    }
    const ownEnv = {
      ...cliEnv(),
      BOT_TOKEN: token,
      BOT_API_ROOT: emu.apiRoot,
      BOT_MODE: 'webhook',
      WEBHOOK_PATH: PATH,
      WEBHOOK_SECRET: SECRET,
      NO_COLOR: '1',
      // As bot dev starts it (src/dev/bot/process.ts botEnv): tsx compiles the bot's code anew each start.
      TSX_DISABLE_CACHE: '1',
    }

    for (let round = 0; round < rounds + 1; round++) {
      const warmup = round === 0
      // The bot's own start-up: spawn → it says it runs → an update answered.
      {
        const port = await getPort()
        const t0 = performance.now()
        const child = new Child(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
          cwd: dir,
          env: {...ownEnv, PORT: String(port)},
          stderr: true,
        })
        const tRunning = await child.next((l) => /is running \(webhook/.test(l), 'the bot running')
        const seq = nextSeq()
        const t1 = await post({port, path: PATH, secret: SECRET}, seq, `own ${seq}`)
        if (!warmup) {
          own.total.push(t1 - t0)
          own.listen.push(tRunning - t0)
          own.answer.push(t1 - tRunning)
        }
        await child.stop()
        await groupGone(child.proc.pid!)
      }
      // bot dev, each way (the order alternating between rounds)
      for (const way of round % 2 ? [...WAYS].reverse() : WAYS) {
        const r = await devRestart(devs[way], join(dirs[way], 'src', 'bot.ts'), (text) => text, /is running \(webhook/)
        if (!warmup) record(ways[way], r)
        // The next step starts once the old bot is gone, its whole process group (a wrapper such as
        // a dev:bot script's `sh -c` goes before the bot).
        await groupGone(oldPid[way])
        oldPid[way] = r.pid
      }
      loads.push(loadavg()[0])
    }
  } finally {
    await Promise.all(children.map((c) => c.stop()))
    await emu.stop()
    rmSync(work, {recursive: true, force: true})
    cleanup()
  }
  const ownMs = median(own.total)
  const startFirst = median(ways.startFirst.total)
  const stopFirst = median(ways.stopFirst.total)
  const load = `load average (1 min) ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)} on ${availableParallelism()} cores`
  console.log(`grammY template: a save → the restarted bot answers, median of ${rounds} rounds (${load})`)
  console.log(`  own start-up (spawn → answered), the baseline   ${f(ownMs)}`)
  console.log(`  bot dev, start-first (now)                      ${f(startFirst)}`)
  console.log(`  bot dev, stop-first (before)                    ${f(stopFirst)}`)
  console.log(
    `  start-first − own start-up                      ${f(startFirst - ownMs)}   (target ≤ +100 ms: ${startFirst - ownMs <= 100 ? 'met' : 'missed'})`,
  )
  console.log(`  stop-first − own start-up                       ${f(stopFirst - ownMs)}`)
  console.log(`  start-first / stop-first                        ×${(startFirst / stopFirst).toFixed(2)}`)
  console.log(
    `  own start-up stages: spawn → "is running" ${f(median(own.listen))}; → answered ${f(median(own.answer))}`,
  )
  if (vs) {
    const other = median(ways.vs.total)
    console.log(
      `  bot dev, start-first, --vs ${vs}  ${f(other)}   (− own start-up ${f(other - ownMs)}; this build − it ${f(startFirst - other)})`,
    )
  }
  for (const way of WAYS) {
    const st = ways[way]
    console.log(`  ${NAMES[way]} stages (medians; bot dev's own spawn → listening ${f(median(st.listenMs))}):`)
    for (const line of stageLines(st)) console.log(line)
  }
  console.log(
    `  per round (ms): own ${own.total.map((x) => x.toFixed(0)).join(' ')}; ${WAYS.map((way) => `${NAMES[way]} ${ways[way].total.map((x) => x.toFixed(0)).join(' ')}`).join('; ')}`,
  )
}

await main()

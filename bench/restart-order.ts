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
 *                  ~1.1 s of the template's clean shutdown, then the new one started)
 *
 * For each save a chat line is sent once `bot dev` says it restarts (the relay holds it) and the time
 * runs until the bot's reply. The two sessions work in two copies of the project (node_modules shared
 * through a symbolic link), so a save restarts one of them only.
 *
 *   npm run build && npx tsx bench/restart-order.ts [--rounds 8] [--dir scaffolded-grammy-project]
 *
 * Without --dir it scaffolds the template with `bot init` (npm install, prefer-offline).
 * Target: start-first ≤ own start-up + 100 ms.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import http from 'node:http'
import {join} from 'node:path'
import {createInterface} from 'node:readline'
import {fileURLToPath} from 'node:url'

import getPort from 'get-port'

import {BotApiEmulator} from '../src/emulator/index.js'
import {cliEnv, runCli} from '../test/support/cli.js'
import {tempDir} from '../test/init/support.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const RUN = join(ROOT, 'bin/run.js')
const SECRET = 'bench_restart_order_secret'
const PATH = '/webhook/restart-order'
const STEP_DEADLINE_MS = 60_000

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? process.argv[i + 1] : fallback
}
const rounds = Number(arg('rounds', '8'))

/** A child whose output lines can be awaited (stdout, or both streams). */
class Child {
  readonly proc: ChildProcess
  #waiters: Array<{test: (line: string) => boolean; resolve: (at: number) => void}> = []
  #exited = false

  constructor(file: string, args: string[], options: {cwd: string; env: NodeJS.ProcessEnv; stderr?: boolean}) {
    this.proc = spawn(file, args, {cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true})
    this.proc.once('exit', () => (this.#exited = true))
    const onLine = (line: string) => {
      const at = performance.now()
      this.#waiters = this.#waiters.filter((w) => {
        if (!w.test(line)) return true
        w.resolve(at)
        return false
      })
    }
    createInterface({input: this.proc.stdout!}).on('line', onLine)
    if (options.stderr) createInterface({input: this.proc.stderr!}).on('line', onLine)
    else this.proc.stderr!.resume()
  }

  next(test: (line: string) => boolean, what: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${what} within ${STEP_DEADLINE_MS} ms`)), STEP_DEADLINE_MS)
      this.#waiters.push({
        test,
        resolve: (at) => {
          clearTimeout(timer)
          resolve(at)
        },
      })
    })
  }

  write(line: string): void {
    this.proc.stdin!.write(`${line}\n`)
  }

  stop(): Promise<void> {
    if (this.#exited) return Promise.resolve()
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        try {
          process.kill(-this.proc.pid!, 'SIGKILL')
        } catch {}
        resolve()
      }, 10_000)
      this.proc.once('exit', () => {
        clearTimeout(timer)
        resolve()
      })
      try {
        process.kill(-this.proc.pid!, 'SIGTERM')
      } catch {
        resolve()
      }
    })
  }
}

/** POST a text message to the bot as the relay would; resolves when it answered 200. */
function post(port: number, updateId: number, text: string): Promise<number> {
  const body = JSON.stringify({
    update_id: updateId,
    message: {
      message_id: updateId,
      date: Math.floor(Date.now() / 1000),
      chat: {id: 1111, type: 'private', first_name: 'T'},
      from: {id: 1111, is_bot: false, first_name: 'T'},
      text,
    },
  })
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: PATH,
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'x-telegram-bot-api-secret-token': SECRET,
        },
      },
      (res) => {
        res.resume()
        res.on('end', () =>
          res.statusCode === 200 ? resolve(performance.now()) : reject(new Error(`bot answered ${res.statusCode}`)),
        )
      },
    )
    req.setTimeout(STEP_DEADLINE_MS, () => req.destroy(new Error('no answer')))
    req.on('error', reject)
    req.end(body)
  })
}

const json =
  (type: string, extra: (e: any) => boolean = () => true) =>
  (line: string): boolean => {
    if (!line.startsWith('{')) return false
    try {
      const e = JSON.parse(line)
      return e.type === type && extra(e)
    } catch {
      return false
    }
  }

let seq = 1000
/** "Save" src/bot.ts: the same code, a new comment line at its end. */
function save(dir: string): void {
  const file = join(dir, 'src', 'bot.ts')
  writeFileSync(file, `${readFileSync(file, 'utf8').replace(/\n\/\/ saved \d+\n$/, '\n')}// saved ${++seq}\n`)
}

/** Resolves once the process is gone (polled; bounded). */
async function gone(pid: number): Promise<void> {
  const deadline = performance.now() + STEP_DEADLINE_MS
  for (;;) {
    try {
      process.kill(pid, 0)
    } catch {
      return
    }
    if (performance.now() > deadline) throw new Error(`pid ${pid} still runs after ${STEP_DEADLINE_MS} ms`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

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

type Way = 'startFirst' | 'stopFirst'

async function main(): Promise<void> {
  const {dir, cleanup} = await prepare()
  const work = tempDir('bot-bench-restart-order-work-')
  const emu = await BotApiEmulator.start({timeScale: 1})
  const {token} = emu.createBot({username: 'restart_order_bench_bot'})
  const children: Child[] = []
  const results = {own: [] as number[], startFirst: [] as number[], stopFirst: [] as number[]}
  const listenMs = {startFirst: [] as number[], stopFirst: [] as number[]}
  const stage = () => ({detect: [] as number[], spawn: [] as number[], listen: [] as number[], answer: [] as number[]})
  const stages = {startFirst: stage(), stopFirst: stage()}
  const ownListen: number[] = []
  const ownAnswer: number[] = []
  try {
    const dirs = {startFirst: join(work, 'start-first'), stopFirst: join(work, 'stop-first')}
    copyProject(dir, dirs.startFirst)
    copyProject(dir, dirs.stopFirst)
    const devs = {} as Record<Way, Child>
    const oldPid: Record<Way, number> = {startFirst: 0, stopFirst: 0}
    for (const way of ['startFirst', 'stopFirst'] as const) {
      const env = {
        ...cliEnv(),
        NO_COLOR: '1',
        BOT_STATE_DIR: join(work, `state-${way}`),
        ...(way === 'stopFirst' ? {BOT_DEV_RESTART: 'stop-first'} : {}),
      }
      const child = new Child(process.execPath, [RUN, 'dev', '--offline', '--json'], {cwd: dirs[way], env})
      children.push(child)
      const started = child.next(
        json('bot-start', (e) => {
          oldPid[way] = e.pid
          return true
        }),
        'the bot',
      )
      await child.next(json('ready'), `bot dev (${way}) ready`)
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
        const t1 = await post(port, ++seq, `own ${seq}`)
        if (!warmup) {
          results.own.push(t1 - t0)
          ownListen.push(tRunning - t0)
          ownAnswer.push(t1 - tRunning)
        }
        await child.stop()
      }
      // bot dev, each way (the order alternating between rounds)
      const ways: Way[] = round % 2 ? ['stopFirst', 'startFirst'] : ['startFirst', 'stopFirst']
      for (const way of ways) {
        const dev = devs[way]
        const text = `r${++seq}`
        let newPid = 0
        const spawned = dev.next(
          json('bot-start', (e) => {
            newPid = e.pid
            return true
          }),
          'the new bot',
        )
        const restarted = dev.next(json('restart'), 'the restart event')
        let ms = 0
        const listening = dev.next(
          json('bot-listening', (e) => {
            ms = e.ms
            return true
          }),
          'the new bot listening',
        )
        const answered = dev.next(
          json('chat', (e) => e.event?.type === 'bot' && e.event?.rendered?.text === text),
          'the reply',
        )
        const t0 = performance.now()
        save(dirs[way])
        const tRestart = await restarted
        dev.write(text) // while the bot restarts: the relay holds it
        const [tSpawn, tListen, tAnswer] = await Promise.all([spawned, listening, answered])
        if (!warmup) {
          results[way].push(tAnswer - t0)
          listenMs[way].push(ms)
          stages[way].detect.push(tRestart - t0)
          stages[way].spawn.push(tSpawn - tRestart)
          stages[way].listen.push(tListen - tSpawn)
          stages[way].answer.push(tAnswer - tListen)
        }
        // The next step starts once the old bot is gone too (a start-first restart stops it after).
        await gone(oldPid[way])
        oldPid[way] = newPid
      }
    }
  } finally {
    await Promise.all(children.map((c) => c.stop()))
    await emu.stop()
    rmSync(work, {recursive: true, force: true})
    cleanup()
  }
  const f = (x: number) => `${x.toFixed(0).padStart(5)} ms`
  const own = median(results.own)
  const startFirst = median(results.startFirst)
  const stopFirst = median(results.stopFirst)
  console.log(`grammY template: a save → the restarted bot answers, median of ${rounds} rounds`)
  console.log(`  own start-up (spawn → answered)   ${f(own)}`)
  console.log(
    `  bot dev, start-first (now)        ${f(startFirst)}   = own start-up + ${f(startFirst - own)} (target ≤ +100 ms); ×${(startFirst / stopFirst).toFixed(2)} of stop-first`,
  )
  console.log(
    `  bot dev, stop-first (before)      ${f(stopFirst)}   = own start-up + ${f(stopFirst - own)} (the baseline, ×1.00)`,
  )
  console.log(
    `  new bot spawn → listening, as bot dev saw it: start-first ${f(median(listenMs.startFirst))}, stop-first ${f(median(listenMs.stopFirst))}`,
  )
  console.log(`  own start-up stages: spawn → "is running" ${f(median(ownListen))}; → answered ${f(median(ownAnswer))}`)
  for (const way of ['startFirst', 'stopFirst'] as const) {
    const st = stages[way]
    console.log(`  ${way === 'startFirst' ? 'start-first' : 'stop-first'} stages (medians):`)
    console.log(`    save → restart event (file watcher + debounce)            ${f(median(st.detect))}`)
    console.log(`    restart → new bot spawned (stop-first: the old one stopped) ${f(median(st.spawn))}`)
    console.log(`    spawned → seen listening                                  ${f(median(st.listen))}`)
    console.log(`    listening → held chat line answered (and printed)         ${f(median(st.answer))}`)
  }
}

await main()

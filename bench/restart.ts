/**
 * Restart latency: a file saved → the new bot process listening → an update answered, for
 *
 *   cold start     the bot's own start: spawn `node bot.mjs` → listening → an update POSTed and answered
 *   bot dev        `node bin/run.js dev --offline --json -- node bot.mjs`: the file is saved, and once
 *                  `bot dev` says it restarts, a chat line is sent (the relay holds it) → the bot's reply;
 *                  also with `--debounce 150`, the watcher's default before it became 50 ms
 *   node --watch   `node --watch bot.mjs`: saved → the new process prints "listening" → POST → answered
 *   tsx watch      `tsx watch bot.mjs`: the same
 *
 * all measured in the same run, the four interleaved round by round. The bot is the trivial one of
 * test/fixtures/bridge (sendMessage to the Bot API emulator, then 200). For bot dev the time is also
 * split into its stages (from its --json events) so a slow stage shows where it is.
 *
 *   npm run build && npx tsx bench/restart.ts [--rounds 10]
 *
 * Target: bot dev's restart ≤ 100 ms beyond the bot's cold start.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import http from 'node:http'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {createInterface} from 'node:readline'
import {fileURLToPath} from 'node:url'

import getPort from 'get-port'

import {BotApiEmulator} from '../src/emulator/index.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const BOT = join(ROOT, 'test/fixtures/bridge/trivial-bot.mjs')
const RUN = join(ROOT, 'bin/run.js')
const TSX = join(ROOT, 'node_modules/.bin/tsx')
const SECRET = 'bench_restart_secret'
const PATH = '/webhook/restart'
const STEP_DEADLINE_MS = 20_000

const rounds = (() => {
  const i = process.argv.indexOf('--rounds')
  return i > 0 ? Number(process.argv[i + 1]) : 10
})()

/** A child whose stdout lines can be awaited. */
class Child {
  readonly proc: ChildProcess
  #waiters: Array<{test: (line: string) => boolean; resolve: (at: number) => void}> = []

  constructor(file: string, args: string[], options: {cwd: string; env: NodeJS.ProcessEnv}) {
    this.proc = spawn(file, args, {cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true})
    this.proc.stderr!.resume()
    createInterface({input: this.proc.stdout!}).on('line', (line) => {
      const at = performance.now()
      this.#waiters = this.#waiters.filter((w) => {
        if (!w.test(line)) return true
        w.resolve(at)
        return false
      })
    })
  }

  /** The time the next line matching `test` arrives. */
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
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return Promise.resolve()
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        try {
          process.kill(-this.proc.pid!, 'SIGKILL')
        } catch {}
        resolve()
      }, 8000)
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

/** POST an update to the bot as the relay would; resolves when it answered. */
function post(port: number, updateId: number): Promise<number> {
  const body = JSON.stringify({
    update_id: updateId,
    message: {
      message_id: updateId,
      date: 1700000000,
      chat: {id: 1111, type: 'private', first_name: 'T'},
      from: {id: 1111, is_bot: false, first_name: 'T'},
      text: `u${updateId}`,
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

const isListening = (line: string): boolean => /^listening \d+$/.test(line)
let seq = 1000
/** "Save" the bot's file: the same code, a new comment line. */
const save = (file: string): void =>
  writeFileSync(file, `${readFileSync(file, 'utf8').replace(/\n\/\/ saved \d+\n$/, '\n')}// saved ${++seq}\n`)

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

async function main(): Promise<void> {
  const emu = await BotApiEmulator.start({timeScale: 1})
  const {token} = emu.createBot({username: 'restart_bench_bot'})
  const work = mkdtempSync(join(tmpdir(), 'bot-restart-bench-'))
  const dirs = {cold: '', dev: '', devOld: '', node: '', tsx: ''}
  for (const name of Object.keys(dirs) as Array<keyof typeof dirs>) {
    dirs[name] = mkdtempSync(join(work, `${name}-`))
    copyFileSync(BOT, join(dirs[name], 'bot.mjs'))
  }
  const baseEnv = {
    ...process.env,
    BOT_TOKEN: token,
    BOT_API_ROOT: emu.apiRoot,
    BOT_MODE: 'webhook',
    WEBHOOK_PATH: PATH,
    WEBHOOK_SECRET: SECRET,
    NO_COLOR: '1',
  }
  const children: Child[] = []
  const results = {
    cold: [] as number[],
    dev: [] as number[],
    devOld: [] as number[],
    node: [] as number[],
    tsx: [] as number[],
  }
  const coldStages = {listen: [] as number[], answer: [] as number[]}
  const newStages = () => ({
    detect: [] as number[],
    stop: [] as number[],
    listen: [] as number[],
    answer: [] as number[],
  })
  const stages = {dev: newStages(), devOld: newStages()}
  try {
    // Long-running watchers, each in its own folder.
    const devEvent =
      (type: string, extra: (e: any) => boolean = () => true) =>
      (line: string) => {
        try {
          const e = JSON.parse(line)
          return e.type === type && extra(e)
        } catch {
          return false
        }
      }
    const devs = {} as Record<'dev' | 'devOld', Child>
    for (const kind of ['dev', 'devOld'] as const) {
      const extra = kind === 'devOld' ? ['--debounce', '150'] : []
      const child = new Child(
        process.execPath,
        [RUN, 'dev', '--offline', '--json', ...extra, '--', 'node', 'bot.mjs'],
        {cwd: dirs[kind], env: {...process.env, NO_COLOR: '1', BOT_STATE_DIR: join(work, `state-${kind}`)}},
      )
      children.push(child)
      await child.next(devEvent('ready'), 'bot dev ready')
      devs[kind] = child
    }

    const watchers: Record<'node' | 'tsx', {child: Child; port: number}> = {} as never
    for (const kind of ['node', 'tsx'] as const) {
      const port = await getPort()
      const args = kind === 'node' ? ['--watch', 'bot.mjs'] : ['watch', 'bot.mjs']
      const child = new Child(kind === 'node' ? process.execPath : TSX, args, {
        cwd: dirs[kind],
        env: {...baseEnv, PORT: String(port)},
      })
      children.push(child)
      await child.next(isListening, `${kind} watch listening`)
      watchers[kind] = {child, port}
    }

    for (let round = 0; round < rounds + 1; round++) {
      const warmup = round === 0
      // cold start
      {
        const port = await getPort()
        const t0 = performance.now()
        const child = new Child(process.execPath, ['bot.mjs'], {cwd: dirs.cold, env: {...baseEnv, PORT: String(port)}})
        const tListen = await child.next(isListening, 'cold start listening')
        const t1 = await post(port, ++seq)
        if (!warmup) {
          results.cold.push(t1 - t0)
          coldStages.listen.push(tListen - t0)
          coldStages.answer.push(t1 - tListen)
        }
        await child.stop()
      }
      // bot dev (default debounce, and the previous default 150 ms)
      for (const kind of ['dev', 'devOld'] as const) {
        const devChild = devs[kind]
        const text = `r${++seq}`
        const restarted = devChild.next(devEvent('restart'), 'bot dev restart event')
        const started = devChild.next(devEvent('bot-start'), 'bot dev bot-start event')
        const listening = devChild.next(devEvent('bot-listening'), 'bot dev bot-listening event')
        const answered = devChild.next(
          devEvent('chat', (e) => e.event?.type === 'bot' && e.event?.rendered?.text === `echo ${text}`),
          'the reply',
        )
        const t0 = performance.now()
        save(join(dirs[kind], 'bot.mjs'))
        const tRestart = await restarted
        devChild.write(text) // sent while the bot restarts: the relay holds it
        const [tStart, tListen, tAnswer] = await Promise.all([started, listening, answered])
        if (!warmup) {
          results[kind].push(tAnswer - t0)
          stages[kind].detect.push(tRestart - t0)
          stages[kind].stop.push(tStart - tRestart)
          stages[kind].listen.push(tListen - tStart)
          stages[kind].answer.push(tAnswer - tListen)
        }
      }
      // node --watch, tsx watch
      for (const kind of ['node', 'tsx'] as const) {
        const {child, port} = watchers[kind]
        const listening = child.next(isListening, `${kind} restart listening`)
        const t0 = performance.now()
        save(join(dirs[kind], 'bot.mjs'))
        await listening
        const t1 = await post(port, ++seq)
        if (!warmup) results[kind].push(t1 - t0)
      }
    }

    const f = (x: number) => `${x.toFixed(0).padStart(5)} ms`
    const cold = median(results.cold)
    console.log(`restart latency, median of ${rounds} rounds (file saved → new process listening → an update answered)`)
    console.log(`  bot cold start (baseline)   ${f(cold)}`)
    console.log(
      `  bot dev --offline           ${f(median(results.dev))}   = cold start + ${f(median(results.dev) - cold)}   (target ≤ +100 ms)`,
    )
    console.log(
      `  bot dev --debounce 150      ${f(median(results.devOld))}   = cold start + ${f(median(results.devOld) - cold)}`,
    )
    console.log(
      `  node --watch                ${f(median(results.node))}   = cold start + ${f(median(results.node) - cold)}`,
    )
    console.log(
      `  tsx watch                   ${f(median(results.tsx))}   = cold start + ${f(median(results.tsx) - cold)}`,
    )
    console.log(
      `  cold start stages: spawn → listening ${f(median(coldStages.listen))}; listening → answered ${f(median(coldStages.answer))}`,
    )
    for (const kind of ['dev', 'devOld'] as const) {
      const st = stages[kind]
      console.log(`  ${kind === 'dev' ? 'bot dev' : 'bot dev --debounce 150 (the default before)'} stages (medians):`)
      console.log(`    save → restart event (file watcher + debounce)         ${f(median(st.detect))}`)
      console.log(`    restart → new bot spawned (beside the old one)         ${f(median(st.stop))}`)
      console.log(`    spawned → seen listening (cold start + port polling)   ${f(median(st.listen))}`)
      console.log(`    listening → held update answered (and printed)         ${f(median(st.answer))}`)
    }
  } finally {
    await Promise.all(children.map((c) => c.stop()))
    await emu.stop()
    rmSync(work, {recursive: true, force: true})
  }
}

await main()

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
import {copyFileSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import getPort from 'get-port'

import {BotApiEmulator} from '../src/emulator/index.js'
import {
  Child,
  devEvent,
  devRestart,
  median,
  nextSeq,
  post,
  record,
  save,
  stageLines,
  stages,
} from './restart-support.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const BOT = join(ROOT, 'test/fixtures/bridge/trivial-bot.mjs')
const RUN = join(ROOT, 'bin/run.js')
const TSX = join(ROOT, 'node_modules/.bin/tsx')
const SECRET = 'bench_restart_secret'
const PATH = '/webhook/restart'

const rounds = (() => {
  const i = process.argv.indexOf('--rounds')
  return i > 0 ? Number(process.argv[i + 1]) : 10
})()

const isListening = (line: string): boolean => /^listening \d+$/.test(line)

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
  const devStages = {dev: stages(), devOld: stages()}
  const target = (port: number) => ({port, path: PATH, secret: SECRET})
  try {
    // Long-running watchers, each in its own folder.
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
        const t1 = await post(target(port), nextSeq())
        if (!warmup) {
          results.cold.push(t1 - t0)
          coldStages.listen.push(tListen - t0)
          coldStages.answer.push(t1 - tListen)
        }
        await child.stop()
      }
      // bot dev (default debounce, and the previous default 150 ms)
      for (const kind of ['dev', 'devOld'] as const) {
        const r = await devRestart(devs[kind], join(dirs[kind], 'bot.mjs'), (text) => `echo ${text}`)
        if (!warmup) {
          results[kind].push(r.total)
          record(devStages[kind], r)
        }
      }
      // node --watch, tsx watch
      for (const kind of ['node', 'tsx'] as const) {
        const {child, port} = watchers[kind]
        const listening = child.next(isListening, `${kind} restart listening`)
        const t0 = performance.now()
        save(join(dirs[kind], 'bot.mjs'))
        await listening
        const t1 = await post(target(port), nextSeq())
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
      console.log(`  ${kind === 'dev' ? 'bot dev' : 'bot dev --debounce 150 (the default before)'} stages (medians):`)
      for (const line of stageLines(devStages[kind])) console.log(line)
    }
  } finally {
    await Promise.all(children.map((c) => c.stop()))
    await emu.stop()
    rmSync(work, {recursive: true, force: true})
  }
}

await main()

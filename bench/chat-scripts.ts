/**
 * Chat scripts against the grammY template: 100 scripts of 10 steps (5 user steps, 5 `bot:` checks: /start, an
 * echo, /count, a press of its Reset button and the edit, another echo).
 *
 *   bot test   `bot test --jobs N` in a project made by `bot init` (the bot started as `bot dev --offline`
 *              starts it: its own process, relay, api proxy), wall time of the whole command (bot start-up
 *              included) and of its scripts (the JSON's durations)
 *   scripts    the same 100 scripts with runChatScript, in process, against the template's bot (createBot from
 *              its src/bot.ts) served by grammY's webhook handler on loopback
 *   api        the same 100 conversations written with the conversation API (emu.user: send, click, checks),
 *              the same bot, the same way (what one vitest file of them would do)
 *
 * Both make the same checks: each answer's text, the keyboard's rows, that the Reset answer edits the counter, and
 * that nothing else came (the script: every message must be expected; the API: one message an answer). Each round
 * plays the scripts from their text (parsed each time, as a vitest file calling runChatScript(emu, token, text)
 * does; `bot test` parses each once).
 *
 * The ratio scripts/api is the runner's cost over hand-written tests (target ≤ 1.5); `bot test` must stay ≤ 10 s.
 *
 *   npm run build && npx tsx bench/chat-scripts.ts [--scripts 100] [--jobs 2]
 */
import {mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import http from 'node:http'
import type {AddressInfo} from 'node:net'
import os from 'node:os'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'

import {BotApiEmulator, runChatScript} from '../src/emulator/index.js'
import {PROJECT_ROOT, runCli} from '../test/support/cli.js'
import {tempDir} from '../test/init/support.js'

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? process.argv[i + 1] : fallback
}

const SCRIPTS = Number(arg('scripts', '100'))
const JOBS = Number(arg('jobs', String(os.availableParallelism())))
const GREETING = (name: string) => `Hello, ${name}! Send me a message and I will echo it. /help lists the commands.`

function script(i: number): string {
  return `users: {u: {first_name: User${i}}}
steps:
  - user: /start
  - bot: "${GREETING(`User${i}`)}"
  - user: hello ${i}
  - bot: "hello ${i}"
  - user: /count
  - bot: {text: "Count: 1", buttons: [[Reset]]}
  - press: Reset
  - bot: {edit: "Count: 0 (reset)"}
  - user: bye ${i}
  - bot: "bye ${i}"
`
}

async function pool<T>(n: number, jobs: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = []
  let next = 0
  await Promise.all(
    Array.from({length: jobs}, async () => {
      for (let i = next++; i < n; i = next++) out[i] = await work(i)
    }),
  )
  return out
}

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`bench: ${what}`)
}

const dir = tempDir('bench-chat-scripts-')
try {
  const made = await runCli(['init', join(dir, 'g'), '--template', 'grammy', '--no-install', '--no-git', '--yes'])
  check(made.code === 0, `bot init failed: ${made.stderr}`)
  const project = join(dir, 'g')
  symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(project, 'node_modules'), 'dir')
  mkdirSync(join(project, 'test'), {recursive: true})
  // The template ships its own chat scripts (start, buy): the bench plays exactly its SCRIPTS.
  for (const f of readdirSync(join(project, 'test'))) if (f.endsWith('.chat.yml')) rmSync(join(project, 'test', f))
  for (let i = 0; i < SCRIPTS; i++) writeFileSync(join(project, 'test', `s${i}.chat.yml`), script(i))

  // ---- bot test, end to end
  const t0 = performance.now()
  const cli = await runCli(['test', '--jobs', String(JOBS), '--json'], {cwd: project, timeoutMs: 300_000})
  const wall = performance.now() - t0
  check(cli.code === 0, `bot test failed (${cli.code}): ${cli.stdout.slice(0, 2000)} ${cli.stderr}`)
  const json = JSON.parse(cli.stdout) as {passed: number; durationMs: number; scripts: Array<{durationMs: number}>}
  check(json.passed === SCRIPTS, `${json.passed} of ${SCRIPTS} passed`)

  // ---- in process: the template's bot behind grammY's webhook handler, on one emulator
  const {createBot} = (await import(pathToFileURL(join(project, 'src', 'bot.ts')).href)) as {
    createBot: (o: {token: string; apiRoot: string}) => import('grammy').Bot
  }
  const {webhookCallback} = await import('grammy')
  const emu = await BotApiEmulator.start({timeScale: 1})
  const {token} = emu.createBot({username: 'bench_bot'})
  const bot = createBot({token, apiRoot: emu.apiRoot})
  await bot.init()
  const server = http.createServer(webhookCallback(bot, 'http'))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
  await fetch(`${emu.apiRoot}/bot${token}/setWebhook`, {
    method: 'POST',
    headers: {'content-type': 'application/json'},
    body: JSON.stringify({url}),
  })
  const texts = Array.from({length: SCRIPTS}, (_, i) => script(i))

  const viaScripts = async (jobs: number): Promise<number> => {
    const t = performance.now()
    const results = await pool(SCRIPTS, jobs, (i) => runChatScript(emu, token, texts[i]))
    check(
      results.every((r) => r.ok),
      `a script failed: ${JSON.stringify(results.find((r) => !r.ok)?.failures)}`,
    )
    return performance.now() - t
  }
  let userIds = 900_000_000
  const viaApi = async (jobs: number): Promise<number> => {
    const t = performance.now()
    await pool(SCRIPTS, jobs, async (i) => {
      const user = emu.user(token, {id: ++userIds, firstName: `User${i}`})
      let r = await user.send('/start')
      check(r.length === 1 && r[0].text === GREETING(`User${i}`), 'greeting')
      r = await user.send(`hello ${i}`)
      check(r.length === 1 && r[0].text === `hello ${i}`, 'echo')
      r = await user.send('/count')
      // the checks the script's steps make: the whole keyboard ([[Reset]]), and that the answer is an edit of it
      const rows = (r[0]?.reply_markup as {inline_keyboard?: Array<Array<{text: string}>>})?.inline_keyboard
      const labels = JSON.stringify(rows?.map((row) => row.map((b) => b.text)))
      check(r.length === 1 && r[0].text === 'Count: 1' && labels === '[["Reset"]]', 'count')
      const counter = r[0].message_id
      r = await user.click('Reset')
      check(r.length === 1 && r[0].text === 'Count: 0 (reset)' && r[0].message_id === counter, 'edit')
      r = await user.send(`bye ${i}`)
      check(r.length === 1 && r[0].text === `bye ${i}`, 'bye')
    })
    return performance.now() - t
  }

  // warm up both, then measure in turn (the best of 3 rounds of each)
  await viaScripts(JOBS)
  await viaApi(JOBS)
  const rounds = {scripts1: [] as number[], api1: [] as number[], scriptsN: [] as number[], apiN: [] as number[]}
  for (let round = 0; round < 3; round++) {
    rounds.scripts1.push(await viaScripts(1))
    rounds.api1.push(await viaApi(1))
    rounds.scriptsN.push(await viaScripts(JOBS))
    rounds.apiN.push(await viaApi(JOBS))
  }
  server.closeAllConnections()
  server.close()
  await emu.stop()

  const best = (list: number[]) => Math.min(...list)
  const ms = (n: number) => `${Math.round(n)} ms`
  console.log(
    `${SCRIPTS} chat scripts of 10 steps, the grammY template, ${os.availableParallelism()} cores, load ${os.loadavg()[0].toFixed(1)}`,
  )
  console.log(
    `bot test --jobs ${JOBS}: ${ms(wall)} wall (bot start-up included); the run's own figure ${ms(json.durationMs)}; scripts ${ms(Math.min(...json.scripts.map((s) => s.durationMs)))}–${ms(Math.max(...json.scripts.map((s) => s.durationMs)))} each`,
  )
  for (const [jobs, s, a] of [
    [1, best(rounds.scripts1), best(rounds.api1)],
    [JOBS, best(rounds.scriptsN), best(rounds.apiN)],
  ] as const)
    console.log(
      `in process, ${jobs} at a time: runChatScript ${ms(s)}, conversation API ${ms(a)}: ratio ${(s / a).toFixed(2)}×`,
    )
} finally {
  rmSync(dir, {recursive: true, force: true})
}
process.exit(0)

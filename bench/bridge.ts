/**
 * Bridge latency: an update injected into the Bot API emulator → the trivial bot's sendMessage
 * recorded by the emulator, through the bridge (bot in webhook mode, `bot dev`'s UpdateBridge
 * long-polling and POSTing to it; and, as in `bot dev --tunnel none`, bridge → relay → bot) vs the
 * same bot long-polling the emulator itself. p50/p99 and the latency the bridge adds, measured in
 * the same run, the modes interleaved in blocks.
 *
 *   npm run build && npx tsx bench/bridge.ts [--n 400] [--in-process]
 *
 * Processes as in `bot dev`: the emulator (standing in for Telegram) in this process, the bridge in
 * its own (--in-process: in this one, like `bot dev --offline`), each bot in its own. Before every
 * injection the poller (bot or bridge) is waiting in getUpdates, the steady state.
 *
 * Target, printed with ✓/✗: the bridge adds ≤ 0.5 ms p50 over the bot polling itself.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import os from 'node:os'
import {createInterface} from 'node:readline'
import {fileURLToPath} from 'node:url'

const SECRET = 'bench_bridge_secret'
const PATH = '/webhook/bench'
const BOT = fileURLToPath(new URL('../test/fixtures/bridge/trivial-bot.mjs', import.meta.url))

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name)
  return i > 0 ? Number(process.argv[i + 1]) : fallback
}

function start(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<{child: ChildProcess; match: RegExpExecArray}> {
  const child = spawn(process.execPath, args, {stdio: ['ignore', 'pipe', 'inherit'], env: {...process.env, ...env}})
  return new Promise((resolve, reject) => {
    const rl = createInterface({input: child.stdout!})
    rl.on('line', (line) => {
      const m = ready.exec(line)
      if (m) resolve({child, match: m})
    })
    child.once('exit', (code) => reject(new Error(`${args.at(-1)} exited with ${code}`)))
    setTimeout(() => reject(new Error(`${args.join(' ')} did not start within 20 s`)), 20_000).unref()
  })
}

async function runBridge(env: {
  token: string
  apiRoot: string
  url: string
  relay: boolean
}): Promise<{stop(): Promise<unknown>}> {
  const {UpdateBridge} = await import('../src/dev/delivery/bridge/bridge.js')
  const {BotApi} = await import('../src/telegram/client.js')
  let url = env.url
  let relay: {close(): Promise<void>} | undefined
  if (env.relay) {
    // as in `bot dev --tunnel none`: the bridge posts to the relay (same process), which forwards to the bot
    const {Relay} = await import('../src/dev/relay/relay.js')
    const bot = new URL(env.url)
    const r = new Relay({secret: SECRET, path: '/webhook/relayed', holdTimeoutMs: 30_000})
    await r.listen()
    r.setTarget({host: bot.hostname, port: Number(bot.port), path: bot.pathname})
    url = `http://127.0.0.1:${r.port}/webhook/relayed`
    relay = r
  }
  const bridge = new UpdateBridge({
    api: new BotApi({token: env.token, apiRoot: env.apiRoot}),
    target: {url, secret: SECRET},
    onEvent: (e) => {
      if (e.type !== 'delivered') console.error(`bridge: ${e.text}`)
    },
  })
  await bridge.start()
  return {
    stop: async () => {
      await bridge.stop()
      await relay?.close()
    },
  }
}

async function bridgeChild(): Promise<void> {
  const [token, apiRoot, url, relay] = process.argv.slice(3)
  const bridge = await runBridge({token, apiRoot, url, relay: relay === 'relay'})
  process.on('SIGTERM', () => void bridge.stop().then(() => process.exit(0)))
  console.log('bridge ready')
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      resolve()
    }, 5000)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
    child.kill('SIGTERM')
  })
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

async function main(): Promise<void> {
  const n = arg('--n', 400)
  const inProcess = process.argv.includes('--in-process')
  const {BotApiEmulator} = await import('../src/emulator/index.js')
  const emu = await BotApiEmulator.start({timeScale: 1})
  const polling = emu.createBot({username: 'bench_polling_bot'}).token
  const direct = emu.createBot({username: 'bench_bridge_bot'}).token
  const relayed = emu.createBot({username: 'bench_relayed_bot'}).token
  const children: ChildProcess[] = []
  const inProcessBridges: Array<{stop(): Promise<unknown>}> = []
  try {
    const common = {BOT_API_ROOT: emu.apiRoot}
    children.push((await start([BOT], {...common, BOT_TOKEN: polling, BOT_MODE: 'polling'}, /^polling$/)).child)
    for (const [token, relay] of [
      [direct, false],
      [relayed, true],
    ] as const) {
      const hook = await start(
        [BOT],
        {...common, BOT_TOKEN: token, BOT_MODE: 'webhook', PORT: '0', WEBHOOK_PATH: PATH, WEBHOOK_SECRET: SECRET},
        /^listening (\d+)$/,
      )
      children.push(hook.child)
      const url = `http://127.0.0.1:${hook.match[1]}${PATH}`
      if (inProcess) inProcessBridges.push(await runBridge({token, apiRoot: emu.apiRoot, url, relay}))
      else
        children.push(
          (
            await start(
              [
                ...process.execArgv,
                fileURLToPath(import.meta.url),
                'bridge-child',
                token,
                emu.apiRoot,
                url,
                relay ? 'relay' : 'direct',
              ],
              {},
              /^bridge ready$/,
            )
          ).child,
        )
    }

    const answered = new Map<string, () => void>()
    emu.on('call', (call, token) => {
      if (call.method === 'sendMessage' && !call.error) answered.get(token)?.()
    })
    const waitPolling = async (token: string): Promise<void> => {
      const deadline = Date.now() + 10_000
      while (!emu.isLongPolling(token)) {
        if (Date.now() > deadline) throw new Error('the poller never came back to getUpdates')
        await new Promise((r) => setTimeout(r, 1))
      }
    }
    const once = async (token: string, i: number): Promise<number> => {
      await waitPolling(token)
      const done = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no answer within 10 s')), 10_000)
        answered.set(token, () => {
          clearTimeout(timer)
          resolve()
        })
      })
      const t0 = performance.now()
      emu.sendUserMessage(token, {text: `hello ${i}`, userId: 1111})
      await done
      return performance.now() - t0
    }

    const modes = {polling, bridge: direct, relayed} as const
    const samples: Record<keyof typeof modes, number[]> = {polling: [], bridge: [], relayed: []}
    for (let i = 0; i < 40; i++) for (const token of Object.values(modes)) await once(token, i)
    const block = 20
    for (let i = 0; i < n; i += block) {
      for (const [mode, token] of Object.entries(modes) as Array<[keyof typeof modes, string]>) {
        for (let j = 0; j < block; j++) samples[mode].push(await once(token, i + j))
      }
    }
    const stats = (xs: number[]) => {
      const sorted = [...xs].sort((a, b) => a - b)
      return {p50: percentile(sorted, 50), p99: percentile(sorted, 99)}
    }
    const p = stats(samples.polling)
    const b = stats(samples.bridge)
    const r = stats(samples.relayed)
    const f = (x: number) => `${x.toFixed(2)} ms`
    console.log(
      `bridge latency: update injected → bot's sendMessage recorded, ${samples.polling.length} updates per mode, ` +
        `bridge ${inProcess ? "in the emulator's process" : 'in its own process'}, ${os.cpus().length} CPUs, load ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
    )
    console.log(`  bot polling itself           p50 ${f(p.p50)}  p99 ${f(p.p99)}`)
    console.log(`  bridge → bot                 p50 ${f(b.p50)}  p99 ${f(b.p99)}`)
    console.log(`  bridge → relay → bot         p50 ${f(r.p50)}  p99 ${f(r.p99)}   (as in bot dev --tunnel none)`)
    console.log(
      `  added by the bridge          p50 ${f(b.p50 - p.p50)}  p99 ${f(b.p99 - p.p99)}  (ratio p50 ${(b.p50 / p.p50).toFixed(2)}×)`,
    )
    console.log(
      `  added by bridge + relay      p50 ${f(r.p50 - p.p50)}  p99 ${f(r.p99 - p.p99)}  (ratio p50 ${(r.p50 / p.p50).toFixed(2)}×)`,
    )
    const added = b.p50 - p.p50
    console.log(
      `${added <= 0.5 ? '✓' : '✗'} the bridge adds ${f(added)} p50 over the bot polling itself (target ≤ 0.5 ms)`,
    )
  } finally {
    for (const bridge of inProcessBridges) await bridge.stop()
    await Promise.all(children.map((child) => stopChild(child)))
    await emu.stop()
  }
}

if (process.argv[2] === 'bridge-child') await bridgeChild()
else await main()

/**
 * The fuzz test of issue 20: 2,000 generated hostile requests (test/support/fuzz.ts) to each server
 * of a real `bot dev` session (the relay, the api proxy, the inspector, the control port), one
 * server after the other; after each request the session's process is alive and a legitimate
 * request to that server still works. The session's peak memory is reported per server.
 *
 * `bot dev --tunnel none` runs against a small fake Bot API (test/support/fake-bot-api.ts: it drains
 * what the api proxy passes on without decoding it) with a bot that tells its contract
 * (test/fixtures/bots/env-bot.mjs), so the test knows the relay's path and secret.
 *
 * The emulator is one more target: a `bot emulator` process, its port, its paths, getMe as the
 * legitimate request.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {existsSync, mkdtempSync, readdirSync, readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {fixture} from './dev/helpers.js'
import {BIN, cliEnv} from './support/cli.js'
import {startFakeBotApi, type FakeBotApi} from './support/fake-bot-api.js'
import {fuzzServer, processMemory, reportLine, type FuzzTarget} from './support/fuzz.js'
import {waitFor} from './support/wait.js'

const TOKEN = '6660001:AAH-fuzzTokenNotARealOne_0123456789ab'
/** Hostile requests per server (the issue asks for at least 2,000). */
const COUNT = Number(process.env.BOT_FUZZ_COUNT) || 2000
/** The most the session may grow past its peak before the run (bytes): far below a decoded bomb. */
const GROWTH_LIMIT = 256 * 1024 * 1024

let api: FakeBotApi
let child: ChildProcess
let stdout = ''
let stderr = ''
const ports = {relay: 0, proxy: 0, inspector: 0, control: 0}
let contract: {WEBHOOK_PATH: string; WEBHOOK_SECRET: string}
let inspectorKey = ''
let controlKey = ''
let updateId = 1

const alive = () => child.exitCode === null && child.signalCode === null

async function ok(response: Promise<Response>, what: string): Promise<unknown> {
  const res = await response
  const text = await res.text()
  if (res.status !== 200) throw new Error(`${what} answered ${res.status}: ${text.slice(0, 200)}`)
  return text ? JSON.parse(text) : undefined
}

beforeAll(async () => {
  api = await startFakeBotApi(TOKEN)
  const dir = mkdtempSync(join(tmpdir(), 'bot-fuzz-'))
  const stateDir = join(dir, 'state')
  const envOut = join(dir, 'contract.json')
  child = spawn(
    process.execPath,
    [
      BIN,
      'dev',
      '--json',
      '--api-root',
      api.url,
      '--tunnel',
      'none',
      '--no-watch',
      '--no-poller-check',
      '--',
      'node',
      fixture('env-bot.mjs'),
    ],
    {
      cwd: dir,
      env: cliEnv({env: {BOT_TOKEN: TOKEN, BOT_STATE_DIR: stateDir, FIXTURE_ENV_OUT: envOut}}),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    // Only the start-up events are needed; the update lines of 8,000 requests are not kept.
    if (stdout.length < 256 * 1024) stdout += d
  })
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    if (stderr.length < 256 * 1024) stderr += d
  })
  const events = () =>
    stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, any>)
  const ready = await waitFor(() => events().find((e) => e.type === 'ready'), {
    what: () => `bot dev to be ready\nstdout: ${stdout}\nstderr: ${stderr}`,
    timeout: 45_000,
  })
  const step = (name: string) => events().find((e) => e.type === 'step' && e.step === name && e.status === 'ok')!
  const portIn = (text: string) => Number(/http:\/\/127\.0\.0\.1:(\d+)/.exec(text)![1])
  ports.relay = portIn(step('relay').text as string)
  ports.proxy = portIn(step('api-proxy').text as string)
  const inspector = new URL(ready.inspectorUrl as string)
  ports.inspector = Number(inspector.port)
  inspectorKey = inspector.searchParams.get('key')!
  const record = readdirSync(stateDir).find((f) => /^control-\d+\.json$/.test(f))!
  ;({port: ports.control, key: controlKey} = JSON.parse(readFileSync(join(stateDir, record), 'utf8')) as {
    port: number
    key: string
  })
  await waitFor(() => existsSync(envOut), {what: 'the bot to write its contract'})
  contract = JSON.parse(readFileSync(envOut, 'utf8'))
}, 60_000)

afterAll(async () => {
  if (child && alive()) {
    child.kill('SIGINT')
    await new Promise((resolve) => child.once('close', resolve))
  }
  await api?.close()
})

function targets(): FuzzTarget[] {
  const pid = child.pid!
  const paths = (...list: string[]) => list
  return [
    {
      name: 'relay',
      port: ports.relay,
      pid,
      alive,
      paths: paths(contract.WEBHOOK_PATH, `${contract.WEBHOOK_PATH}/x`, '/healthz', '/'),
      auth: {'X-Telegram-Bot-Api-Secret-Token': contract.WEBHOOK_SECRET},
      legit: async () => {
        await ok(
          fetch(`http://127.0.0.1:${ports.relay}${contract.WEBHOOK_PATH}`, {
            method: 'POST',
            headers: {'content-type': 'application/json', 'x-telegram-bot-api-secret-token': contract.WEBHOOK_SECRET},
            body: JSON.stringify({
              update_id: updateId++,
              message: {message_id: 1, date: Math.floor(Date.now() / 1000), chat: {id: 7, type: 'private'}, text: 'ok'},
            }),
          }),
          'the relay',
        )
      },
    },
    {
      name: 'api proxy',
      port: ports.proxy,
      pid,
      alive,
      paths: paths(
        `/bot${TOKEN}/getMe`,
        `/bot${TOKEN}/sendMessage`,
        `/bot${TOKEN}/sendDocument`,
        `/bot${TOKEN}/setWebhook?url=http://evil.example/`,
        `/bot${TOKEN}/getUpdates?timeout=0`,
        `/file/bot${TOKEN}/x.jpg`,
        '/_emulator/reset',
      ),
      legit: async () => {
        const me = (await ok(fetch(`http://127.0.0.1:${ports.proxy}/bot${TOKEN}/getMe`), 'the api proxy')) as {
          ok: boolean
        }
        if (!me.ok) throw new Error('getMe through the api proxy was not ok')
      },
    },
    {
      name: 'inspector',
      port: ports.inspector,
      pid,
      alive,
      paths: paths(
        '/api/updates/1/replay',
        `/?key=${inspectorKey}`,
        '/app.js',
        '/api/updates',
        '/api/updates/1',
        `/api/updates/${2_147_483_647}/replay`,
        '/api/events',
      ),
      auth: {'x-bot-dev-key': inspectorKey},
      legit: async () => {
        // Filtered (the list itself holds up to 1,000 entries of up to 64 KiB: listing them all 2,000
        // times would be most of the run).
        const list = await ok(
          fetch(`http://127.0.0.1:${ports.inspector}/api/updates?type=callback_query`, {
            headers: {'x-bot-dev-key': inspectorKey},
          }),
          'the inspector',
        )
        if (!Array.isArray(list)) throw new Error('the inspector did not list the updates')
      },
    },
    {
      name: 'control port',
      port: ports.control,
      pid,
      alive,
      paths: paths('/trigger', '/replay', '/'),
      auth: {'x-bot-dev-key': controlKey},
      legit: async () => {
        await ok(
          fetch(`http://127.0.0.1:${ports.control}/trigger`, {
            method: 'POST',
            headers: {'content-type': 'application/json', 'x-bot-dev-key': controlKey},
            body: JSON.stringify({kind: 'message', text: 'legit', chatId: 1111}),
          }),
          'the control port',
        )
      },
    },
  ]
}

describe('fuzz: hostile requests to every server of a bot dev session', () => {
  // The api proxy goes last: a getUpdates through it is the bot polling by itself, and the session then
  // switches to polling delivery, after which `bot trigger` is refused by design (409).
  for (const name of ['relay', 'inspector', 'control port', 'api proxy']) {
    it(`${name}: ${COUNT} hostile requests, the session alive and serving after each`, async () => {
      const target = targets().find((t) => t.name === name)!
      const before = processMemory(child.pid!).peak
      const report = await fuzzServer(target, {count: COUNT})
      console.log(reportLine(report))
      expect(alive()).toBe(true)
      expect(report.peakRss - before, `${name} grew the session's peak memory`).toBeLessThan(GROWTH_LIMIT)
    }, 180_000)
  }

  it('the session still ends cleanly (exit 0) after all of it', async () => {
    child.kill('SIGINT')
    const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)))
    expect(code, stderr.slice(-2000)).toBe(0)
  })
})

describe('fuzz: hostile requests to the emulator (`bot emulator`)', () => {
  let emulator: ChildProcess
  let info: {apiRoot: string; token: string}
  let emulatorErr = ''

  beforeAll(async () => {
    emulator = spawn(process.execPath, [BIN, 'emulator', '--port', '0', '--json'], {
      env: cliEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let out = ''
    emulator.stdout!.setEncoding('utf8').on('data', (d: string) => {
      if (out.length < 4096) out += d
    })
    emulator.stderr!.setEncoding('utf8').on('data', (d: string) => {
      emulatorErr = (emulatorErr + d).slice(-4000)
    })
    info = await waitFor(
      () => {
        const line = out.split('\n').find((l) => l.startsWith('{'))
        return line ? (JSON.parse(line) as {apiRoot: string; token: string}) : undefined
      },
      {what: () => `bot emulator's start-up line\n${emulatorErr}`, timeout: 30_000},
    )
  }, 60_000)

  afterAll(() => {
    emulator?.kill('SIGKILL')
  })

  it(`emulator: ${COUNT} hostile requests, the emulator alive and serving after each`, async () => {
    const port = Number(new URL(info.apiRoot).port)
    const token = info.token
    const target: FuzzTarget = {
      name: 'emulator',
      port,
      pid: emulator.pid!,
      alive: () => emulator.exitCode === null && emulator.signalCode === null,
      paths: [
        `/bot${token}/getMe`,
        `/bot${token}/getUpdates?timeout=0`,
        `/bot${token}/sendMessage`,
        `/bot${token}/sendDocument`,
        `/bot${token}/setWebhook`,
        '/_emulator/reset',
        `/_emulator/bots/${token}/updates`,
        `/_emulator/bots/${token}/messages`,
        `/_emulator/bots/${token}/calls`,
      ],
      legit: async () => void (await ok(fetch(`${info.apiRoot}/bot${token}/getMe`), 'the emulator')),
    }
    const before = processMemory(emulator.pid!).peak
    const report = await fuzzServer(target, {count: COUNT})
    console.log(reportLine(report))
    expect(target.alive(), emulatorErr).toBe(true)
    expect(report.peakRss - before, 'the emulator grew its peak memory').toBeLessThan(GROWTH_LIMIT)
  }, 180_000)
})

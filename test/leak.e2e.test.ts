/**
 * The bot token must never appear in anything the CLI prints. Every command runs as a real
 * process on its success and error paths with a known token — given by flag, environment
 * and .env, with and without BOT_DEBUG=1 — and the test fails if the token, its secret part
 * or their URL-encoded forms appear in stdout or stderr. Servers that echo the request URL
 * (where the token travels) back into their answers are part of the matrix.
 */
import {once} from 'node:events'
import {mkdtempSync, writeFileSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {BotApiEmulator} from '../src/emulator/index.js'
import {runCli, startCli, type CliResult} from './support/cli.js'

const TOKEN = '7000000001:AAE-leak_Test_SecretPart_0123456789ab'
const SECRET_PART = TOKEN.slice(TOKEN.indexOf(':') + 1)
const REVOKED = '7000000002:AAF-revoked_SecretPart_9876543210zz'
const WEBHOOK_SECRET = 'hook_secret_value_should_not_print'
const FORBIDDEN = [TOKEN, SECRET_PART, encodeURIComponent(TOKEN), REVOKED, REVOKED.split(':')[1], WEBHOOK_SECRET]

let emu: BotApiEmulator
const servers: Server[] = []
let receiverUrl: string
let failingUrl: string
let closedRoot: string
let echoHtmlRoot: string
let echoJsonRoot: string

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler)
  servers.push(server)
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

beforeAll(async () => {
  emu = await BotApiEmulator.start({timeScale: 0.01})
  emu.createBot({token: TOKEN, username: 'leak_test_bot'})
  emu.createBot({token: REVOKED})
  emu.revokeToken(REVOKED)
  receiverUrl = (await listen((req, res) => req.resume().on('end', () => res.end()))) + '/hook'
  failingUrl = (await listen((req, res) => req.resume().on('end', () => res.writeHead(500).end()))) + '/hook'
  // Servers that put the request path (which holds the token) into their answers.
  echoHtmlRoot = await listen((req, res) =>
    res.writeHead(502, {'content-type': 'text/html'}).end(`<html><body>No route for ${req.url}</body></html>`),
  )
  echoJsonRoot = await listen((req, res) =>
    res
      .writeHead(400, {'content-type': 'application/json'})
      .end(JSON.stringify({ok: false, error_code: 400, description: `Bad Request: no route ${req.url}`})),
  )
  const closed = createServer()
  closed.listen(0, '127.0.0.1')
  await once(closed, 'listening')
  closedRoot = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`
  await new Promise((r) => closed.close(r))
})

afterAll(async () => {
  await emu.stop()
  for (const s of servers) {
    s.closeAllConnections()
    await new Promise((r) => s.close(r))
  }
})

type TokenVia = 'flag' | 'env' | '.env'

interface Case {
  name: string
  args: () => string[]
  /** Exit codes that show the path was really taken. */
  codes: number[]
  apiRoot?: () => string
  token?: string
  timeoutMs?: number
}

const cases: Case[] = [
  {
    name: 'webhook set (success)',
    args: () => ['webhook', 'set', receiverUrl, '--secret-token', WEBHOOK_SECRET, '--max-connections', '3'],
    codes: [0],
  },
  {
    name: 'webhook set --json',
    args: () => ['webhook', 'set', failingUrl, '--json', '--secret-token', WEBHOOK_SECRET],
    codes: [0],
  },
  {name: 'webhook info (delivery error)', args: () => ['webhook', 'info'], codes: [0]},
  {name: 'webhook info --json', args: () => ['webhook', 'info', '--json'], codes: [0]},
  {name: 'webhook delete', args: () => ['webhook', 'delete'], codes: [0]},
  {
    name: 'webhook delete --drop-pending-updates (refused)',
    args: () => ['webhook', 'delete', '--drop-pending-updates'],
    codes: [2],
  },
  {
    name: 'webhook delete --drop-pending-updates --yes --json',
    args: () => ['webhook', 'delete', '--drop-pending-updates', '--yes', '--json'],
    codes: [0],
  },
  {name: 'webhook set (validation error)', args: () => ['webhook', 'set', 'not a url'], codes: [2]},
  {
    name: 'webhook set (bad secret)',
    args: () => ['webhook', 'set', receiverUrl, '--secret-token', `${WEBHOOK_SECRET}!`],
    codes: [2],
  },
  {name: 'webhook info (token as a stray argument)', args: () => ['webhook', 'info', TOKEN], codes: [2]},
  {name: 'webhook info (unknown flag)', args: () => ['webhook', 'info', '--bogus', TOKEN], codes: [2]},
  {name: 'webhook info (revoked token)', args: () => ['webhook', 'info'], codes: [1], token: REVOKED},
  {
    name: 'webhook set (revoked token, --json)',
    args: () => ['webhook', 'set', receiverUrl, '--json'],
    codes: [1],
    token: REVOKED,
  },
  {name: 'webhook info (nothing listens)', args: () => ['webhook', 'info'], codes: [1], apiRoot: () => closedRoot},
  {
    name: 'webhook delete (server echoes the URL in HTML)',
    args: () => ['webhook', 'delete'],
    codes: [1],
    apiRoot: () => echoHtmlRoot,
  },
  {
    name: 'webhook info (server echoes the URL in JSON, --json)',
    args: () => ['webhook', 'info', '--json'],
    codes: [1],
    apiRoot: () => echoJsonRoot,
  },
  {name: 'doctor', args: () => ['doctor', '--no-probe'], codes: [0, 1], timeoutMs: 30_000},
  {
    name: 'doctor --json (revoked)',
    args: () => ['doctor', '--no-probe', '--json'],
    codes: [1],
    token: REVOKED,
    timeoutMs: 30_000,
  },
  {
    name: 'doctor (nothing listens)',
    args: () => ['doctor', '--no-probe'],
    codes: [1],
    apiRoot: () => closedRoot,
    timeoutMs: 30_000,
  },
  {
    name: 'dev (revoked token)',
    args: () => ['dev', '--no-watch', '--', 'node', '-e', '0'],
    codes: [1, 2],
    token: REVOKED,
    timeoutMs: 30_000,
  },
  {
    name: 'dev (nothing listens)',
    args: () => ['dev', '--no-watch', '--', 'node', '-e', '0'],
    codes: [1, 2],
    apiRoot: () => closedRoot,
    timeoutMs: 30_000,
  },
]

function expectNoSecrets(r: CliResult, label: string) {
  const all = r.stdout + '\n' + r.stderr
  for (const s of FORBIDDEN) {
    if (all.includes(s))
      throw new Error(
        `${label}: output contains a secret (${s === TOKEN || s === REVOKED ? 'the token' : 'a secret part'}).\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`,
      )
  }
}

async function run(c: Case, via: TokenVia, debug: boolean): Promise<CliResult> {
  const token = c.token ?? TOKEN
  const apiRoot = c.apiRoot?.() ?? emu.apiRoot
  const cwd = mkdtempSync(join(tmpdir(), 'bot-leak-'))
  const env: Record<string, string> = {BOT_STATE_DIR: join(cwd, 'state')}
  const args = c.args()
  if (debug) env.BOT_DEBUG = '1'
  if (via === 'flag') args.push('--token', token, '--api-root', apiRoot)
  else if (via === 'env') Object.assign(env, {BOT_TOKEN: token, BOT_API_ROOT: apiRoot})
  else writeFileSync(join(cwd, '.env'), `BOT_TOKEN=${token}\nBOT_API_ROOT=${apiRoot}\n`)
  // Options after `--` belong to the child command: insert ours before it.
  const dash = args.indexOf('--')
  if (via === 'flag' && dash >= 0) {
    const ours = args.splice(args.length - 4, 4)
    args.splice(dash, 0, ...ours)
  }
  return runCli(args, {env, cwd, timeoutMs: c.timeoutMs ?? 20_000})
}

describe('the token never appears in any output', () => {
  for (const via of ['flag', 'env', '.env'] as const)
    for (const debug of [false, true])
      describe(`token via ${via}${debug ? ', BOT_DEBUG=1' : ''}`, () => {
        it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
          if (c.name === 'webhook info (delivery error)') {
            emu.sendUserMessage(TOKEN, {text: 'to a failing webhook'})
          }
          const r = await run(c, via, debug)
          expectNoSecrets(r, `${c.name} (token via ${via}${debug ? ', debug' : ''})`)
          expect(r.timedOut, `${c.name} timed out.\n${r.stdout}\n${r.stderr}`).toBe(false)
          expect(c.codes, `${c.name}: exit ${r.code}\n${r.stdout}\n${r.stderr}`).toContain(r.code)
          expect(r.stdout.length + r.stderr.length).toBeGreaterThan(0)
        })
      })

  it('debug lines are really printed with BOT_DEBUG=1 (so the debug runs above cover them)', async () => {
    const r = await runCli(['webhook', 'info'], {env: {BOT_TOKEN: TOKEN, BOT_API_ROOT: emu.apiRoot, BOT_DEBUG: '1'}})
    expect(r.stderr).toMatch(/\[debug\] → getWebhookInfo/)
    expect(r.stderr).toMatch(/\[debug\] ← getWebhookInfo 200/)
    expectNoSecrets(r, 'debug')
  })

  it.each(['', 'webhook', 'webhook set', 'webhook info', 'webhook delete', 'doctor', 'dev', 'init', 'emulator'])(
    'help of "%s" with the token in the environment',
    async (id) => {
      const args = [...id.split(' ').filter(Boolean), '--help']
      const r = await runCli(args, {env: {BOT_TOKEN: TOKEN, BOT_API_ROOT: emu.apiRoot, WEBHOOK_SECRET}})
      expect(r.code).toBe(0)
      expectNoSecrets(r, `${id} --help`)
    },
  )

  it.each([[[]], [['--json']]])(
    'bot emulator --token %j (a long-running command) never echoes the token',
    async (extra) => {
      const p = startCli(['emulator', '--port', '0', '--token', TOKEN, ...extra], {env: {BOT_DEBUG: '1'}})
      await p.waitForOutput(/127\.0\.0\.1:\d+/, {timeoutMs: 15_000})
      p.kill('SIGINT')
      const r = await p.exited
      expectNoSecrets(r, `emulator ${extra.join(' ')}`)
      expect(r.timedOut).toBe(false)
    },
  )

  it('bot init --token writes the token only to .env, never to the output', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bot-leak-init-'))
    const r = await runCli(['init', join(dir, 'mybot'), '--token', TOKEN, '--no-install', '--no-git', '--yes'], {
      cwd: dir,
      timeoutMs: 90_000,
    })
    expectNoSecrets(r, 'init')
    expect(r.code, r.stderr).toBe(0)
  }, 90_000)
})

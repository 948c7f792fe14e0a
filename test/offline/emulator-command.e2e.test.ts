/**
 * `bot emulator` as a real process (needs `npm run build`): the start-up line, a Bot API that answers
 * on it, a clean exit on SIGINT, the terminal chat on stdin (--talk, with bot dev's --chat/--user), the
 * old chat-mode spellings refused with the new name, and no user token ever printed.
 */
import {spawnSync} from 'node:child_process'
import {once} from 'node:events'
import {existsSync} from 'node:fs'
import {join} from 'node:path'
import http from 'node:http'
import net from 'node:net'

import {afterEach, describe, expect, it} from 'vitest'

import {PROJECT_ROOT, runCli, startCli, type RunningCli} from '../support/cli.js'

const running: RunningCli[] = []
afterEach(async () => {
  for (const p of running.splice(0)) {
    p.kill('SIGKILL')
    await p.exited
  }
})

function start(args: string[], options: Parameters<typeof startCli>[1] = {}): RunningCli {
  const p = startCli(args, {timeoutMs: 90_000, ...options})
  running.push(p)
  return p
}

async function api(
  apiRoot: string,
  token: string,
  method: string,
  body: Record<string, unknown> = {},
): Promise<{status: number; json: any}> {
  const res = await fetch(`${apiRoot}/bot${token}/${method}`, {
    method: 'POST',
    headers: {'content-type': 'application/json'},
    body: JSON.stringify(body),
  })
  return {status: res.status, json: await res.json()}
}

describe('bot emulator', () => {
  it('points to docs/emulator.md by a path that exists, and the package ships it', async () => {
    const p = start(['emulator', '--port', '0'])
    const out = await p.waitForOutput(/Ctrl-C stops the emulator/, {stream: 'stdout', timeoutMs: 15_000})
    const paths = [...out.matchAll(/(\/\S+\/docs\/emulator\.md)/g)].map((m) => m[1])
    expect(paths, out).toHaveLength(2) // the control line and the "see …" line
    for (const path of paths) expect(existsSync(path), path).toBe(true)
    expect(paths[0]).toBe(join(PROJECT_ROOT, 'docs', 'emulator.md'))
    const pack = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
    })
    expect(pack.status, pack.stderr).toBe(0)
    const files = (JSON.parse(pack.stdout) as Array<{files: Array<{path: string}>}>)[0].files.map((f) => f.path)
    expect(files).toContain('docs/emulator.md')
  })

  it('--json prints one line {apiRoot, token, botId, username}; the API answers there; SIGINT exits 0 promptly', async () => {
    const p = start(['emulator', '--port', '0', '--json'])
    await p.waitForOutput(/\n/, {stream: 'stdout', timeoutMs: 15_000})
    const first = p.stdout().split('\n')[0]
    const info = JSON.parse(first) as {apiRoot: string; token: string; botId: number; username: string}
    expect(info.apiRoot).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(info.token).toBe('1234567890:OFFLINE-DEV-TOKEN-NOT-A-REAL-SECRET')
    expect(info).toMatchObject({botId: 1234567890, username: 'offline_dev_bot'})

    const me = await api(info.apiRoot, info.token, 'getMe')
    expect(me.status).toBe(200)
    expect(me.json).toMatchObject({ok: true, result: {id: 1234567890, is_bot: true, username: 'offline_dev_bot'}})
    // Another token is unknown to it, as to Telegram.
    const other = await api(info.apiRoot, '999:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'getMe')
    expect(other).toEqual({status: 401, json: {ok: false, error_code: 401, description: 'Unauthorized'}})

    // Promptly: with a connection open that sends nothing and never closes by itself (as a bot's keep-alive one), an
    // exit that waited for connections to end would never come (the process's 90 s life: timedOut). No stopwatch.
    const idle = net.connect(Number(new URL(info.apiRoot).port), '127.0.0.1')
    idle.on('error', () => {})
    await once(idle, 'connect')
    p.kill('SIGINT')
    const result = await p.exited
    idle.destroy()
    expect(result.timedOut, result.stderr).toBe(false)
    expect(result.code).toBe(0)
    expect(result.stdout.trim().split('\n')).toHaveLength(1) // nothing but the JSON line on stdout
    await expect(fetch(`${info.apiRoot}/bot${info.token}/getMe`)).rejects.toThrow() // really stopped
  })

  it('prints the api root, the fake token and how to run a bot; never echoes a token the user passed', async () => {
    const userToken = '7777777:AAH9sEcReTpArTthAtMuStNeVeRbEsHoWn1'
    const p = start(['emulator', '--port', '0', '--token', userToken])
    const out = await p.waitForOutput(/Ctrl-C stops the emulator/, {stream: 'stdout', timeoutMs: 15_000})
    const apiRoot = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]
    expect(out).toContain('token   the token you passed (--token)')
    expect(out).toContain(`BOT_API_ROOT=${apiRoot} BOT_TOKEN=$BOT_TOKEN node your-bot.js`)
    const me = await api(apiRoot, userToken, 'getMe')
    expect(me.json.result.id).toBe(7777777)
    p.kill('SIGTERM')
    const result = await p.exited
    expect(result.code).toBe(0)
    expect(result.stdout + result.stderr).not.toContain('AAH9sEcReTpArTthAtMuStNeVeRbEsHoWn1')

    const q = start(['emulator', '--port', '0'])
    const out2 = await q.waitForOutput(/Ctrl-C/, {stream: 'stdout', timeoutMs: 15_000})
    expect(out2).toContain('token   1234567890:OFFLINE-DEV-TOKEN-NOT-A-REAL-SECRET  (fake, not a secret)')
    expect(out2).toMatch(
      /BOT_API_ROOT=http:\/\/127\.0\.0\.1:\d+ BOT_TOKEN=1234567890:OFFLINE-DEV-TOKEN-NOT-A-REAL-SECRET node your-bot.js/,
    )
  })

  it('--talk sends stdin lines to a bot polling it and prints the replies; --user and --chat choose the ids', async () => {
    // The lines are all piped at once; the chat sends the next only after the bot handled the previous one.
    const p = start(['emulator', '--port', '0', '--talk', '--user', '42', '--chat', '-5'], {input: 'hi there\nbye\n'})
    const out = await p.waitForOutput(/Ctrl-C/, {stream: 'stdout', timeoutMs: 15_000})
    const apiRoot = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]
    const token = '1234567890:OFFLINE-DEV-TOKEN-NOT-A-REAL-SECRET'
    const seen: Array<{from: number; chat: number}> = []
    // A minimal long-polling bot, driven by hand: answers each text with its upper case.
    let offset = 0
    const polling = (async () => {
      for (let i = 0; i < 50; i++) {
        const {json} = await api(apiRoot, token, 'getUpdates', {offset, timeout: 5})
        if (!json.ok) return
        for (const u of json.result as Array<{
          update_id: number
          message: {chat: {id: number}; from: {id: number}; text: string}
        }>) {
          offset = u.update_id + 1
          seen.push({from: u.message.from.id, chat: u.message.chat.id})
          await api(apiRoot, token, 'sendMessage', {chat_id: u.message.chat.id, text: u.message.text.toUpperCase()})
          if (u.message.text === 'bye') {
            await api(apiRoot, token, 'getUpdates', {offset, timeout: 0})
            return
          }
        }
      }
    })()
    const result = await p.exited
    await polling
    expect(result.code).toBe(0)
    expect(seen).toEqual([
      {from: 42, chat: -5},
      {from: 42, chat: -5},
    ])
    expect(result.stdout).toContain('you › hi there\nbot › HI THERE\nyou › bye\nbot › BYE\n')
  })

  it('--talk without --chat/--user: user 1111 in its private chat, as in bot dev --offline', async () => {
    const p = start(['emulator', '--port', '0', '--talk'], {input: 'ping\n'})
    const out = await p.waitForOutput(/Ctrl-C/, {stream: 'stdout', timeoutMs: 15_000})
    const apiRoot = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]
    const token = '1234567890:OFFLINE-DEV-TOKEN-NOT-A-REAL-SECRET'
    let update: {update_id: number; message: {chat: {id: number; type: string}; from: {id: number}}} | undefined
    for (let i = 0; i < 20 && !update; i++)
      update = (await api(apiRoot, token, 'getUpdates', {timeout: 5})).json.result[0]
    expect(update?.message).toMatchObject({from: {id: 1111}, chat: {id: 1111, type: 'private'}})
    await api(apiRoot, token, 'sendMessage', {chat_id: 1111, text: 'pong'})
    await api(apiRoot, token, 'getUpdates', {offset: update!.update_id + 1, timeout: 0})
    const result = await p.exited
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('you › ping\nbot › pong\n')
  })

  it('takes --chat and --user with the same descriptions and defaults as bot dev --offline, and --talk for the chat mode', async () => {
    const wide = {env: {OCLIF_COLUMNS: '200'}}
    const [emulator, dev] = await Promise.all([runCli(['emulator', '--help'], wide), runCli(['dev', '--help'], wide)])
    const flagLine = (help: string, flag: string) => new RegExp(`^ +${flag}=<value> +(.*)$`, 'm').exec(help)?.[1]
    for (const flag of ['--chat', '--user']) {
      expect(flagLine(emulator.stdout, flag)).toBeDefined()
      expect(flagLine(emulator.stdout, flag)!.replace('(--talk)', '(MODE)')).toBe(
        flagLine(dev.stdout, flag)!.replace('(--offline)', '(MODE)'),
      )
    }
    expect(emulator.stdout).toMatch(/^ +--talk +send stdin lines to the bot/m)
    expect(emulator.stdout).toContain('$ bot emulator --talk')
    expect(emulator.stdout).not.toMatch(/--(chat|user)-id/)
  })

  it.each([
    [
      ['--chat'],
      '--chat now takes a chat id (as in `bot dev --offline`); the terminal chat is --talk.',
      'Run `bot emulator --talk`',
    ],
    [
      ['--chat', '--user', '42'],
      '--chat now takes a chat id (as in `bot dev --offline`); the terminal chat is --talk.',
      'Run `bot emulator --talk`',
    ],
    [['--talk', '--chat'], '--chat needs a chat id.', 'Run e.g. `bot emulator --talk --chat 42`'],
    [
      ['--chat-id', '42'],
      '--chat-id is now --chat (the same name as in `bot dev --offline`).',
      'Run e.g. `bot emulator --talk --chat 42`.',
    ],
    [
      ['--user-id=7'],
      '--user-id is now --user (the same name as in `bot dev --offline`).',
      'Run e.g. `bot emulator --talk --user 7`.',
    ],
    [
      ['--chat', '5'],
      '--chat only applies to the terminal chat (--talk).',
      'Add --talk: `bot emulator --talk --chat 5`.',
    ],
    [['--talk', '--chat', '0'], '--chat 0 is not a chat id.', 'Use a positive id'],
  ])(
    'the old chat-mode spelling %j: exit 2, one line naming the new flag, nothing started',
    async (args, message, fix) => {
      const r = await runCli(['emulator', '--port', '0', ...args], {input: 'hello\n'})
      expect(r.code).toBe(2)
      expect(r.stdout).toBe('')
      const lines = r.stderr.trimEnd().split('\n')
      expect(lines[0]).toBe(`✗ ${message}`)
      expect(lines[1]).toContain(fix)
      expect(lines).toHaveLength(2)
    },
  )

  it('refuses a malformed --token with exit 2 and a fix, without echoing it', async () => {
    const p = start(['emulator', '--port', '0', '--token', 'not-a-token-secret-value'])
    const result = await p.exited
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--token is not a well-formed bot token: it has no ":"')
    expect(result.stderr).not.toContain('not-a-token-secret-value')
  })

  it('says which port is taken', async () => {
    const p = start(['emulator', '--port', '0', '--json'])
    await p.waitForOutput(/\n/, {stream: 'stdout', timeoutMs: 15_000})
    const port = new URL(JSON.parse(p.stdout().split('\n')[0]).apiRoot).port
    const q = start(['emulator', '--port', port])
    const result = await q.exited
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(`✗ Port ${port} on 127.0.0.1 is already in use.`)
  })

  it('--host beyond loopback: one warning line; any host name is served, other sites are still refused', async () => {
    const p = start(['emulator', '--port', '0', '--host', '0.0.0.0', '--json'])
    await p.waitForOutput(/\n/, {stream: 'stdout', timeoutMs: 15_000})
    const info = JSON.parse(p.stdout().split('\n')[0]) as {apiRoot: string; token: string}
    expect(info.apiRoot).toMatch(/^http:\/\/0\.0\.0\.0:\d+$/)
    await p.waitForOutput(/\n/, {stream: 'stderr', timeoutMs: 15_000})
    expect(p.stderr().trim().split('\n')).toEqual([
      '! The emulator listens on 0.0.0.0: it is now reachable from other machines on the network (any host name is served; requests from web pages of other sites are still refused; URLs to loopback and private addresses (a file sent by URL, setWebhook) are refused; --allow-private-urls allows them).',
    ])
    const port = new URL(info.apiRoot).port
    // as docker-compose's other services call it, through loopback here
    const get = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const req = http.get(
          {
            host: '127.0.0.1',
            port,
            path: `/bot${info.token}/getMe`,
            setHost: false,
            headers: {Host: `emulator:${port}`, ...headers},
          },
          (res) => {
            res.resume()
            resolve(res.statusCode ?? 0)
          },
        )
        req.on('error', reject)
      })
    expect(await get({})).toBe(200)
    expect(await get({Origin: 'http://attacker.example'})).toBe(403)
    p.kill('SIGINT')
    expect((await p.exited).code).toBe(0)

    // on loopback (the default) no warning
    const q = start(['emulator', '--port', '0', '--json'])
    await q.waitForOutput(/\n/, {stream: 'stdout', timeoutMs: 15_000})
    q.kill('SIGINT')
    const quiet = await q.exited
    expect(quiet.code).toBe(0)
    expect(quiet.stderr).not.toContain('reachable from other machines')
  })
})

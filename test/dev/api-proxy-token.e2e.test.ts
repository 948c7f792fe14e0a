/**
 * The api proxy of a real `bot dev` session serves the session's token only (issue 31, item 3).
 * Another local user (the `nobody` account, with setpriv) who finds the proxy's port calls it with
 * the token of a bot of their own: Telegram's `401 Unauthorized` comes back, the call never reaches
 * the api root, and the session neither records nor prints it. The session's own token still goes
 * through.
 */
import {execFile} from 'node:child_process'

import {afterEach, describe, expect, it} from 'vitest'

import {waitFor} from '../support/wait.js'
import {PROCESS_WAIT_MS} from '../support/cli.js'
import {devWorld, startDev, type DevWorld} from './helpers.js'

const asRoot = process.getuid?.() === 0
if (!asRoot) console.warn('test/dev/api-proxy-token.e2e.test.ts: the other user is this user (not root: no setpriv)')

/**
 * `curl` as the nobody account (or as this user when not root): the HTTP status and body. Not
 * spawnSync: the emulator answering the session runs in this process.
 */
function curl(args: string[]): Promise<{status: number; body: string}> {
  const argv = ['curl', '-s', '--max-time', '10', '-w', '\n%{http_code}', ...args]
  const [file, ...rest] = asRoot
    ? ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups', '--', ...argv]
    : argv
  return new Promise((resolve) =>
    execFile(file, rest, {encoding: 'utf8'}, (_error, stdout) => {
      const lines = stdout.split('\n')
      resolve({status: Number(lines.pop()), body: lines.join('\n')})
    }),
  )
}

let world: DevWorld | undefined
afterEach(async () => {
  await world?.close()
  world = undefined
})

describe('the api proxy against another local user', () => {
  it("another bot's token: 401 with Telegram's body, nothing forwarded, nothing recorded or printed", async () => {
    world = await devWorld()
    const w = world
    const other = w.emu.createBot({username: 'someone_elses_bot'})
    const dev = startDev(w, {args: ['--no-watch', '--json'], timeoutMs: 90_000})
    const events = () =>
      dev
        .stdout()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
    await waitFor(() => events().find((e) => e.type === 'ready'), {
      what: () => `the ready event\n${dev.stdout()}\n${dev.stderr()}`,
      timeout: PROCESS_WAIT_MS,
    })
    const step = events().find((e) => e.type === 'step' && e.step === 'api-proxy')!
    const proxy = /http:\/\/127\.0\.0\.1:\d+/.exec(step.text as string)![0]

    const json = ['-H', 'content-type: application/json']
    const refused = await Promise.all([
      curl([`${proxy}/bot${other.token}/getMe`]),
      curl([...json, '-d', '{"chat_id":424242,"text":"through your proxy"}', `${proxy}/bot${other.token}/sendMessage`]),
      curl([`${proxy}/file/bot${other.token}/photos/file_0.jpg`]),
      // The token percent-encoded, and a path with no token at all.
      curl([`${proxy}/bot${encodeURIComponent(other.token)}/getMe`]),
      curl([`${proxy}/`]),
    ])
    for (const r of refused.slice(0, 4)) {
      expect(r.status).toBe(401)
      expect(JSON.parse(r.body)).toEqual({ok: false, error_code: 401, description: 'Unauthorized'})
    }
    expect(refused[4].status).toBe(404)
    expect(JSON.parse(refused[4].body)).toEqual({ok: false, error_code: 404, description: 'Not Found'})
    expect(w.emu.calls(other.token)).toEqual([])

    // The session's token goes through (and a failed call of it is printed, as before).
    const own = await curl([...json, '-d', '{"chat_id":424242,"text":"mine"}', `${proxy}/bot${w.token}/sendMessage`])
    expect(own.status).toBe(400)
    await waitFor(() => events().find((e) => e.type === 'api-call' && e.method === 'sendMessage'), {
      what: () => `the api-call event of the session's own call\n${dev.stdout()}`,
      timeout: 10_000,
    })
    dev.kill('SIGINT')
    const result = await dev.exited
    expect(result.code, result.stderr).toBe(0)
    const apiCalls = events().filter((e) => e.type === 'api-call')
    expect(apiCalls).toHaveLength(1)
    expect(JSON.stringify(apiCalls)).not.toContain('through your proxy')
    expect(result.stdout + result.stderr).not.toContain(other.token.split(':')[1])
  })
})

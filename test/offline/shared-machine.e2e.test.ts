/**
 * `bot dev --offline` on a machine shared with other users (issue 31, item 2). The emulator of an
 * offline session used the public token `1234567890:OFFLINE-DEV-TOKEN-NOT-A-REAL-SECRET`, so any
 * local user read the chat through `/_emulator/bots/<token>/state` and injected messages the bot
 * answered. Each session's token now has a random secret part (the bot id stays 1234567890): the
 * `nobody` account, with the public token, gets nothing and injects nothing; the session's own token
 * (which only its bot has) still drives it.
 */
import {execFile, type ChildProcess} from 'node:child_process'

import {afterEach, describe, expect, it} from 'vitest'

import {OFFLINE_TOKEN} from '../../src/offline/offline-env.js'
import {recordLines, startOfflineSession} from '../inspector/offline-helpers.js'
import {waitFor} from '../support/wait.js'

const asRoot = process.getuid?.() === 0

/** `curl` as the nobody account (as this user when not root): status and body. */
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

const running: ChildProcess[] = []
afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
})

describe('bot dev --offline against another local user', () => {
  it("the public offline token reads no chat and injects no message; the session's random token does", async () => {
    const o = startOfflineSession(['--json'], running, {killAfterMs: 60_000, prefix: 'bot-offline-shared-'})
    const offline = await o.waitEvent('offline', (e) => e.type === 'offline')
    expect(offline.botId).toBe(1234567890)
    await o.waitEvent('ready', (e) => e.type === 'ready')
    o.child.stdin!.write('a private line\n')
    await waitFor(() => recordLines(o.record).some((l) => l.endsWith('message a private line')), {
      what: () => `the bot to get the user's line\nstderr: ${o.stderr()}`,
    })

    const control = `${offline.apiRoot}/_emulator/bots/${OFFLINE_TOKEN}`
    const state = await curl([`${control}/state`])
    const injected = await curl([
      '-H',
      'content-type: application/json',
      '-d',
      '{"text":"injected by nobody"}',
      `${control}/messages`,
    ])
    const api = await curl([`${offline.apiRoot}/bot${OFFLINE_TOKEN}/getUpdates`])
    expect(state.status).toBe(404)
    expect(state.body).not.toContain('a private line')
    expect(injected.status).toBe(404)
    expect(api.status).toBe(401)

    // The token the bot got: the same bot id, a secret part of its own; it drives the emulator.
    const token = await o.token()
    expect(token).toMatch(/^1234567890:[A-Za-z0-9_-]{35}$/)
    expect(token).not.toBe(OFFLINE_TOKEN)
    const own = await curl([`${offline.apiRoot}/_emulator/bots/${token}/state`])
    expect(own.status).toBe(200)
    expect(own.body).toContain('a private line')
    // …and it is printed nowhere.
    o.child.stdin!.end()
    expect(await o.exited, o.stderr()).toBe(0)
    expect(recordLines(o.record).join('\n')).not.toContain('injected by nobody')
    expect(o.stdout() + o.stderr()).not.toContain(token.split(':')[1])
  })
})

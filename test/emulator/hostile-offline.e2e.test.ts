/**
 * Issue 20 item 1 on a real `bot dev --offline` (webhook mode, a real bot process): an update nested 200,000 levels
 * deep POSTed to the emulator's control API, as text/plain and as JSON, used to crash the session (`RangeError:
 * Maximum call stack size exceeded` in the webhook worker). It is refused; the session goes on answering and ends
 * cleanly (exit 0).
 */
import type {ChildProcess} from 'node:child_process'

import {afterEach, describe, expect, it} from 'vitest'

import {recordLines, startOfflineSession} from '../inspector/offline-helpers.js'
import {waitFor} from '../support/wait.js'

const running: ChildProcess[] = []
afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
})

const DEPTH = 200_000
const deep = `{"message":{"message_id":1,"date":1,"chat":{"id":1111,"type":"private"},"text":"x","x":${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}}}`

describe('bot dev --offline and a 200,000-level update on the control API', () => {
  it('refuses it whatever its content type, and the session goes on and exits 0', async () => {
    const o = startOfflineSession(['--json'], running, {killAfterMs: 60_000, prefix: 'bot-hostile-offline-'})
    const offline = await o.waitEvent('offline', (e) => e.type === 'offline')
    await o.waitEvent('ready', (e) => e.type === 'ready')
    const token = await o.token()
    const updates = `${offline.apiRoot}/_emulator/bots/${token}/updates`
    const statuses: Record<string, number> = {}
    for (const type of ['text/plain', 'application/json']) {
      const res = await fetch(updates, {method: 'POST', headers: {'content-type': type}, body: deep})
      statuses[type] = res.status
    }
    // the session still works: a message from the user reaches the bot (the old session was gone by now)
    const sent = await fetch(`${offline.apiRoot}/_emulator/bots/${token}/messages`, {
      method: 'POST',
      headers: {'content-type': 'application/json'},
      body: JSON.stringify({text: 'still here'}),
    })
    expect(sent.status).toBe(200)
    const {update_id: updateId} = (await sent.json()) as {update_id: number}
    await waitFor(() => recordLines(o.record).includes(`${updateId} message still here`), {
      what: () => `the bot to get the message\nstderr: ${o.stderr()}`,
    })
    // refused as a client error: 415 for text/plain (not JSON), 400 for JSON nested deeper than 64 levels
    expect(statuses).toEqual({'text/plain': 415, 'application/json': 400})
    o.child.stdin!.end()
    expect(await o.exited, o.stderr()).toBe(0)
    expect(o.stderr()).not.toContain('RangeError')
  })
})

/**
 * One Update check for the inspector's Edit and replay and the control port, in a
 * real `bot dev --offline` session: the edit `{"update_id":1e308,"zzz":{}}` (no update type, an
 * update_id no client can hold) is refused by both with the same 400, nothing is delivered or
 * recorded, and a real edit still goes through and can be fetched by its update_id afterwards.
 */
import type {ChildProcess} from 'node:child_process'
import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {loopbackRequest} from '../support/http.js'
import {waitFor} from '../support/wait.js'
import {recordLines, startOfflineSession, type Event} from './offline-helpers.js'

const running: ChildProcess[] = []
afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
})

describe('the Update check of a replay', () => {
  it('the inspector and the control port refuse {"update_id":1e308,"zzz":{}} alike; a real edit is delivered and found by its id', async () => {
    const session = startOfflineSession(['--json'], running, {killAfterMs: 60_000})
    const ready = await session.waitEvent('the ready event', (e) => e.type === 'ready')
    const inspector = new URL(ready.inspectorUrl as string)
    const port = Number(inspector.port)
    const key = inspector.searchParams.get('key')!
    session.child.stdin!.write('hello\n')
    await waitFor(() => recordLines(session.record).length === 1, {what: 'the bot to get "hello"'})
    const list = async () =>
      JSON.parse((await loopbackRequest(port, '/api/updates', {headers: {'x-bot-dev-key': key}})).body) as Event[]
    const original = await waitFor(async () => (await list()).find((e) => e.preview === 'hello'), {
      what: 'the entry of "hello"',
    })
    const name = readdirSync(session.stateDir).find((f) => /^control-\d+\.json$/.test(f))!
    const record = JSON.parse(readFileSync(join(session.stateDir, name), 'utf8')) as {port: number; key: string}

    const bogus = '{"update_id":1e308,"zzz":{}}'
    const viaInspector = await loopbackRequest(port, `/api/updates/${original.updateId}/replay`, {
      method: 'POST',
      headers: {'x-bot-dev-key': key, 'content-type': 'application/json'},
      body: bogus,
    })
    const viaControl = await loopbackRequest(record.port, '/replay', {
      method: 'POST',
      headers: {'x-bot-dev-key': record.key, 'content-type': 'application/json'},
      body: `{"updateId":${original.updateId},"update":${bogus}}`,
    })
    expect(viaInspector.status, viaInspector.body).toBe(400)
    expect(viaControl.status, viaControl.body).toBe(400)
    // The same check says the same thing (the inspector's words start lower case).
    const said = (r: {body: string}) => (JSON.parse(r.body) as {error: string}).error.toLowerCase()
    expect(said(viaInspector)).toBe(said(viaControl))
    expect(said(viaInspector)).toMatch(/update_id 1e\+308, which is not a positive 32-bit integer/)
    const typeOnly = await loopbackRequest(port, `/api/updates/${original.updateId}/replay`, {
      method: 'POST',
      headers: {'x-bot-dev-key': key},
      body: '{"zzz":{}}',
    })
    expect(typeOnly.status).toBe(400)
    expect(said(typeOnly)).toMatch(/"zzz", which is not an update type/)
    // Nothing was delivered or recorded.
    expect(recordLines(session.record)).toHaveLength(1)
    expect((await list()).map((e) => e.type)).toEqual(['message'])

    // A real edit still goes through, and its entry is found by its update_id.
    const edited = {...original.update, message: {...original.update.message, text: 'edited'}}
    const ok = await loopbackRequest(port, `/api/updates/${original.updateId}/replay`, {
      method: 'POST',
      headers: {'x-bot-dev-key': key},
      body: JSON.stringify(edited),
    })
    expect(ok.status, ok.body).toBe(200)
    const entry = JSON.parse(ok.body) as Event
    expect(entry).toMatchObject({type: 'message', preview: 'edited', source: 'replay'})
    const found = await loopbackRequest(port, `/api/updates/${entry.updateId}`, {headers: {'x-bot-dev-key': key}})
    expect(found.status).toBe(200)
    session.child.stdin!.end()
    expect(await session.exited).toBe(0)
  }, 90_000)
})

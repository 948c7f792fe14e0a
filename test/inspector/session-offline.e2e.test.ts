/**
 * The inspector in `bot dev --offline` as a real process: the failing call under its update in the
 * log, inspectorUrl, and `bot trigger` / `bot replay` going in as the emulator user's actions (found
 * through the control record in the default state folder, although the session's state is temporary).
 */
import type {ChildProcess} from 'node:child_process'
import {mkdtempSync, readdirSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {fixture} from '../dev/helpers.js'
import {runCli} from '../support/cli.js'
import {recordLines, startOfflineSession, type Event} from './offline-helpers.js'
import {waitFor} from '../support/wait.js'

const running: ChildProcess[] = []
afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
})

/** `bot dev --offline … -- node inspector-bot.mjs`, killed after 60 s whatever happens. */
const startOffline = (args: string[]) => startOfflineSession(args, running, {killAfterMs: 60_000})
const lines = recordLines

async function entries(inspectorUrl: string): Promise<Event[]> {
  const url = new URL(inspectorUrl)
  const res = await fetch(`${url.origin}/api/updates?key=${url.searchParams.get('key')}`)
  const body = (await res.json()) as Event[] | {updates: Event[]}
  return Array.isArray(body) ? body : body.updates
}

describe('bot dev --offline with the inspector', () => {
  it('prints the inspector URL at start-up and the failing call right under its update', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bot-inspector-offline-'))
    const result = await runCli(['dev', '--offline', '--no-watch', '--', 'node', fixture('inspector-bot.mjs')], {
      cwd: dir,
      input: 'hello\n/missing\n',
      env: {BOT_STATE_DIR: join(dir, 'state')},
      timeoutMs: 90_000,
    })
    expect(result.code, result.stderr).toBe(0)
    // Offline the inspector's address ends the one start-up line.
    expect(result.stderr).toMatch(/^Offline: .* Inspector: http:\/\/127\.0\.0\.1:\d+\/\?key=[0-9a-f]{32}\n/m)
    const log = result.stderr.split('\n')
    const at = log.findIndex((l) => /← #\d+ message chat 1111 "\/missing" → 200/.test(l))
    expect(at, result.stderr).toBeGreaterThanOrEqual(0)
    expect(log[at + 1]).toMatch(/^ {2}↳ sendMessage 400 Bad Request: chat not found — .+/)
    expect(result.stderr.match(/↳/g)).toHaveLength(1) // the successful call to "hello" shows no line
    // The control record went into BOT_STATE_DIR and is gone at the end.
    expect(readdirSync(join(dir, 'state')).filter((f) => f.startsWith('control-'))).toEqual([])
  })

  it('a state folder that cannot be written costs trigger and replay only, with a warning; the session runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bot-inspector-offline-'))
    const notAFolder = join(dir, 'file')
    writeFileSync(notAFolder, '')
    const result = await runCli(['dev', '--offline', '--no-watch', '--', 'node', fixture('inspector-bot.mjs')], {
      cwd: dir,
      input: 'hello\n',
      env: {BOT_STATE_DIR: notAFolder},
      timeoutMs: 90_000,
    })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toMatch(
      /! `bot trigger` and `bot replay` cannot find this session: its record could not be written to /,
    )
    expect(result.stdout).toContain('bot › echo: hello')
  })

  it('webhook mode: trigger and replay reach the bot as the emulator user; the entries show the calls', async () => {
    const o = startOffline(['--json'])
    const ready = await o.waitEvent('ready', (e) => e.type === 'ready')
    expect(ready.inspectorUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?key=[0-9a-f]{32}$/)
    const records = readdirSync(o.stateDir).filter((f) => f.startsWith('control-'))
    expect(records).toEqual([`control-${o.child.pid}.json`])
    expect(statSync(join(o.stateDir, records[0])).mode & 0o777).toBe(0o600)

    const trigger = await o.control(['trigger', 'message', 'hi from trigger', '--json'])
    expect(trigger.code, trigger.stderr).toBe(0)
    const triggered = JSON.parse(trigger.stdout) as Event
    expect(triggered).toMatchObject({
      source: 'trigger',
      chatId: 1111,
      preview: 'hi from trigger',
      answer: {status: 200},
    })
    expect(lines(o.record)).toEqual([`${triggered.updateId} message hi from trigger`])
    await o.waitEvent(
      'the trigger line',
      (e) => e.type === 'update' && e.updateId === triggered.updateId && / \(bot trigger\)$/.test(e.text),
    )

    // A press on a message the emulator does not have is refused: nothing reaches the bot.
    const unknown = await o.control(['trigger', 'callback', 'like:yes', '--message-id', '99999'])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('The emulator refused the update: there is no message 99999 in chat 1111')
    expect(lines(o.record)).toEqual([`${triggered.updateId} message hi from trigger`])

    const replay = await o.control(['replay', '--last', '--json'])
    expect(replay.code, replay.stderr).toBe(0)
    expect(JSON.parse(replay.stdout)).toMatchObject({
      updateId: triggered.updateId,
      source: 'replay',
      replayOf: triggered.updateId,
      answer: {status: 200},
    })
    expect(lines(o.record)).toEqual([
      `${triggered.updateId} message hi from trigger`,
      `${triggered.updateId} message hi from trigger`,
    ])
    // The bot's answer to each delivery went through the api proxy into the history.
    await waitFor(
      async () =>
        (await entries(ready.inspectorUrl)).filter(
          (e) =>
            e.updateId === triggered.updateId &&
            e.calls.some((c: Event) => c.params?.text === 'echo: hi from trigger' && c.ok),
        ).length === 2,
      {what: 'both entries with their call'},
    )

    o.child.stdin!.end()
    expect(await o.exited).toBe(0)
    // The trigger and the replay count as sent, like the chat's lines.
    expect(o.events().find((e) => e.type === 'summary')?.text).toMatch(/: 2 updates sent, 0 failures; exit code 0\.$/)
    expect(readdirSync(o.stateDir).filter((f) => f.startsWith('control-'))).toEqual([])
  })

  it('polling mode: updates are listed from getUpdates; trigger and replay go into the emulator queue', async () => {
    const o = startOffline(['--json', '--mode', 'polling'])
    const ready = await o.waitEvent('ready', (e) => e.type === 'ready')
    o.child.stdin!.write('typed\n')
    const typed = await o.waitEvent('the typed update', (e) => e.type === 'update' && e.preview === 'typed')
    expect(typed).toMatchObject({source: 'polling', chatId: 1111})

    const trigger = await o.control(['trigger', 'message', 'polled trigger', '--json'])
    expect(trigger.code, trigger.stderr).toBe(0)
    const triggered = JSON.parse(trigger.stdout) as Event
    expect(triggered).toMatchObject({source: 'trigger', preview: 'polled trigger', answer: null})
    const line = await o.waitEvent('the trigger line', (e) => e.type === 'update' && e.updateId === triggered.updateId)
    expect(line.text).toMatch(
      new RegExp(`← #${triggered.updateId} message chat 1111 "polled trigger" \\(bot trigger\\)$`),
    )

    const replay = await o.control(['replay', String(typed.updateId), '--json'])
    expect(replay.code, replay.stderr).toBe(0)
    const replayed = JSON.parse(replay.stdout) as Event
    // In the emulator's queue a replay is a new update (a new update_id) carrying the same message.
    expect(replayed).toMatchObject({source: 'replay', replayOf: typed.updateId, preview: 'typed'})
    expect(replayed.updateId).toBeGreaterThan(triggered.updateId)
    const replayLine = await o.waitEvent(
      'the replay line',
      (e) => e.type === 'update' && e.updateId === replayed.updateId,
    )
    expect(replayLine.text).toMatch(new RegExp(`"typed" \\(replay of #${typed.updateId}\\)$`))
    await waitFor(() => lines(o.record).length === 3, {what: 'three updates at the bot'})
    expect(lines(o.record)).toEqual([
      `${typed.updateId} message typed`,
      `${triggered.updateId} message polled trigger`,
      `${replayed.updateId} message typed`,
    ])
    const listed = await entries(ready.inspectorUrl)
    expect(listed.map((e) => e.source)).toEqual(['replay', 'trigger', 'polling'])

    o.child.stdin!.end()
    expect(await o.exited).toBe(0)
    expect(o.events().find((e) => e.type === 'summary')?.text).toMatch(/: 3 updates sent; exit code 0\.$/)
  })

  it('polling mode without the api proxy: a trigger still reaches the bot and is recorded', async () => {
    const o = startOffline(['--json', '--mode', 'polling', '--no-api-proxy'])
    await o.waitEvent('ready', (e) => e.type === 'ready')
    const trigger = await o.control(['trigger', 'message', 'unproxied', '--json'])
    expect(trigger.code, trigger.stderr).toBe(0)
    const triggered = JSON.parse(trigger.stdout) as Event
    expect(triggered).toMatchObject({source: 'trigger', preview: 'unproxied', calls: []})
    await waitFor(() => lines(o.record).includes(`${triggered.updateId} message unproxied`), {what: 'the bot got it'})
    o.child.stdin!.end()
    expect(await o.exited).toBe(0)
  })
})

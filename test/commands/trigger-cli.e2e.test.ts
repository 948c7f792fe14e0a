/**
 * `bot trigger message|callback|update` and `bot replay` as real processes, talking over real
 * loopback HTTP to a control port (startControlPort) whose SessionActions is a recording
 * stand-in; the session is found through a control record in a temporary state folder.
 * The end-to-end run against a real `bot dev --offline` session is in trigger.e2e.test.ts.
 */
import {spawn} from 'node:child_process'
import {createServer, type Server} from 'node:http'
import {existsSync, mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {AddressInfo} from 'node:net'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {DEFAULT_PHOTO} from '../../src/control/image.js'
import {startControlPort, type ControlPort} from '../../src/control/server.js'
import {writeControlRecord} from '../../src/control/record.js'
import type {UpdateEntry} from '../../src/inspector/types.js'
import type {ControlRecord} from '../../src/control/protocol.js'
import {RecordingActions} from '../inspector/control-helpers.js'
import {parseJsonOutput, runCli, type CliOptions} from '../support/cli.js'

const KEY = 'f00dfeedcafebabe0123456789abcdef'
const TOKEN = '123456789:AAHfakefakefakefakefakefakefakefak'

function record(over: Partial<ControlRecord>): ControlRecord {
  return {
    version: 1,
    pid: process.pid,
    botId: 555,
    cwd: '/nowhere',
    offline: false,
    mode: 'webhook',
    port: 1,
    key: KEY,
    startedAt: new Date().toISOString(),
    ...over,
  }
}

/** A fresh state folder and project folder; the CLI runs in the project with BOT_STATE_DIR set. */
function place() {
  const stateDir = mkdtempSync(join(tmpdir(), 'trig-state-'))
  const project = mkdtempSync(join(tmpdir(), 'trig-proj-'))
  const run = (args: string[], o: CliOptions = {}) =>
    runCli(args, {cwd: project, ...o, env: {BOT_STATE_DIR: stateDir, ...o.env}, timeoutMs: 90_000})
  return {stateDir, project, run}
}

describe('bot trigger / bot replay against a control port', () => {
  let actions: RecordingActions
  let server: ControlPort
  const p = place()

  beforeAll(async () => {
    actions = new RecordingActions()
    server = await startControlPort({actions, key: KEY})
    writeControlRecord(record({cwd: p.project, port: server.port}), p.stateDir)
  })
  afterAll(() => server.close())

  it('trigger message: found by folder, one line with the answer and the time', async () => {
    const r = await p.run(['trigger', 'message', 'hello'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const entry = actions.entries[0]
    expect(r.stdout).toBe(`✓ update #${entry.updateId} message "hello" delivered → 200 in 12 ms\n`)
    expect(actions.triggers.at(-1)).toEqual({kind: 'message', text: 'hello'})
  })

  it('trigger message with --chat/--user (a negative chat after a space), --json prints the entry', async () => {
    const r = await p.run(['trigger', 'message', '/start now', '--chat', '-1001234567890', '--user', '42', '--json'])
    expect(r.code).toBe(0)
    const entry = parseJsonOutput<UpdateEntry>(r)
    expect(entry).toEqual(JSON.parse(JSON.stringify(actions.entries[0])))
    expect(actions.triggers.at(-1)).toEqual({
      kind: 'message',
      text: '/start now',
      chatId: -1_001_234_567_890,
      userId: 42,
    })
    expect((entry.update as any).message.entities).toEqual([{offset: 0, length: 6, type: 'bot_command'}])
  })

  it('trigger callback: failed Bot API calls get a ↳ line each', async () => {
    actions.failedCall = {
      method: 'answerCallbackQuery',
      errorCode: 400,
      description: 'Bad Request: query is too old and response timeout expired or query ID is invalid',
    }
    try {
      const r = await p.run(['trigger', 'callback', 'like:42', '--message-id', '7'])
      expect(r.code).toBe(0)
      const id = actions.entries[0].updateId
      expect(r.stdout).toBe(
        `✓ update #${id} callback_query "like:42" delivered → 200 in 12 ms\n  ↳ answerCallbackQuery 400 Bad Request: query is too old and response timeout expired or query ID is invalid\n`,
      )
      expect(actions.triggers.at(-1)).toEqual({kind: 'callback', data: 'like:42', messageId: 7})
    } finally {
      actions.failedCall = undefined
    }
  })

  it('the bot answering an error: ✗ and exit 1', async () => {
    actions.answerStatus = 500
    try {
      const r = await p.run(['trigger', 'message', 'crash me'])
      expect(r.code).toBe(1)
      expect(r.stdout).toMatch(/^✗ update #\d+ message "crash me" delivered, but the bot answered → 500 in 12 ms\n$/)
      const j = await p.run(['trigger', 'message', 'crash me', '--json'])
      expect(j.code).toBe(1)
      expect(parseJsonOutput<UpdateEntry>(j).answer).toEqual({status: 500, body: ''})
    } finally {
      actions.answerStatus = 200
    }
  })

  it('trigger update from a file and from stdin (update_id replaced)', async () => {
    const file = join(p.project, 'edited.json')
    writeFileSync(
      file,
      JSON.stringify({
        update_id: 1,
        edited_message: {
          message_id: 3,
          chat: {id: 1111, type: 'private'},
          date: 1_700_000_000,
          edit_date: 1_700_000_100,
          text: 'fixed',
        },
      }),
    )
    const r = await p.run(['trigger', 'update', 'edited.json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^✓ update #\d+ edited_message "fixed" delivered → 200 in 12 ms\n$/)
    expect(actions.triggers.at(-1)).toMatchObject({
      kind: 'update',
      update: {update_id: 1, edited_message: {text: 'fixed'}},
    })
    expect(actions.entries[0].updateId).not.toBe(1)
    const s = await p.run(['trigger', 'update', '-'], {
      input: JSON.stringify({message: {message_id: 1, chat: {id: 5, type: 'private'}, date: 1, text: 'piped'}}),
    })
    expect(s.code, s.stderr).toBe(0)
    expect(s.stdout).toContain('message "piped" delivered')
  })

  it('replay --last and replay UPDATE_ID', async () => {
    const last = actions.entries[0].updateId
    const r = await p.run(['replay', '--last'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(
      new RegExp(`^✓ update #${last} \\(replay of #${last}\\) message "piped" delivered → 200 in 12 ms\\n$`),
    )
    const first = actions.entries.at(-1)!.updateId
    const j = await p.run(['replay', String(first), '--json'])
    expect(j.code, j.stderr).toBe(0)
    expect(parseJsonOutput<UpdateEntry>(j)).toMatchObject({updateId: first, replayOf: first, source: 'replay'})
    expect(actions.replays.slice(-2)).toEqual([{updateId: 'last'}, {updateId: first}])
  })

  it('trigger TYPE: the argument and each --set are read as the fixture has them and sent; --json prints the entry', async () => {
    const r = await p.run(['trigger', 'reaction', '🔥', '--user', '42', '--chat', '-100123'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^✓ update #\d+ reaction "reaction" delivered → 200 in 12 ms\n$/)
    expect(actions.triggers.at(-1)).toEqual({
      kind: 'fixture',
      type: 'reaction',
      sets: [{path: ['message_reaction', 'new_reaction', '0', 'emoji'], value: '🔥'}],
      chatId: -100123,
      userId: 42,
    })
    const pay = await p.run([
      'trigger',
      'payment',
      '--set',
      'total_amount=50',
      '--set',
      'invoice_payload=42',
      '--set',
      'pre_checkout_query.order_info={"name":"Ada"}',
      '--json',
    ])
    expect(pay.code, pay.stderr).toBe(0)
    expect(parseJsonOutput<UpdateEntry>(pay).type).toBe('payment')
    expect(actions.triggers.at(-1)).toEqual({
      kind: 'fixture',
      type: 'payment',
      sets: [
        {path: ['pre_checkout_query', 'total_amount'], value: 50},
        {path: ['pre_checkout_query', 'invoice_payload'], value: '42'},
        {path: ['pre_checkout_query', 'order_info'], value: {name: 'Ada'}},
      ],
    })
    writeFileSync(join(p.project, 'tiny.png'), DEFAULT_PHOTO)
    const photo = await p.run(['trigger', 'photo', 'tiny.png'])
    expect(photo.code, photo.stderr).toBe(0)
    expect(actions.triggers.at(-1)).toEqual({
      kind: 'fixture',
      type: 'photo',
      file: {base64: DEFAULT_PHOTO.toString('base64'), name: 'tiny.png'},
    })
    writeFileSync(join(p.project, 'mine.json'), JSON.stringify({update: {message: {text: 'mine', chat: '{{chat}}'}}}))
    const own = await p.run(['trigger', 'web-app-data', '--file', 'mine.json', '--set', 'text=ours'])
    expect(own.code, own.stderr).toBe(0)
    expect(actions.triggers.at(-1)).toEqual({
      kind: 'fixture',
      type: 'web-app-data',
      template: {update: {message: {text: 'mine', chat: '{{chat}}'}}},
      sets: [{path: ['message', 'text'], value: 'ours'}],
    })
    const member = await p.run(['trigger', 'member', 'left'])
    expect(member.code, member.stderr).toBe(0)
    expect(actions.triggers.at(-1)).toEqual({kind: 'fixture', type: 'member-left'})
  })

  it('bot trigger --list: every type, its command and its fixture; --json too', async () => {
    const r = await p.run(['trigger', '--list'])
    expect(r.code, r.stderr).toBe(0)
    for (const usage of [
      'bot trigger message TEXT',
      'bot trigger callback DATA',
      'bot trigger photo [FILE]',
      'bot trigger reaction [EMOJI]',
      'bot trigger member joined',
      'bot trigger payment',
      'bot trigger business-message [TEXT]',
      'bot trigger web-app-data [DATA]',
      'bot trigger subscription [STATE]',
      'bot trigger widget-query [DATA]',
      'bot trigger shared-widget-query [DATA]',
      'bot trigger stopped-generation [DRAFT_ID]',
    ])
      expect(r.stdout).toMatch(new RegExp(`^${usage.replace(/[[\]]/g, '\\$&')} +\\S`, 'm'))
    expect(r.stdout).toMatch(/^Fixtures: \/.*\/dist\/control\/fixtures\/$/m)
    const j = await p.run(['trigger', '--list', '--json'])
    const list = parseJsonOutput<Array<{type: string; fixture?: string; update?: unknown}>>(j)
    expect(list.map((t) => t.type)).toEqual([
      'message',
      'callback',
      'update',
      'photo',
      'edited-message',
      'inline',
      'poll-answer',
      'reaction',
      'join-request',
      'member-joined',
      'member-left',
      'member-blocked',
      'member-unblocked',
      'payment',
      'business-message',
      'web-app-data',
      'subscription',
      'widget-query',
      'shared-widget-query',
      'stopped-generation',
    ])
    const payment = list.find((t) => t.type === 'payment')!
    expect(existsSync(payment.fixture!)).toBe(true)
    expect(payment.update).toEqual(JSON.parse(readFileSync(payment.fixture!, 'utf8')).update)
  })

  it('bot trigger TYPE --help shows the fixture, path = value', async () => {
    const r = await p.run(['trigger', 'payment', '--help'])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('  pre_checkout_query.currency = "{{invoice.currency}}"\n')
    expect(r.stdout).toContain('  pre_checkout_query.from = "{{user}}"\n')
    const member = await p.run(['trigger', 'member', '--help'])
    expect(member.stdout).toContain('  my_chat_member.new_chat_member.status = "kicked"\n')
  })

  it('an error from the session (ActionError): exit 1 with its message and fix', async () => {
    const r = await p.run(['replay', '999999'])
    expect(r.code).toBe(1)
    expect(r.stdout).toBe('')
    expect(r.stderr).toBe(
      "✗ Update 999999 is not in this session's history.\n  Pick one the inspector lists, or use --last.\n",
    )
    const j = await p.run(['replay', '999999', '--json'])
    expect(j.code).toBe(1)
    expect(parseJsonOutput<any>(j).error).toMatchObject({
      message: "Update 999999 is not in this session's history.",
      fix: 'Pick one the inspector lists, or use --last.',
    })
  })
})

describe('finding the session', () => {
  it('no session: exit 1 with the fix, for every command', async () => {
    const p = place()
    for (const args of [
      ['trigger', 'message', 'hi'],
      ['trigger', 'callback', 'x', '--message-id', '1'],
      ['replay', '--last'],
    ]) {
      const r = await p.run(args)
      expect(r.code, args.join(' ')).toBe(1)
      expect(r.stderr).toBe(
        '✗ No running `bot dev` session in this folder.\n  Start `bot dev` (or `bot dev --offline`) in this folder first.\n',
      )
    }
    const withToken = await p.run(['trigger', 'message', 'hi'], {env: {BOT_TOKEN: TOKEN}})
    expect(withToken.code).toBe(1)
    expect(withToken.stderr).toContain('No running `bot dev` session for bot 123456789.')
    expect(withToken.stderr).not.toContain('AAHfake')
  })

  it('a stale record (its process is gone) is ignored and removed', async () => {
    const p = place()
    const child = spawn(process.execPath, ['-e', ''], {stdio: 'ignore'})
    await new Promise((resolve) => child.once('exit', resolve))
    const path = writeControlRecord(record({pid: child.pid!, cwd: p.project, port: 9}), p.stateDir)
    const r = await p.run(['trigger', 'message', 'hi'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('Start `bot dev` (or `bot dev --offline`) in this folder first.')
    expect(existsSync(path)).toBe(false)
  })

  it('with a token, the session of that bot (by its id), whatever the folder; the token is never printed', async () => {
    const p = place()
    const mine = new RecordingActions()
    const other = new RecordingActions()
    const a = await startControlPort({actions: mine, key: KEY})
    const b = await startControlPort({actions: other, key: KEY})
    // Another bot's session in this folder, and ours elsewhere (an older record file of ours is replaced).
    const sibling = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {stdio: 'ignore'})
    try {
      writeControlRecord(record({pid: sibling.pid!, botId: 777, cwd: p.project, port: b.port}), p.stateDir)
      writeControlRecord(record({botId: 123_456_789, cwd: '/elsewhere', port: a.port}), p.stateDir)
      const byToken = await p.run(['trigger', 'message', 'for me', '--token', TOKEN])
      expect(byToken.code, byToken.stderr).toBe(0)
      expect(byToken.stdout + byToken.stderr).not.toContain('AAHfake')
      const byEnv = await p.run(['trigger', 'message', 'me too'], {env: {BOT_TOKEN: TOKEN}})
      expect(byEnv.code, byEnv.stderr).toBe(0)
      writeFileSync(join(p.project, '.env'), `BOT_TOKEN=${TOKEN}\n`)
      const byDotenv = await p.run(['replay', '--last'])
      expect(byDotenv.code, byDotenv.stderr).toBe(0)
      expect(mine.triggers.map((t) => (t as {text: string}).text)).toEqual(['for me', 'me too'])
      expect(mine.replays).toEqual([{updateId: 'last'}])
      expect(other.triggers).toEqual([])
    } finally {
      sibling.kill()
      await a.close()
      await b.close()
    }
  })

  it('the key is required: a record with the wrong key gets 401 from the session, exit 1, nothing delivered', async () => {
    const p = place()
    const actions = new RecordingActions()
    const s = await startControlPort({actions, key: KEY})
    try {
      writeControlRecord(record({cwd: p.project, port: s.port, key: 'not-the-key'}), p.stateDir)
      const r = await p.run(['trigger', 'message', 'hi'])
      expect(r.code).toBe(1)
      expect(r.stderr).toMatch(/^✗ Missing or wrong x-bot-dev-key header\.\n/)
      expect(actions.triggers).toEqual([])
    } finally {
      await s.close()
    }
  })

  it('a live record whose port does not answer: exit 1 naming the pid and the fix', async () => {
    const p = place()
    const closed = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const {port} = s.address() as AddressInfo
        s.close(() => resolve(port))
      })
    })
    writeControlRecord(record({cwd: p.project, port: closed}), p.stateDir)
    const r = await p.run(['replay', '--last'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(
      `The \`bot dev\` session (pid ${process.pid}) does not answer on its control port ${closed}.`,
    )
  })
})

describe('bad input: exit 2, one line naming the value and the fix, no request sent', () => {
  let counting: Server
  let requests = 0
  const p = place()

  beforeAll(async () => {
    counting = createServer((req, res) => {
      requests++
      res.writeHead(500).end()
    })
    await new Promise<void>((resolve) => counting.listen(0, '127.0.0.1', resolve))
    writeControlRecord(record({cwd: p.project, port: (counting.address() as AddressInfo).port}), p.stateDir)
    writeFileSync(join(p.project, 'bad.json'), '{"message": {')
    writeFileSync(join(p.project, 'two.json'), '{"message": {}, "callback_query": {}}')
    writeFileSync(join(p.project, 'list.json'), '[1, 2]')
  })
  afterAll(() => new Promise<void>((resolve) => counting.close(() => resolve())))

  it.each([
    [['trigger', 'message', ''], /The message text is empty\./],
    [['trigger', 'message', '   '], /The message text is empty\./],
    [['trigger', 'message', 'hi', '--chat', 'abc'], /--chat "abc" is not a non-zero integer\./],
    [['trigger', 'message', 'hi', '--chat', '0'], /--chat "0" is not a non-zero integer\./],
    [['trigger', 'message', 'hi', '--user', '-5'], /--user "-5" is not a positive integer\./],
    [['trigger', 'message', 'hi', '--user', '1.5'], /--user "1.5" is not a positive integer\./],
    [['trigger', 'message', 'hi', '--chat', '5', '--user', '6'], /Chat 5 is a private chat/],
    [['trigger', 'message', 'hi', '--token', 'not-a-token'], /--token is not a bot token/],
    [['trigger', 'message', 'x'.repeat(4097)], /4097 characters/],
    [['trigger', 'callback', 'x', '--message-id', '0'], /--message-id "0" is not a positive integer\./],
    [['trigger', 'nope'], /Command trigger:nope not found|trigger nope/],
    [['trigger', 'reaction', '--set', 'nothing'], /--set "nothing" is not path=value\./],
    [['trigger', 'reaction', '--set', 'a..b=1'], /is not a path of field names/],
    [['trigger', 'poll-answer', 'two'], /the fixture has a number there/],
    [['trigger', 'payment', '--set', 'from.id=5'], /from is filled by the session \(\{\{user\}\}\)/],
    [['trigger', 'payment', '--set', 'total_amount=lots'], /the fixture has a number there/],
    [['trigger', 'member', 'exploded'], /Expected exploded to be one of/],
    [['trigger', 'photo', 'missing.png'], /missing\.png does not exist\./],
    [['trigger', 'photo', 'bad.json'], /bad\.json is not a JPEG, PNG, GIF or WebP image\./],
    [['trigger', 'web-app-data', 'x', '--file', 'missing.json'], /missing\.json does not exist\./],
    [['trigger', 'web-app-data', 'x', '--file', 'list.json'], /list\.json is not a JSON object\./],
    [['trigger', 'inline', '--chat', 'abc'], /--chat "abc" is not a non-zero integer\./],
    [['trigger', 'callback', 'x', '--message-id', 'seven'], /--message-id "seven" is not a positive integer\./],
    [['trigger', 'callback', 'x'.repeat(65), '--message-id', '1'], /65 bytes/],
    [['trigger', 'update', 'missing.json'], /missing\.json does not exist\./],
    [['trigger', 'update', 'bad.json'], /bad\.json is not valid JSON/],
    [['trigger', 'update', 'two.json'], /two\.json has 2 fields besides update_id/],
    [['trigger', 'update', 'list.json'], /list\.json is not a JSON object\./],
    [['replay'], /No update to replay: give UPDATE_ID or --last\./],
    [['replay', '5', '--last'], /Both UPDATE_ID and --last were given\./],
    [['replay', 'abc'], /UPDATE_ID "abc" is not a non-negative integer\./],
    [['replay', '-1'], /UPDATE_ID "-1" is not a non-negative integer\./],
  ])('%j', async (args, pattern) => {
    const r = await p.run(args)
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    const lines = r.stderr.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^✗ /)
    expect(lines[0]).toMatch(pattern)
    expect(lines).toHaveLength(2)
    expect(requests).toBe(0)
  })

  it('stdin that is not an update', async () => {
    const r = await p.run(['trigger', 'update', '-'], {input: 'hello'})
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/^✗ stdin is not valid JSON/)
    expect(requests).toBe(0)
  })
})

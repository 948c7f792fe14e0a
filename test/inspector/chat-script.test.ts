/**
 * The inspector's "Save as chat script" (POST /api/chat-script) over real HTTP, on a history holding a conversation
 * as it comes from Telegram (real-looking names, ids, a username, a phone number in a contact and in the bot's text,
 * a location, another chat in between): the script of the range, anonymised, written to test/NAME.chat.yml only
 * with a name, never over a file; the key and the Origin rules of the other POST routes; no secret in the file.
 */
import {existsSync, mkdtempSync, readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {UpdateHistory} from '../../src/inspector/history/history.js'
import {startInspectorServer, type InspectorServer} from '../../src/inspector/web/server.js'
import type {ApiCall} from '../../src/inspector/types.js'
import {loopbackRequest as request} from '../support/http.js'

const KEY = 'script-key-0123456789'
const TOKEN = '123456789:AAHsecretsecretsecretsecretsecret12'
const WEBHOOK_SECRET = 'wh-Secret-Path-0123456789'

const REAL = {
  id: 734_110_592,
  first_name: 'Margarethe',
  last_name: 'Vestager',
  username: 'mvestager',
  phone: '+4520123456',
}
const from = {
  id: REAL.id,
  is_bot: false,
  first_name: REAL.first_name,
  last_name: REAL.last_name,
  username: REAL.username,
  language_code: 'da',
}
const chat = {
  id: REAL.id,
  type: 'private',
  first_name: REAL.first_name,
  last_name: REAL.last_name,
  username: REAL.username,
}
const menu = {
  inline_keyboard: [
    [
      {text: 'Pasta', callback_data: 'p'},
      {text: 'Pizza', callback_data: 'z'},
    ],
  ],
}

let servers: InspectorServer[] = []
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()))
  servers = []
})

const call = (method: string, params: Record<string, unknown>, result?: unknown): ApiCall => ({
  method,
  ok: true,
  ms: 3,
  params,
  time: new Date().toISOString(),
  ...(typeof params.chat_id === 'number' ? {chatId: params.chat_id} : {}),
  ...(result !== undefined ? {result} : {}),
})

/** A history as `bot dev` records an online conversation: each update with the calls attached to it. */
function telegramHistory(): UpdateHistory {
  const history = new UpdateHistory({secrets: [TOKEN, WEBHOOK_SECRET]})
  const add = (update: Record<string, unknown>, calls: ApiCall[]) => {
    const entry = history.begin(update, 'webhook')
    for (const c of calls) history.addCall(c, entry)
    history.finish(entry, {status: 200, body: ''}, 5)
  }
  const msg = (id: number, extra: Record<string, unknown>) => ({
    message_id: id,
    from,
    chat,
    date: 1_700_000_000 + id,
    ...extra,
  })
  add({update_id: 501, message: msg(1, {text: '/start', entities: [{offset: 0, length: 6, type: 'bot_command'}]})}, [
    call(
      'sendMessage',
      {chat_id: REAL.id, text: `Hello, ${REAL.first_name}! Your username is @${REAL.username}.`},
      {message_id: 2, chat: {id: REAL.id, type: 'private'}, date: 1},
    ),
  ])
  // Someone else writes in between: another chat, left out of the script.
  add(
    {
      update_id: 502,
      message: {
        message_id: 9,
        from: {id: 55, is_bot: false, first_name: 'Zed'},
        chat: {id: 55, type: 'private'},
        date: 1,
        text: 'hi',
      },
    },
    [call('sendMessage', {chat_id: 55, text: 'Hello, Zed!'})],
  )
  add({update_id: 503, message: msg(3, {text: 'menu'})}, [
    call(
      'sendMessage',
      {chat_id: REAL.id, text: 'Pick one', reply_markup: menu},
      {message_id: 4, chat: {id: REAL.id, type: 'private'}, date: 1},
    ),
  ])
  add(
    {
      update_id: 504,
      callback_query: {
        id: '99887766',
        from,
        chat_instance: '-1',
        data: 'z',
        message: {
          message_id: 4,
          from: {id: 1, is_bot: true, first_name: 'Shop', username: 'shop_bot'},
          chat,
          date: 1,
          text: 'Pick one',
          reply_markup: menu,
        },
      },
    },
    [
      call('answerCallbackQuery', {callback_query_id: '99887766', text: 'Saved'}),
      call('editMessageText', {chat_id: REAL.id, message_id: 4, text: 'You picked Pizza'}),
    ],
  )
  add(
    {
      update_id: 505,
      message: msg(5, {contact: {phone_number: REAL.phone, first_name: REAL.first_name, user_id: REAL.id}}),
    },
    [call('sendMessage', {chat_id: REAL.id, text: `We will call ${REAL.phone}.`})],
  )
  add({update_id: 506, message: msg(6, {location: {latitude: 55.676098, longitude: 12.568337}})}, [
    call('sendMessage', {chat_id: REAL.id, text: 'You are at 55.676098, 12.568337'}),
  ])
  add({update_id: 507, message: msg(7, {text: `call me on ${REAL.phone} or mail m.v@example.dk`})}, [
    call('sendMessage', {chat_id: REAL.id, text: `Noted, ${REAL.first_name} ${REAL.last_name}: m.v@example.dk`}),
  ])
  add({update_id: 508, message: msg(8, {text: 'long'})}, [
    call('sendMessage', {chat_id: REAL.id, text: `${'x'.repeat(199)}… [cut: 500 characters in all]`}),
  ])
  return history
}

async function server(projectDir?: string, scriptCommand?: string): Promise<InspectorServer> {
  const s = await startInspectorServer({
    history: telegramHistory(),
    actions: {replay: () => Promise.reject(new Error('no replay here'))},
    key: KEY,
    secrets: [TOKEN, WEBHOOK_SECRET],
    ...(projectDir ? {projectDir} : {}),
    ...(scriptCommand ? {scriptCommand} : {}),
  })
  servers.push(s)
  return s
}

const post = (s: InspectorServer, body: unknown, headers: Record<string, string> = {}) =>
  request(s.port, '/api/chat-script', {
    method: 'POST',
    headers: {'x-bot-dev-key': KEY, 'content-type': 'application/json', ...headers},
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })

/** Every real value of the conversation, as it could appear in a file. */
const REAL_VALUES = [
  REAL.first_name,
  REAL.last_name,
  REAL.username,
  String(REAL.id),
  REAL.phone,
  '20123456',
  '55.676098',
  '12.568337',
  'm.v@example.dk',
  '99887766',
]

describe('POST /api/chat-script', () => {
  it('answers the range as an anonymised script, one chat only, naming what was replaced and what was left out', async () => {
    const s = await server()
    const res = await post(s, {first: 1, last: 8})
    expect(res.status, res.body).toBe(200)
    const answer = JSON.parse(res.body)
    expect(answer.entries).toBe(7)
    expect(answer.otherChats).toBe(1)
    expect(answer.path).toBeUndefined()
    const yaml: string = answer.yaml
    for (const real of REAL_VALUES) expect(yaml, real).not.toContain(real)
    expect(yaml).toContain('users:\n  ada: {first_name: Ada, last_name: Lovelace, username: ada, language_code: da}\n')
    expect(yaml).toContain(
      [
        'steps:',
        '  - user: /start',
        '  - bot: Hello, Ada! Your username is @ada.',
        '  - user: menu',
        '  - bot: {text: Pick one, buttons: [[Pasta, Pizza]]}',
        '  - press: Pizza',
        '  - call: {method: answerCallbackQuery, text: Saved}',
        '  - bot: {edit: You picked Pizza}',
        '  - user: call me on +15550100 or mail user1@example.com',
        '  - bot: "Noted, Ada Lovelace: user1@example.com"',
        '  - user: long',
        `  - bot: /^${'x'.repeat(199)}/`,
      ].join('\n'),
    )
    // The header says what was replaced, without a real value; the contact and the location have no step.
    expect(yaml).toMatch(
      /^# Recorded by bot dev's inspector from updates 501 to 508 \(7 in all; 1 of other chats left out\)/,
    )
    expect(yaml).toContain('#   - names of 1 person → Ada (last names too)\n')
    expect(yaml).toContain('#   - 1 phone number → +1555010N\n')
    expect(yaml).toContain('#   - 1 location → one fixed place (Greenwich)\n')
    expect(answer.summary).toContain('1 username → ada, bob…')
    expect(answer.skipped).toEqual([
      'update 505: a message with contact (no step for it)',
      'update 506: a message with location (no step for it)',
    ])
    expect(answer.replaced).toContainEqual({what: 'name', from: REAL.first_name, to: 'Ada'})
    expect(answer.replaced).toContainEqual({what: 'phone number', from: REAL.phone, to: '+15550100'})
  })

  it('with a name, writes test/NAME.chat.yml in the project (201) and never over an existing file (409)', async () => {
    const project = mkdtempSync(join(tmpdir(), 'inspector-script-'))
    const s = await server(project)
    const res = await post(s, {first: 3, last: 4, name: 'pizza'})
    expect(res.status, res.body).toBe(201)
    const answer = JSON.parse(res.body)
    expect(answer.path).toBe(join('test', 'pizza.chat.yml'))
    const text = readFileSync(join(project, 'test', 'pizza.chat.yml'), 'utf8')
    expect(text).toBe(answer.yaml)
    expect(text).toContain('  - user: menu\n  - bot: {text: Pick one, buttons: [[Pasta, Pizza]]}\n  - press: Pizza\n')
    for (const secret of [TOKEN, TOKEN.split(':')[1], WEBHOOK_SECRET, KEY]) expect(text).not.toContain(secret)
    for (const real of REAL_VALUES) expect(text, real).not.toContain(real)

    const again = await post(s, {first: 3, last: 4, name: 'pizza'})
    expect(again.status).toBe(409)
    // named as the 201 answer names it, relative to the project
    expect(JSON.parse(again.body).error).toMatch(/^test\/pizza\.chat\.yml exists already: pick another name/)
    expect(readFileSync(join(project, 'test', 'pizza.chat.yml'), 'utf8')).toBe(text)
  })

  it('writes bot: only when the session runs a command bot test would not run by default, as :save does', async () => {
    // the default command: no bot: line (the text answer and the file alike)
    const plain = JSON.parse((await post(await server(), {first: 3, last: 4})).body).yaml as string
    expect(plain).not.toMatch(/^bot:/m)
    const project = mkdtempSync(join(tmpdir(), 'inspector-script-bot-'))
    const s = await server(project, 'python3 bot.py')
    const res = await post(s, {first: 3, last: 4, name: 'py'})
    expect(res.status, res.body).toBe(201)
    const text = readFileSync(join(project, 'test', 'py.chat.yml'), 'utf8')
    expect(text).toMatch(/\n\nbot: python3 bot\.py\nusers:\n/)
    expect(JSON.parse((await post(s, {first: 3, last: 4})).body).yaml).toContain('\nbot: python3 bot.py\n')
  })

  it('refuses a bad request in one line with the fix, writing nothing', async () => {
    const project = mkdtempSync(join(tmpdir(), 'inspector-script-'))
    const s = await server(project)
    for (const [body, status, error] of [
      ['{not json', 400, /not valid JSON/],
      [{last: 2}, 400, /first is missing/],
      [{first: 1, last: 2, extra: 1}, 400, /unknown field "extra"/],
      [{first: 1, last: 2, name: '../../etc/x'}, 400, /cannot name a script/],
      [{first: 900, last: 901}, 404, /no entries with seq 900 to 901/],
    ] as const) {
      const res = await post(s, body)
      expect(res.status, res.body).toBe(status)
      const answer = JSON.parse(res.body)
      expect(answer.error).toMatch(error)
      expect(answer.fix).toBeTruthy()
    }
    expect(existsSync(join(project, 'test'))).toBe(false)
    const get = await request(s.port, '/api/chat-script', {headers: {'x-bot-dev-key': KEY}})
    expect(get.status).toBe(405)
    // Without a project folder there is nothing to write to: the text only.
    const bare = await server()
    expect((await post(bare, {first: 1, last: 1, name: 'x'})).status).toBe(409)
  })

  it('follows the key and Origin rules of the inspector: 401 without the key, 403 from another site', async () => {
    const project = mkdtempSync(join(tmpdir(), 'inspector-script-'))
    const s = await server(project)
    const noKey = await request(s.port, '/api/chat-script', {
      method: 'POST',
      body: JSON.stringify({first: 1, last: 2, name: 'a'}),
    })
    expect(noKey.status).toBe(401)
    const foreign = await post(s, {first: 1, last: 2, name: 'a'}, {origin: 'https://evil.example'})
    expect(foreign.status).toBe(403)
    const sameSite = await post(s, {first: 1, last: 2, name: 'a'}, {origin: `http://127.0.0.1:${s.port}`})
    expect(sameSite.status).toBe(201)
    expect(existsSync(join(project, 'test', 'a.chat.yml'))).toBe(true)
  })
})

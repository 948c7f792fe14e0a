/**
 * Bot API 10.2-10.5 with real client libraries (issue 30 §1): grammY and Telegraf bots (through `bot.api.raw` and
 * `ctx.telegram.callApi`, as their typings predate these versions) answer widget queries, reply ephemerally to a
 * button press with callback_query_id alone, react to subscription and stopped_message_generation updates, and call
 * setMySettings; Debian's python-telegram-bot 13 drives the same through the control API.
 */
import {Bot as GrammyBot} from 'grammy'
import {Telegraf} from 'telegraf'
import {describe, expect, it} from 'vitest'
import {BotApiEmulator} from '../../src/emulator/index.js'
import {control, runGrammy, runTelegraf} from './bots.js'
import {runPython} from './python-support.js'
import {waitFor} from '../support/wait.js'

const USER = 1111
const KEYBOARD = {inline_keyboard: [[{text: 'go', callback_data: 'go'}]]}
const ALLOWED = ['message', 'callback_query', 'widget_query', 'subscription', 'stopped_message_generation']

type Raw = Record<string, (params: Record<string, unknown>) => Promise<any>>

/**
 * At Telegram's pace (timeScale 1): the bots answer widget queries within their 15 s and callback queries within
 * theirs; scaled by 0.01 (150 ms, 1.5 s) a loaded machine's bot misses them.
 */
async function emulator() {
  const emu = await BotApiEmulator.start({timeScale: 1})
  const {token} = emu.createBot({username: 'new_bot'})
  emu.sendUserMessage(token, {text: 'hi', userId: USER, firstName: 'Ada'})
  return {emu, token}
}

describe('Bot API 10.2-10.5 with grammY', () => {
  it('widget, widget query, ephemeral reply to a press, subscription and stopped generation; setMySettings', async () => {
    const {emu, token} = await emulator()
    const bot = new GrammyBot(token, {client: {apiRoot: emu.apiRoot}})
    const raw = bot.api.raw as unknown as Raw
    const seen: string[] = []
    bot.on('callback_query:data', (ctx) =>
      raw.sendMessage({text: 'only you', ephemeral_message_parameters: {callback_query_id: ctx.callbackQuery.id}}),
    )
    bot.use(async (ctx) => {
      const update = ctx.update as unknown as Record<string, Record<string, unknown>>
      if (update.widget_query) await raw.answerWidgetQuery({widget_query_id: update.widget_query.id, data: 'pong'})
      if (update.subscription) seen.push(`subscription ${update.subscription.state}`)
      if (update.stopped_message_generation) seen.push(`stopped ${update.stopped_message_generation.draft_id}`)
    })
    const stop = await runGrammy(emu, token, bot, 'polling', ALLOWED)
    try {
      expect(await raw.setMySettings({callback_query_mode: 'default', supports_inline_queries: true})).toBe(true)
      const me = (await bot.api.getMe()) as unknown as Record<string, unknown>
      expect(me).toMatchObject({supports_inline_queries: true, active_usernames: ['new_bot']})
      const widget = await raw.sendWidget({chat_id: USER, html: '<button>ping</button>', allow_queries: true})
      expect(widget.widget).toEqual({html: '<button>ping</button>'})
      const ada = emu.user(token, {id: USER})
      expect(await ada.tapWidget('ping')).toBe('pong')
      await bot.api.sendMessage(USER, 'press', {reply_markup: KEYBOARD})
      await ada.click('go')
      expect(emu.ephemeralMessages(token)).toEqual([
        expect.objectContaining({message_id: 0, text: 'only you', receiver_user: expect.objectContaining({id: USER})}),
      ])
      await ada.subscription('plan', 'canceled')
      await ada.stopGeneration(9)
      expect(seen).toEqual(['subscription canceled', 'stopped 9'])
    } finally {
      await stop()
      await emu.stop()
    }
  })
})

describe('a press on an ephemeral message with grammY (Bot API 10.2)', () => {
  it("the receiver's press reaches the bot as a callback_query carrying the ephemeral message; the bot edits it", async () => {
    const {emu, token} = await emulator()
    const bot = new GrammyBot(token, {client: {apiRoot: emu.apiRoot}})
    const raw = bot.api.raw as unknown as Raw
    const pressed: Array<Record<string, unknown>> = []
    bot.command('menu', (ctx) =>
      raw.sendMessage({
        chat_id: ctx.chat.id,
        text: 'only you',
        reply_markup: {inline_keyboard: [[{text: 'ok', callback_data: 'ok'}]]},
        ephemeral_message_parameters: {receiver_user_id: ctx.from!.id},
      }),
    )
    bot.callbackQuery('ok', async (ctx) => {
      const message = ctx.callbackQuery.message as unknown as Record<string, unknown>
      pressed.push(message)
      await ctx.answerCallbackQuery({text: 'done'})
      await raw.editEphemeralMessageText({
        chat_id: ctx.chat!.id,
        receiver_user_id: ctx.from.id,
        ephemeral_message_id: message.ephemeral_message_id,
        text: 'pressed',
      })
    })
    const stop = await runGrammy(emu, token, bot, 'polling', ALLOWED)
    try {
      const ada = emu.user(token, {id: USER})
      await ada.send('/menu')
      expect(ada.ephemeral.map((m) => m.text)).toEqual(['only you'])
      await ada.click('ok')
      await waitFor(() => emu.ephemeralMessages(token)[0]?.text === 'pressed', {
        what: 'the bot edited its ephemeral message',
      })
      expect(pressed).toEqual([
        expect.objectContaining({
          message_id: 0,
          chat: expect.objectContaining({id: USER}),
          receiver_user: expect.objectContaining({id: USER}),
          ephemeral_message_id: 1,
          text: 'only you',
        }),
      ])
      const answered = emu.calls(token).find((c) => c.method === 'answerCallbackQuery')
      expect(answered?.result).toBe(true)
    } finally {
      await stop()
      await emu.stop()
    }
  })
})

describe('Bot API 10.2-10.5 with Telegraf', () => {
  it('answers a widget query and replies ephemerally; the widget comes from ctx.telegram.callApi', async () => {
    const {emu, token} = await emulator()
    const bot = new Telegraf(token, {telegram: {apiRoot: emu.apiRoot}})
    const call = (method: string, params: Record<string, unknown>) =>
      bot.telegram.callApi(method as never, params as never) as Promise<unknown>
    bot.on('callback_query', (ctx) =>
      call('sendMessage', {text: 'psst', ephemeral_message_parameters: {callback_query_id: ctx.callbackQuery.id}}),
    )
    bot.use((ctx) => {
      const query = (ctx.update as unknown as {widget_query?: {id: string; data: string}}).widget_query
      if (query) return call('answerWidgetQuery', {widget_query_id: query.id, data: `got ${query.data}`})
    })
    const stop = await runTelegraf(emu, token, bot, 'polling', ALLOWED)
    try {
      const sent = (await call('sendWidget', {chat_id: USER, html: '<i>w</i>', is_shared: true})) as {
        widget: {id: string}
      }
      expect(sent.widget.id).toMatch(/^\d+$/)
      expect(await call('editSharedWidgetData', {widget_id: sent.widget.id, public_data: '{"n":1}'})).toBe(true)
      const ada = emu.user(token, {id: USER})
      expect(await ada.tapWidget('x')).toBe('got x')
      await bot.telegram.sendMessage(USER, 'press', {reply_markup: KEYBOARD})
      await ada.click('go')
      await waitFor(() => emu.ephemeralMessages(token).length === 1, {what: 'the ephemeral reply'})
      expect(emu.ephemeralMessages(token)[0]).toMatchObject({text: 'psst', chat: {id: USER}})
      expect(await call('setMySettings', {callback_query_mode: 'inline'})).toBe(true)
      const inline = emu.sendCallbackQuery(token, {data: 'go', userId: USER}).callback_query as Record<string, unknown>
      expect(inline.inline_message_id).toEqual(expect.any(String))
      expect(inline.message).toBeUndefined()
    } finally {
      await stop()
      await emu.stop()
    }
  })
})

/** python-telegram-bot 13 (Debian's): the bot side through PTB's `_post` for the methods it predates, the user side through the control API. */
const PTB_SCRIPT = String.raw`
import json, sys, urllib.request
import telegram
api, control, token, user = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
bot = telegram.Bot(token, base_url=api + '/bot')
def raw(method, data=None):
    return bot._post(method, data or {}, timeout=10)
def post(path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(control + '/bots/' + token + path, data=data, method='GET' if body is None else 'POST',
                                 headers={'Content-Type': 'application/json'})
    with urllib.request.urlopen(req) as res:
        return json.loads(res.read())
def updates(offset):
    return raw('getUpdates', {'offset': offset, 'timeout': 0, 'allowed_updates': json.dumps(
        ['message', 'widget_query', 'shared_widget_query', 'subscription', 'stopped_message_generation'])})
out = {}
out['settings'] = raw('setMySettings', {'has_topics_enabled': True, 'has_topic_sidebar': True})
me = raw('getMe')
out['me'] = [me['has_topic_sidebar'], me['active_usernames']]
widget = raw('sendWidget', {'chat_id': user, 'html': '<p>hi</p>', 'public_data': 'p'})
out['widget'] = widget['widget']
offset = 0
for u in updates(0):
    offset = u['update_id'] + 1
query = post('/widget_queries', {'data': 'tap', 'user_id': user})['widget_query']
got = updates(offset)
offset = got[-1]['update_id'] + 1
out['query'] = [got[-1]['widget_query']['data'], got[-1]['widget_query']['message_id'] == widget['message_id']]
out['answer'] = raw('answerWidgetQuery', {'widget_query_id': query['id'], 'data': 'ok'})
out['answered'] = post('/widget_queries/' + query['id'])
post('/subscriptions', {'invoice_payload': 'gold', 'state': 'failed', 'user_id': user})
post('/stopped_generations', {'draft_id': 3, 'chat_id': user})
got = updates(offset)
out['kinds'] = [sorted(k for k in u if k != 'update_id')[0] for u in got]
out['subscription'] = got[0]['subscription']['state']
sent = bot.send_message(user, 'secret', api_kwargs={'ephemeral_message_parameters': json.dumps({'receiver_user_id': user})})
out['ephemeral_id'] = sent.message_id
out['ephemeral'] = [m['text'] for m in post('/ephemeral_messages')['messages']]
out['edited'] = raw('editEphemeralMessageText', {'chat_id': user, 'receiver_user_id': user,
                                                        'ephemeral_message_id': 1, 'text': 'secret 2'})
out['deleted'] = raw('deleteEphemeralMessage', {'chat_id': user, 'receiver_user_id': user, 'ephemeral_message_id': 1})
print(json.dumps(out))
`

describe('Bot API 10.2-10.5 with python-telegram-bot 13 through the control API', () => {
  it('widget queries, subscription, stopped generation, ephemeral messages and setMySettings', async () => {
    const {emu, token} = await emulator()
    try {
      const python = await runPython(PTB_SCRIPT, [emu.apiRoot, emu.controlApiRoot, token, String(USER)])
      if (python.status !== 0 && /No module named .telegram/.test(python.stderr)) {
        if (process.env.CI) throw new Error(`python-telegram-bot 13 is missing: ${python.stderr}`)
        return
      }
      expect(python.status, python.stderr).toBe(0)
      const out = JSON.parse(python.stdout.trim().split('\n').at(-1)!)
      expect(out).toEqual({
        settings: true,
        me: [true, ['new_bot']],
        widget: {html: '<p>hi</p>', public_data: 'p'},
        query: ['tap', true],
        answer: true,
        answered: {answered: true, data: 'ok'},
        kinds: ['subscription', 'stopped_message_generation'],
        subscription: 'failed',
        ephemeral_id: 0,
        ephemeral: ['secret'],
        edited: true,
        deleted: true,
      })
      // the routes refuse bad input with the field named
      const badState = await control(emu, token, '/subscriptions', {invoice_payload: 'x', state: 'paused'})
      expect(badState).toEqual({status: 400, json: {error: 'state "paused" must be one of canceled, active, failed'}})
      const noWidget = await control(emu, token, '/shared_widget_queries', {widget_id: '9', data: 'x'})
      expect(noWidget.status).toBe(400)
      expect(noWidget.json.error).toMatch(/no shared widget 9/)
    } finally {
      await emu.stop()
    }
  })
})

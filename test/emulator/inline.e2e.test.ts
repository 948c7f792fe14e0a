/**
 * Inline mode. The control API and the conversation API send inline queries (only to a bot that
 * supports them, as Telegram), answerInlineQuery is validated with Telegram's texts, the test reads the answer, and
 * a chosen result gives chosen_inline_result (with an inline_message_id the bot can edit when it has a keyboard).
 */
import {Bot as GrammyBot} from 'grammy'
import {describe, expect, it} from 'vitest'
import {setup} from './helpers.js'
import {runPython} from './python-support.js'
import {waitFor} from '../support/wait.js'

const bad = (description: string) => ({ok: false, error_code: 400, description: `Bad Request: ${description}`})
const article = (id: string, extra: object = {}) => ({
  type: 'article' as const,
  id,
  title: `Result ${id}`,
  input_message_content: {message_text: `text ${id}`},
  ...extra,
})

describe('inline mode', () => {
  it('grammY answers user.inlineQuery; the chosen result with a keyboard can be edited by its inline_message_id', async () => {
    const {emu, token} = await setup({supportsInlineQueries: true})
    const bot = new GrammyBot(token, {client: {apiRoot: emu.apiRoot}})
    const chosen: any[] = []
    bot.on('inline_query', (ctx) =>
      ctx.answerInlineQuery(
        [article('1', {reply_markup: {inline_keyboard: [[{text: 'Like', callback_data: 'like'}]]}}), article('2')],
        {cache_time: 0},
      ),
    )
    bot.on('chosen_inline_result', async (ctx) => {
      chosen.push(ctx.chosenInlineResult)
      if (ctx.inlineMessageId) await ctx.api.editMessageTextInline(ctx.inlineMessageId, 'edited')
    })
    const running = bot.start({allowed_updates: ['inline_query', 'chosen_inline_result']})
    try {
      await waitFor(() => emu.isLongPolling(token), {what: 'grammY to poll'})
      expect((await bot.api.getMe()).supports_inline_queries).toBe(true)
      const ada = emu.user(token, {id: 61, firstName: 'Ada'})
      const answer = await ada.inlineQuery('cats', {chatType: 'private'})
      expect(answer?.results).toHaveLength(2)
      expect(answer).toMatchObject({cache_time: 0, is_personal: false, next_offset: ''})
      await ada.chooseInlineResult('1')
      expect(chosen[0]).toMatchObject({from: {id: 61, first_name: 'Ada'}, query: 'cats', result_id: '1'})
      expect(chosen[0].inline_message_id).toMatch(/^[A-Za-z0-9_-]{27}$/)
      const edit = emu.calls(token).find((c) => c.method === 'editMessageText')!
      expect(edit.result).toBe(true)
      await ada.inlineQuery('dogs')
      await ada.chooseInlineResult('2')
      expect(chosen[1].inline_message_id).toBeUndefined() // no keyboard, no inline_message_id (docs)
      await expect(ada.chooseInlineResult('9')).rejects.toThrow(/no result "9"; its results: 1, 2/)
    } finally {
      await bot.stop()
      await running
    }
  })

  it("validates answerInlineQuery with Telegram's texts", async () => {
    const {emu, token, api} = await setup({supportsInlineQueries: true})
    const query = emu.sendInlineQuery(token, {query: 'x', userId: 5}).inline_query as any
    expect(Object.keys(query)).toEqual(['id', 'from', 'query', 'offset'])
    const answer = (results: unknown, id = query.id) => api('answerInlineQuery', {inline_query_id: id, results})
    expect((await answer([article('1')], '42')).json).toEqual(
      bad('query is too old and response timeout expired or query ID is invalid'),
    )
    expect((await answer([article('1'), article('1')])).json).toEqual(bad('RESULT_ID_DUPLICATE'))
    expect((await answer([{type: 'article', id: '1', input_message_content: {message_text: 'x'}}])).json).toEqual(
      bad('can\'t parse inline query result: Can\'t find field "title"'),
    )
    expect((await answer([{type: 'article', id: '1', title: 't'}])).json).toEqual(
      bad('can\'t parse inline query result: Can\'t find field "message_text"'),
    )
    expect((await answer([{type: 'hologram', id: '1'}])).json).toEqual(
      bad('can\'t parse inline query result: type "hologram" is unsupported for the inline query result'),
    )
    expect((await answer([{type: 'photo', id: '1'}])).json).toEqual(
      bad('can\'t parse inline query result: Can\'t find field "photo_file_id"'),
    )
    expect((await answer(['x'])).json).toEqual(
      bad("can't parse inline query result: Inline query result must be an object"),
    )
    expect((await answer({a: 1})).json).toEqual(bad('expected an Array of inline query results'))
    expect((await answer(Array.from({length: 51}, (_, i) => article(String(i))))).json).toEqual(
      bad('too many inline query results specified'),
    )
    expect((await answer([article('1')])).json).toEqual({ok: true, result: true})
    expect((await answer([article('1')])).json).toEqual(
      bad('query is too old and response timeout expired or query ID is invalid'),
    ) // answered once
    expect(emu.inlineAnswer(token, query.id)).toMatchObject({results: [article('1')], cache_time: 300})
  })

  it('the control API sends inline queries, reads answers and chooses results; refuses a bot without inline mode', async () => {
    const {emu, token} = await setup()
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${emu.controlApiRoot}/bots/${token}${path}`, {
        method,
        headers: {'content-type': 'application/json'},
        ...(body !== undefined ? {body: JSON.stringify(body)} : {}),
      })
      return {status: res.status, json: (await res.json()) as any}
    }
    const refused = await call('POST', '/inline_queries', {query: 'x'})
    expect(refused.status).toBe(400)
    expect(refused.json.error).toMatch(/does not support inline queries/)
    // as /setinline in BotFather: getMe says so, and inline queries arrive
    const on = await call('POST', '/settings', {supports_inline_queries: true})
    expect(on.json.user.supports_inline_queries).toBe(true)
    expect((await call('POST', '/inline_queries', {query: 'x'})).status).toBe(200)
    expect((await call('POST', '/settings', {supports_inline_queries: 'yes'})).status).toBe(400)
    const other = emu.createBot({supportsInlineQueries: true})
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${emu.controlApiRoot}/bots/${other.token}${path}`, {
        method: 'POST',
        headers: {'content-type': 'application/json'},
        body: JSON.stringify(body),
      })
      return {status: res.status, json: (await res.json()) as any}
    }
    const sent = await post('/inline_queries', {query: 'pizza', user_id: 9, offset: '10', chat_type: 'group'})
    expect(sent.json.inline_query).toMatchObject({from: {id: 9}, chat_type: 'group', query: 'pizza', offset: '10'})
    const id = sent.json.inline_query.id
    const read = async () =>
      (await (await fetch(`${emu.controlApiRoot}/bots/${other.token}/inline_queries/${id}`)).json()) as any
    expect((await read()).answer).toBeNull()
    expect((await post(`/inline_queries/${id}/choose`, {result_id: '1'})).json.error).toMatch(/has not answered/)
    await fetch(`${emu.apiRoot}/bot${other.token}/answerInlineQuery`, {
      method: 'POST',
      headers: {'content-type': 'application/json'},
      body: JSON.stringify({inline_query_id: id, results: [article('1')], next_offset: '20'}),
    })
    expect((await read()).answer).toMatchObject({results: [{id: '1'}], next_offset: '20'})
    const chosen = await post(`/inline_queries/${id}/choose`, {result_id: '1'})
    expect(chosen.json.chosen_inline_result).toEqual({
      from: {id: 9, is_bot: false, first_name: 'Test', username: 'tester'},
      query: 'pizza',
      result_id: '1',
    })
    expect((await post('/inline_queries', {query: 'x', chat_type: 'secret'})).status).toBe(400)
    expect((await post('/inline_queries', {query: 'q'.repeat(257)})).status).toBe(400)
  })

  it('python-telegram-bot 13 (its inline bot example) answers an inline query made through the control API', async () => {
    const {emu, token} = await setup({supportsInlineQueries: true})
    const python = await runPython(PTB_INLINE, [emu.apiRoot, emu.controlApiRoot, token])
    if (python.status !== 0 && /No module named .telegram/.test(python.stderr)) {
      if (process.env.CI) throw new Error(python.stderr)
      return
    }
    expect(python.status, python.stderr).toBe(0)
    expect(JSON.parse(python.stdout.trim().split('\n').at(-1)!)).toEqual(['CAPS', 'Bold', 'Italic'])
  })
})

/** PTB 13's inlinebot example's answer (caps, bold, italic) to a query sent through the control API. */
const PTB_INLINE = `
import json, sys, urllib.request, uuid, telegram
from telegram import InlineQueryResultArticle, InputTextMessageContent, ParseMode
api_root, control, token = sys.argv[1], sys.argv[2], sys.argv[3]
bot = telegram.Bot(token, base_url=api_root + "/bot")
def call(method, path, body=None):
    req = urllib.request.Request(control + "/bots/" + token + path, method=method,
        data=None if body is None else json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(req))
call("POST", "/inline_queries", {"query": "hello", "user_id": 3})
update = bot.get_updates(timeout=0)[-1]
query = update.inline_query.query
results = [
    InlineQueryResultArticle(id=str(uuid.uuid4()), title="Caps", input_message_content=InputTextMessageContent(query.upper())),
    InlineQueryResultArticle(id=str(uuid.uuid4()), title="Bold", input_message_content=InputTextMessageContent(
        "<b>%s</b>" % query, parse_mode=ParseMode.HTML)),
    InlineQueryResultArticle(id=str(uuid.uuid4()), title="Italic", input_message_content=InputTextMessageContent(
        "<i>%s</i>" % query, parse_mode=ParseMode.HTML)),
]
update.inline_query.answer(results)
answer = call("GET", "/inline_queries/" + update.inline_query.id)["answer"]
print(json.dumps([r["title"].upper() if r["title"] == "Caps" else r["title"] for r in answer["results"]]))
`

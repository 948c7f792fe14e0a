/**
 * The api proxy answers calls about ids `bot trigger` made up (issue 23 item 7):
 * answerCallbackQuery / answerPreCheckoutQuery / answerInlineQuery of a synthetic query, getFile and
 * the download of a synthetic file, refundStarPayment of a synthetic charge. Those never reach the
 * api root (here the emulator, which would answer "query is too old"); everything else does. Each
 * call is still recorded, marked answeredLocally; a call's result is recorded too (the message_id
 * a send returned).
 */
import {describe, expect, it} from 'vitest'

import {LocalAnswers, QUERY_INVALID} from '../../src/inspector/proxy/local-answers.js'
import {DEFAULT_PHOTO} from '../../src/control/image.js'
import {setup} from '../emulator/helpers.js'
import {postJson, recordingProxy} from './api-proxy-helpers.js'
import {waitFor} from '../support/wait.js'

describe('api proxy: local answers for synthetic ids', () => {
  it('answers answerCallbackQuery for a synthetic query id itself, once, and records it; a real one goes upstream', async () => {
    const {emu, token} = await setup()
    const local = new LocalAnswers()
    local.addQuery('callback_query', '4242000001')
    const rec = await recordingProxy(emu.apiRoot, {local})
    const first = await postJson(`${rec.proxy.url}/bot${token}/answerCallbackQuery`, {
      callback_query_id: '4242000001',
      text: 'Thanks!',
    })
    expect(first).toMatchObject({status: 200, json: {ok: true, result: true}})
    // Telegram answers a second answer of the same query with its "query is too old" 400.
    const again = await postJson(`${rec.proxy.url}/bot${token}/answerCallbackQuery`, {callback_query_id: '4242000001'})
    expect(again).toMatchObject({status: 400, json: {ok: false, error_code: 400, description: QUERY_INVALID}})
    // An id the session did not make up is the api root's business.
    const real = await postJson(`${rec.proxy.url}/bot${token}/answerCallbackQuery`, {callback_query_id: '777'})
    expect(real.status).toBe(400)
    expect(emu.calls(token).map((c) => [c.method, c.params.callback_query_id])).toEqual([
      ['answerCallbackQuery', '777'],
    ])
    await waitFor(() => rec.calls.length === 3, {what: 'three call records'})
    expect(rec.calls[0]).toMatchObject({method: 'answerCallbackQuery', ok: true, answeredLocally: true})
    expect(rec.calls[1]).toMatchObject({ok: false, errorCode: 400, answeredLocally: true})
    expect(rec.calls[2].answeredLocally).toBeUndefined()
  })

  it('a form-encoded answerPreCheckoutQuery: ok false needs error_message; the waiter learns the answer', async () => {
    const {emu, token} = await setup()
    const local = new LocalAnswers()
    local.addQuery('pre_checkout_query', '9001')
    const answer = local.waitFor('9001', 5000)
    const rec = await recordingProxy(emu.apiRoot, {local})
    const post = (params: Record<string, string>) =>
      fetch(`${rec.proxy.url}/bot${token}/answerPreCheckoutQuery`, {
        method: 'POST',
        headers: {'content-type': 'application/x-www-form-urlencoded'},
        body: new URLSearchParams(params),
      }).then(async (r) => ({status: r.status, json: await r.json()}))
    expect(await post({pre_checkout_query_id: '9001', ok: 'false'})).toMatchObject({
      status: 400,
      json: {description: 'Bad Request: parameter "error_message" is required'},
    })
    expect(await post({pre_checkout_query_id: '9001', ok: 'false', error_message: 'Sold out'})).toMatchObject({
      status: 200,
      json: {ok: true},
    })
    expect(await answer).toMatchObject({ok: 'false', error_message: 'Sold out'})
    expect(emu.calls(token)).toEqual([])
  })

  it('getFile of a synthetic file and its download are served by the proxy', async () => {
    const {emu, token} = await setup()
    const local = new LocalAnswers()
    const kept = local.addFile(DEFAULT_PHOTO, {extension: 'png', mime: 'image/png'})
    const rec = await recordingProxy(emu.apiRoot, {local})
    const file = await postJson(`${rec.proxy.url}/bot${token}/getFile`, {file_id: kept.fileId})
    expect(file.json).toEqual({
      ok: true,
      result: {
        file_id: kept.fileId,
        file_unique_id: kept.uniqueId,
        file_size: DEFAULT_PHOTO.length,
        file_path: kept.path,
      },
    })
    const download = await fetch(`${rec.proxy.url}/file/bot${token}/${file.json.result.file_path}`)
    expect(download.status).toBe(200)
    expect(download.headers.get('content-type')).toBe('image/png')
    expect(Buffer.from(await download.arrayBuffer()).equals(DEFAULT_PHOTO)).toBe(true)
    // Another file id is the api root's: the emulator answers it (one it never issued: Telegram's refusal).
    const other = await postJson(`${rec.proxy.url}/bot${token}/getFile`, {file_id: 'AgACreal'})
    expect(other.json).toMatchObject({ok: false, description: 'Bad Request: invalid file_id'})
    expect(emu.calls(token).map((c) => c.method)).toEqual(['getFile'])
  })

  it('refundStarPayment of a synthetic charge: true once, then CHARGE_ALREADY_REFUNDED', async () => {
    const {emu, token} = await setup()
    const local = new LocalAnswers()
    local.addCharge('stxMADEUP')
    const rec = await recordingProxy(emu.apiRoot, {local})
    const url = `${rec.proxy.url}/bot${token}/refundStarPayment`
    expect((await postJson(url, {user_id: 5, telegram_payment_charge_id: 'stxMADEUP'})).json).toEqual({
      ok: true,
      result: true,
    })
    expect((await postJson(url, {user_id: 5, telegram_payment_charge_id: 'stxMADEUP'})).json.description).toBe(
      'Bad Request: CHARGE_ALREADY_REFUNDED',
    )
    expect(emu.calls(token)).toEqual([])
  })

  it("records a call's result: the message_id a send returned, short", async () => {
    const {emu, token} = await setup()
    emu.addChat(token, {id: 42, type: 'private', first_name: 'Ann'})
    const raws: unknown[] = []
    const rec = await recordingProxy(emu.apiRoot, {onCall: (_call, raw) => raws.push(raw)})
    const sent = await postJson(`${rec.proxy.url}/bot${token}/sendMessage`, {
      chat_id: 42,
      text: 'hi',
      reply_markup: {inline_keyboard: [[{text: 'A', callback_data: 'a'}]]},
    })
    await waitFor(() => raws.length === 1, {what: 'the raw call'})
    expect(raws[0]).toMatchObject({params: {chat_id: 42}, result: {message_id: sent.json.result.message_id}})
    expect((raws[0] as any).result.reply_markup.inline_keyboard[0][0].callback_data).toBe('a')
  })
})

describe('api proxy: the recorded result', () => {
  it('keeps a Message as its id, chat and date', async () => {
    const {emu, token} = await setup()
    emu.addChat(token, {id: 42, type: 'private', first_name: 'Ann'})
    const rec = await recordingProxy(emu.apiRoot)
    const sent = await postJson(`${rec.proxy.url}/bot${token}/sendMessage`, {chat_id: 42, text: 'hi'})
    await postJson(`${rec.proxy.url}/bot${token}/getMe`, {})
    await waitFor(() => rec.calls.length === 2, {what: 'two records'})
    expect(rec.calls[0].result).toEqual({
      message_id: sent.json.result.message_id,
      chat: {id: 42, type: 'private'},
      date: sent.json.result.date,
    })
    expect(rec.calls[1].result).toMatchObject({is_bot: true, username: 'test_bot'})
  })
})

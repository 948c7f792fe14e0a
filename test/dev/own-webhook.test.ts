/**
 * The bot's own setWebhook/deleteWebhook in a webhook session (issue 31, item 10), through the real
 * api proxy in front of the emulator: answered there as Telegram does, never forwarded, recorded as
 * answered here, the secret_token passed on for the relay, one line per method; once the session
 * no longer owns the webhook (polling), forwarded as they are.
 */
import {describe, expect, it} from 'vitest'

import {BotWebhookCalls} from '../../src/dev/webhook/bot-webhook-calls.js'
import {LocalAnswers} from '../../src/inspector/proxy/local-answers.js'
import {setup} from '../emulator/helpers.js'
import {postJson, recordingProxy} from '../inspector/api-proxy-helpers.js'
import {waitFor} from '../support/wait.js'

describe("the bot's own webhook calls", () => {
  it('are answered by the proxy while the session owns the webhook, recorded, and pass the secret on', async () => {
    const {emu, token} = await setup()
    let owned = true
    const secrets: string[] = []
    const told: string[] = []
    const own = new BotWebhookCalls({
      owned: () => owned,
      setBotSecret: (s) => secrets.push(s),
      onFirst: (m) => told.push(m),
    })
    const local = new LocalAnswers()
    const rec = await recordingProxy(emu.apiRoot, {
      local: {answer: (m, p) => own.answer(m, p) ?? local.answer(m, p), file: (p) => local.file(p)},
    })
    const call = (method: string, params: Record<string, unknown>) =>
      postJson(`${rec.proxy.url}/bot${token}/${method}`, params)

    expect(await call('setWebhook', {url: 'https://example.org/hook', secret_token: 'bots-own-secret'})).toMatchObject({
      status: 200,
      json: {ok: true, result: true, description: 'Webhook was set'},
    })
    expect(await call('setWebhook', {url: 'https://example.org/hook', secret_token: 'bad secret!'})).toMatchObject({
      status: 400,
      json: {ok: false, error_code: 400},
    })
    expect(await call('deleteWebhook', {})).toMatchObject({
      status: 200,
      json: {ok: true, result: true, description: 'Webhook was deleted'},
    })
    await call('setWebhook', {url: 'https://example.org/hook'})
    expect(secrets).toEqual(['bots-own-secret'])
    expect(told).toEqual(['setWebhook', 'deleteWebhook'])
    expect(emu.calls(token).filter((c) => /webhook/i.test(c.method))).toEqual([])
    await waitFor(() => rec.calls.length === 4, {what: 'four call records'})
    expect(rec.calls.map((c) => [c.method, c.ok, c.answeredLocally])).toEqual([
      ['setWebhook', true, true],
      ['setWebhook', false, true],
      ['deleteWebhook', true, true],
      ['setWebhook', true, true],
    ])

    // Polling: the session owns no webhook; the call goes to the api root.
    owned = false
    await call('deleteWebhook', {})
    expect(emu.calls(token).map((c) => c.method)).toEqual(['deleteWebhook'])
    await waitFor(() => rec.calls.length === 5, {what: 'the forwarded call record'})
    expect(rec.calls[4].answeredLocally).toBeUndefined()
  })
})

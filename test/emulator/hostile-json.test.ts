/**
 * JSON nested deep enough to overflow the stack of whatever walks it: every JSON the emulator reads
 * is bounded before anything walks it (the control API's bodies, the Bot API's parameters in JSON, form and multipart
 * bodies), and neither the webhook worker nor a waiting long poll can be taken down by an update that cannot be written
 * as JSON. After each hostile request a legitimate one still works.
 */
import {describe, expect, it} from 'vitest'
import {receiver, setup} from './helpers.js'
import {waitFor} from '../support/wait.js'

const DEPTH = 200_000
/** `{"x":[[[…]]]}`-shaped text, 200,000 arrays deep. */
const deepArray = (depth = DEPTH): string => '['.repeat(depth) + ']'.repeat(depth)
const deepUpdate = `{"message":{"message_id":1,"date":1,"chat":{"id":1,"type":"private"},"x":${deepArray()}}}`

/** The same as a JavaScript value, built without recursion. */
function deepValue(depth = DEPTH): unknown {
  let value: unknown = []
  for (let i = 0; i < depth; i++) value = [value]
  return value
}

async function post(url: string, body: string | FormData, contentType?: string) {
  const res = await fetch(url, {
    method: 'POST',
    ...(contentType ? {headers: {'content-type': contentType}} : {}),
    body,
  })
  return {status: res.status, text: await res.text()}
}

describe('a 200,000-level update POSTed to the control API', () => {
  for (const type of ['application/json', 'text/plain', undefined]) {
    it(`(${type ?? 'no content type'}) is refused, and getUpdates keeps answering`, async () => {
      const {emu, token, api} = await setup()
      const res = await post(`${emu.controlApiRoot}/bots/${token}/updates`, deepUpdate, type)
      // JSON nested too deep is a 400; any other body is not JSON at all (415) and is not even read
      if (type === 'application/json') {
        expect(res.status).toBe(400)
        expect(JSON.parse(res.text).error).toMatch(/nests objects and arrays deeper than 64 levels/)
      } else expect(res.status).toBe(415)
      expect(emu.pendingUpdates(token)).toEqual([])
      for (let i = 0; i < 3; i++) {
        const polled = await api('getUpdates', {timeout: 0})
        expect(polled.status).toBe(200)
        expect(polled.json).toEqual({ok: true, result: []})
      }
      // a legitimate update still goes through
      const ok = await post(`${emu.controlApiRoot}/bots/${token}/messages`, '{"text":"hi"}', 'application/json')
      expect(ok.status).toBe(200)
      expect((await api('getUpdates', {})).json.result).toHaveLength(1)
    })
  }

  it('64 levels are accepted, 65 are not', async () => {
    const {emu, token} = await setup()
    // {"message": {…, "x": [[…]]}}: the body's object and the message are two levels
    const nested = (arrays: number) =>
      `{"message":{"message_id":1,"date":${Math.floor(Date.now() / 1000)},"chat":{"id":1,"type":"private"},"x":${deepArray(arrays)}}}`
    expect((await post(`${emu.controlApiRoot}/bots/${token}/updates`, nested(62), 'application/json')).status).toBe(200)
    expect((await post(`${emu.controlApiRoot}/bots/${token}/updates`, nested(63), 'application/json')).status).toBe(400)
  })
})

describe('an update that cannot be written as JSON (queued through the JavaScript API)', () => {
  it('is dropped by a waiting long poll, which then answers the next update', async () => {
    const {emu, token, api} = await setup()
    const polling = api('getUpdates', {timeout: 5})
    await waitFor(() => emu.isLongPolling(token), {what: 'the long poll'})
    emu.injectUpdate(token, {
      message: {message_id: 1, date: Math.floor(Date.now() / 1000), chat: {id: 1, type: 'private'}, x: deepValue()},
    })
    emu.sendUserMessage(token, {text: 'after'})
    const answer = await polling
    expect(answer.status).toBe(200)
    expect(answer.json.result.map((u: any) => u.message.text)).toEqual(['after'])
  })

  it('is dropped by the webhook worker, which then delivers the next update', async () => {
    const {emu, token, api} = await setup()
    const hook = await receiver()
    expect((await api('setWebhook', {url: hook.url})).json.ok).toBe(true)
    emu.injectUpdate(token, {
      message: {message_id: 1, date: Math.floor(Date.now() / 1000), chat: {id: 1, type: 'private'}, x: deepValue()},
    })
    emu.sendUserMessage(token, {text: 'after'})
    await waitFor(() => hook.received.length === 1, {what: 'the next update delivered'})
    expect(hook.received[0].body.message.text).toBe('after')
    await waitFor(() => emu.pendingUpdates(token).length === 0, {what: 'the queue to empty'})
  })
})

describe('Bot API parameters nested deeper than the server reads (100 levels, td json_decode)', () => {
  it('JSON body: the server stops reading at the deep value and runs with what came before it', async () => {
    const {emu, token, base, api} = await setup()
    emu.sendUserMessage(token, {text: 'hi', userId: 5})
    const res = await post(
      `${base}/sendMessage`,
      `{"chat_id":5,"text":"before","reply_markup":{"inline_keyboard":${deepArray()}},"parse_mode":"HTML"}`,
      'application/json',
    )
    expect(res.status).toBe(200)
    expect(JSON.parse(res.text).result).toMatchObject({text: 'before'})
    expect(JSON.parse(res.text).result.reply_markup).toBeUndefined()
    const calls = await fetch(`${emu.controlApiRoot}/bots/${token}/calls`)
    expect(calls.status).toBe(200)
    expect((await api('getMe')).status).toBe(200)
  })

  it('brackets inside strings do not nest: a text of 300 "[" and an escaped quote is sent as it is', async () => {
    const {emu, token, base} = await setup()
    emu.sendUserMessage(token, {text: 'hi', userId: 5})
    const text = `${'['.repeat(150)}\\"${'{'.repeat(150)}`
    const res = await post(
      `${base}/sendMessage`,
      JSON.stringify({chat_id: 5, text, reply_markup: {inline_keyboard: [[{text, callback_data: 'x'}]]}}),
      'application/json',
    )
    expect(res.status).toBe(200)
    expect(JSON.parse(res.text).result.text).toBe(text)
    expect(JSON.parse(res.text).result.reply_markup.inline_keyboard[0][0].text).toBe(text)
  })

  it('form body: a deep reply_markup is a parse error; a deep unknown parameter does not break /calls', async () => {
    const {emu, token, base, api} = await setup()
    emu.sendUserMessage(token, {text: 'hi', userId: 5})
    const markup = await post(
      `${base}/sendMessage`,
      // brackets left as they are (a form decoder takes them so): percent-encoded they would pass td's 1 MiB of parameters
      `chat_id=5&text=x&reply_markup={"inline_keyboard":${deepArray()}}`,
      'application/x-www-form-urlencoded',
    )
    expect(markup.status).toBe(400)
    expect(JSON.parse(markup.text).description).toBe("Bad Request: can't parse reply keyboard markup JSON object")
    const unknown = await post(
      `${base}/sendMessage`,
      `chat_id=5&text=x&extra=${deepArray()}`,
      'application/x-www-form-urlencoded',
    )
    expect(unknown.status).toBe(200)
    const calls = await fetch(`${emu.controlApiRoot}/bots/${token}/calls`)
    expect(calls.status).toBe(200)
    const shown = ((await calls.json()) as any).calls
    expect(shown.at(-1).params.extra).toBe(deepArray()) // recorded as the text it was
    expect((await api('getMe')).status).toBe(200)
  })

  it('multipart body with a file: a deep field is recorded as text, the call and /calls answer', async () => {
    const {emu, token, base, api} = await setup()
    emu.sendUserMessage(token, {text: 'hi', userId: 5})
    const form = new FormData()
    form.set('chat_id', '5')
    form.set('reply_markup', `{"inline_keyboard":${deepArray()}}`)
    form.set('extra', `{"a":${deepArray()}}`)
    form.set('document', new Blob([Buffer.from('hello')]), 'hello.txt')
    const res = await post(`${base}/sendDocument`, form)
    expect(res.status).toBe(400)
    expect(JSON.parse(res.text).description).toBe("Bad Request: can't parse reply keyboard markup JSON object")
    const calls = await fetch(`${emu.controlApiRoot}/bots/${token}/calls`)
    expect(calls.status).toBe(200)
    const form2 = new FormData()
    form2.set('chat_id', '5')
    form2.set('extra', `{"a":${deepArray()}}`)
    form2.set('document', new Blob([Buffer.from('hello')]), 'hello.txt')
    const ok = await post(`${base}/sendDocument`, form2)
    expect(ok.status).toBe(200)
    expect((await fetch(`${emu.controlApiRoot}/bots/${token}/calls`)).status).toBe(200)
    expect((await api('getMe')).status).toBe(200)
  })

  it('a webhook reply with a deep value runs as the server reads it (without that value) and breaks nothing', async () => {
    const {emu, token, api} = await setup()
    const hook = await receiver(() => ({
      status: 200,
      headers: {'content-type': 'application/json'},
      body: `{"method":"sendMessage","chat_id":1111,"text":"r","reply_markup":{"inline_keyboard":${deepArray()}}}`,
    }))
    expect((await api('setWebhook', {url: hook.url})).json.ok).toBe(true)
    emu.sendUserMessage(token, {text: 'hi'})
    await waitFor(() => emu.calls(token).some((c) => c.source === 'webhook-reply'), {what: 'the webhook reply'})
    expect((await fetch(`${emu.controlApiRoot}/bots/${token}/calls`)).status).toBe(200)
    expect((await fetch(`${emu.controlApiRoot}/bots/${token}/state`)).status).toBe(200)
  })
})

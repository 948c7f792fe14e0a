/** Reading a webhook reply out of the bot's answer (WebhookActor.cpp handle). */
import {describe, expect, it} from 'vitest'

import {parseReply, runnableAsReply} from '../../src/dev/delivery/bridge/reply.js'

describe('parseReply', () => {
  it('reads JSON, urlencoded and multipart answers that name a method', async () => {
    expect(
      await parseReply(
        'application/json; charset=utf-8',
        Buffer.from('{"method":"sendMessage","chat_id":1,"text":"hi","reply_markup":{"a":1}}'),
      ),
    ).toEqual({method: 'sendMessage', params: {chat_id: 1, text: 'hi', reply_markup: {a: 1}}})
    expect(
      await parseReply('application/x-www-form-urlencoded', Buffer.from('method=sendMessage&chat_id=1&text=a+b')),
    ).toEqual({method: 'sendMessage', params: {chat_id: '1', text: 'a b'}})
    const form = new FormData()
    form.append('method', 'sendDocument')
    form.append('chat_id', '5')
    form.append('document', new Blob(['file body']), 'a.txt')
    const response = new Response(form)
    const parsed = await parseReply(response.headers.get('content-type')!, Buffer.from(await response.arrayBuffer()))
    expect(parsed?.method).toBe('sendDocument')
    expect(parsed?.params.chat_id).toBe('5')
    expect(await (parsed?.params.document as Blob).text()).toBe('file body')
  })

  it('finds nothing in an answer Telegram would not read as a reply', async () => {
    expect(await parseReply('application/json', Buffer.from(''))).toBeUndefined()
    expect(await parseReply('application/json', Buffer.from('ok'))).toBeUndefined()
    expect(await parseReply('application/json', Buffer.from('[1]'))).toBeUndefined()
    expect(await parseReply('application/json', Buffer.from('{"chat_id":1}'))).toBeUndefined()
    expect(await parseReply('text/plain', Buffer.from('{"method":"sendMessage"}'))).toBeUndefined()
    expect(await parseReply('', Buffer.from('{"method":"sendMessage"}'))).toBeUndefined()
  })
})

describe('runnableAsReply', () => {
  it('skips what Telegram skips: setWebhook, deleteWebhook, close, logOut and get*', () => {
    for (const m of ['setWebhook', 'deleteWebhook', 'close', 'logOut', 'getMe', 'getUpdates', 'GETCHAT'])
      expect(runnableAsReply(m)).toBe(false)
    for (const m of ['sendMessage', 'answerCallbackQuery', 'editMessageText', 'setMyCommands'])
      expect(runnableAsReply(m)).toBe(true)
  })
})

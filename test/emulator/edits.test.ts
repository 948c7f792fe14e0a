/**
 * Edits. editMessageMedia replaces the media and drops a keyboard left out; live locations are
 * edited and stopped as Telegram allows; every edit and stop method reads its target as the server does (inline_message_id
 * checked, message_id read as td reads it, latitude and longitude required).
 */
import {Telegraf} from 'telegraf'
import {describe, expect, it} from 'vitest'
import {setup} from './helpers.js'
import {png} from './media-fixtures.js'

const bad = (description: string) => ({ok: false, error_code: 400, description: `Bad Request: ${description}`})

describe('edits', () => {
  it('Telegraf: editMessageMedia replaces the photo and removes the keyboard left out', async () => {
    const {emu, token, api} = await setup()
    emu.sendUserMessage(token, {text: 'hi', userId: 3})
    const tg = new Telegraf(token, {telegram: {apiRoot: emu.apiRoot}}).telegram
    const keyboard = {inline_keyboard: [[{text: 'Next', callback_data: 'next'}]]}
    const first = await tg.sendPhoto(
      3,
      {source: png(400, 300), filename: 'a.png'},
      {caption: 'one', reply_markup: keyboard},
    )
    const edited: any = await tg.editMessageMedia(3, first.message_id, undefined, {
      type: 'photo',
      media: {source: png(1000, 500), filename: 'b.png'},
      caption: 'two',
    })
    expect(edited.photo.map((p: any) => [p.width, p.height])).toEqual([
      [90, 45],
      [320, 160],
      [800, 400],
      [1000, 500],
    ])
    expect(edited.photo[0].file_id).not.toBe(first.photo[0].file_id)
    expect(edited.caption).toBe('two')
    expect(edited.reply_markup).toBeUndefined()
    expect(edited.edit_date).toBeTypeOf('number')
    // a document replaces the photo: the photo field goes
    const doc: any = await tg.editMessageMedia(3, first.message_id, undefined, {
      type: 'document',
      media: 'https://example.com/report.pdf',
    })
    expect(doc.document).toMatchObject({file_name: 'report.pdf'})
    expect(doc.photo).toBeUndefined()
    expect(doc.caption).toBeUndefined()
    const text = (await api('sendMessage', {chat_id: 3, text: 'plain'})).json.result
    const media = (m: unknown, id = text.message_id) => api('editMessageMedia', {chat_id: 3, message_id: id, media: m})
    expect((await media({type: 'photo', media: 'https://example.com/c.jpg'})).json).toEqual(
      bad('there is no media in the message to edit'),
    )
    expect((await media('{')).json).toEqual(bad("can't parse input media JSON object"))
    expect((await media({type: 'photo'}, first.message_id)).json).toEqual(
      bad("can't parse InputMedia: media not found"),
    )
    expect((await media({type: 'sticker', media: 'https://example.com/s.webp'}, first.message_id)).json).toEqual(
      bad('can\'t parse InputMedia: type "sticker" is unsupported'),
    )
    // editMessageCaption and editMessageText also drop the keyboard left out
    const kept = (await api('sendMessage', {chat_id: 3, text: 'k', reply_markup: keyboard})).json.result
    expect(
      (await api('editMessageText', {chat_id: 3, message_id: kept.message_id, text: 'k2'})).json.result.reply_markup,
    ).toBeUndefined()
  })

  it('Telegraf: a live location is edited while live, then stopped; targets are read as the server reads them', async () => {
    const {emu, token, api} = await setup({supportsInlineQueries: true})
    emu.sendUserMessage(token, {text: 'hi', userId: 4})
    const tg = new Telegraf(token, {telegram: {apiRoot: emu.apiRoot}}).telegram
    const live = await tg.sendLocation(4, 52.5, 13.4, {live_period: 600})
    expect(live.location).toEqual({latitude: 52.5, longitude: 13.4, live_period: 600})
    const moved: any = await tg.editMessageLiveLocation(4, live.message_id, undefined, 52.51, 13.41, {heading: 90})
    expect(moved.location).toEqual({latitude: 52.51, longitude: 13.41, live_period: 600, heading: 90})
    const edit = (p: object) =>
      api('editMessageLiveLocation', {chat_id: 4, message_id: live.message_id, latitude: 1, longitude: 2, ...p})
    expect((await api('editMessageLiveLocation', {chat_id: 4, message_id: live.message_id, latitude: 1})).json).toEqual(
      bad('longitude is empty'),
    )
    expect((await edit({message_id: 'abc'})).json).toEqual(bad('message to edit not found'))
    expect((await edit({chat_id: undefined, message_id: undefined})).json).toEqual(
      bad('message identifier is not specified'),
    )
    expect((await edit({chat_id: undefined, message_id: undefined, inline_message_id: 'nope'})).json).toEqual(
      bad('invalid inline message identifier specified'),
    )
    expect(
      (await edit({chat_id: undefined, message_id: undefined, inline_message_id: 'AgAAAEVtSRMAAAAAAAAAAAEAAAA'})).json,
    ).toEqual(bad('MESSAGE_ID_INVALID'))
    expect(
      (await edit({message_id: `${live.message_id}`, latitude: 52.51, longitude: 13.41, heading: 90})).json,
    ).toEqual(
      bad(
        'message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message',
      ),
    )
    const still = await tg.sendLocation(4, 1, 1)
    expect((await edit({message_id: still.message_id})).json).toEqual(bad("message can't be edited"))
    const stopped: any = await (tg.stopMessageLiveLocation as (...args: unknown[]) => Promise<unknown>)(
      4,
      live.message_id,
    )
    expect(stopped.location).toMatchObject({latitude: 52.51, longitude: 13.41})
    expect((await edit({})).json).toEqual(bad("message can't be edited"))
    expect((await api('stopMessageLiveLocation', {chat_id: 4, message_id: live.message_id})).json).toEqual(
      bad("message can't be edited"),
    )
    // an inline message made by a chosen result: edited by its inline_message_id, keyboard replaced
    const query = emu.sendInlineQuery(token, {query: 'x', userId: 4}).inline_query as any
    await api('answerInlineQuery', {
      inline_query_id: query.id,
      results: [
        {
          type: 'article',
          id: 'a',
          title: 'A',
          input_message_content: {message_text: 'hello'},
          reply_markup: {inline_keyboard: [[{text: 'Go', callback_data: 'go'}]]},
        },
      ],
    })
    const chosen = emu.chooseInlineResult(token, query.id, 'a').chosen_inline_result as any
    const inline = {inline_message_id: chosen.inline_message_id}
    expect(
      (
        await api('editMessageText', {
          ...inline,
          text: 'hello',
          reply_markup: {inline_keyboard: [[{text: 'Go', callback_data: 'go'}]]},
        })
      ).json,
    ).toEqual(
      bad(
        'message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message',
      ),
    )
    expect((await api('editMessageText', {...inline, text: 'bye'})).json).toEqual({ok: true, result: true})
    expect((await api('editMessageCaption', {...inline, caption: 'c'})).json).toEqual(
      bad('there is no caption in the message to edit'),
    )
    expect((await api('editMessageReplyMarkup', inline)).json).toEqual(
      bad(
        'message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message',
      ),
    )
  })
})

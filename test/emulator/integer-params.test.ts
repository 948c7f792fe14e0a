/**
 * Integer parameters read as the server reads them, in every method that takes one: BA telegram-bot-api/Client.cpp
 * `get_integer_arg` (empty → the default, else td::to_integer<int32> clamped) and `get_message_id`, td
 * tdutils/td/utils/misc.h `to_integer` (leading digits, stop at the first other character; `+`, space, `0x` read 0).
 */
import {describe, expect, it} from 'vitest'
import {setup} from './helpers.js'

describe('integer parameters read as td::to_integer (BA Client.cpp get_integer_arg, get_message_id)', () => {
  it('sendLocation live_period/heading/proximity_alert_radius, sendPoll correct_option_id, the ephemeral and widget ids', async () => {
    const {emu, api, token} = await setup()
    emu.sendUserMessage(token, {text: 'hi', chatId: 91, userId: 91})
    // process_send_location_query: get_integer_arg("live_period" | "heading" | "proximity_alert_radius", 0)
    const live = await api('sendLocation', {
      chat_id: 91,
      latitude: 1,
      longitude: 2,
      live_period: '60abc',
      heading: '+5',
      proximity_alert_radius: '100.9',
    })
    expect(live.json.result.location).toMatchObject({live_period: 60, proximity_alert_radius: 100})
    expect(live.json.result.location.heading).toBeUndefined()
    const spaced = await api('sendLocation', {chat_id: 91, latitude: 1, longitude: 2, live_period: ' 60'})
    expect(spaced.json.result.location.live_period).toBeUndefined()
    // process_send_poll_query: get_integer_arg("correct_option_id", -1)
    const quiz = (correct: string) =>
      api('sendPoll', {chat_id: 91, question: 'q', options: ['a', 'b', 'c'], type: 'quiz', correct_option_id: correct})
    expect((await quiz('2nd')).json.result.poll.correct_option_id).toBe(2)
    expect((await quiz(' 2')).json.result.poll.correct_option_id).toBe(0)
    // empty: the default -1, which names no option (td's words)
    expect((await quiz('')).json.description).toBe('Bad Request: wrong quiz correct_option_id')
    // get_message_id: `+5` reads 0 → the server's `message identifier is not specified`
    expect((await api('deleteMessage', {chat_id: 91, message_id: '+5'})).json.description).toBe(
      'Bad Request: message identifier is not specified',
    )
    const sent = await api('sendMessage', {chat_id: 91, text: 'x'})
    expect((await api('deleteMessage', {chat_id: 91, message_id: `${sent.json.result.message_id}abc`})).json.ok).toBe(
      true,
    )
    // get_user_id on the ephemeral receiver: ` 91` reads 0
    expect(
      (await api('deleteEphemeralMessage', {chat_id: 91, receiver_user_id: ' 91', ephemeral_message_id: 1})).json
        .description,
    ).toBe('Bad Request: invalid receiver_user_id specified')
  })
})

/**
 * A user action against Telegram is the synthetic update `bot trigger` sends for it (src/control/online-actions.ts):
 * each action's input fields land at their fixture paths, react's emoji become ReactionType objects, send_media is a
 * photo only, and a field the action does not have is refused.
 */
import {describe, expect, it} from 'vitest'

import {onlineRequest, runsOnline, sessionActions} from '../../src/control/online-actions.js'
import {ActionError} from '../../src/control/protocol.js'

const press = () => ({data: 'like', messageId: 5, chatId: 42, userId: 42})

describe('onlineRequest', () => {
  it('writes each field of an action at its fixture path, in order', () => {
    const cases: Array<[string, Record<string, unknown>, unknown]> = [
      [
        'react',
        {message_id: 9, reaction: '🔥'},
        {
          kind: 'fixture',
          type: 'reaction',
          sets: [
            {path: ['message_reaction', 'message_id'], value: 9},
            {path: ['message_reaction', 'new_reaction'], value: [{type: 'emoji', emoji: '🔥'}]},
          ],
        },
      ],
      [
        'vote_poll',
        {poll_id: 'p', option_ids: [1]},
        {
          kind: 'fixture',
          type: 'poll-answer',
          sets: [
            {path: ['poll_answer', 'poll_id'], value: 'p'},
            {path: ['poll_answer', 'option_ids'], value: [1]},
          ],
        },
      ],
      [
        'inline_query',
        {query: 'cats'},
        {kind: 'fixture', type: 'inline', sets: [{path: ['inline_query', 'query'], value: 'cats'}]},
      ],
      [
        'send_business_message',
        {text: 'hi'},
        {
          kind: 'fixture',
          type: 'business-message',
          sets: [{path: ['business_message', 'text'], value: 'hi'}],
        },
      ],
      [
        'send_web_app_data',
        {data: 'd', button_text: 'B'},
        {
          kind: 'fixture',
          type: 'web-app-data',
          sets: [
            {path: ['message', 'web_app_data', 'data'], value: 'd'},
            {path: ['message', 'web_app_data', 'button_text'], value: 'B'},
          ],
        },
      ],
      [
        'widget_query',
        {data: 'w'},
        {kind: 'fixture', type: 'widget-query', sets: [{path: ['widget_query', 'data'], value: 'w'}]},
      ],
      [
        'update_subscription',
        {state: 'active'},
        {
          kind: 'fixture',
          type: 'subscription',
          sets: [{path: ['subscription', 'state'], value: 'active'}],
        },
      ],
      [
        'stop_generation',
        {draft_id: 3},
        {
          kind: 'fixture',
          type: 'stopped-generation',
          sets: [{path: ['stopped_message_generation', 'draft_id'], value: 3}],
        },
      ],
      ['block_bot', {}, {kind: 'fixture', type: 'member-blocked'}],
      ['react', {}, {kind: 'fixture', type: 'reaction'}],
    ]
    for (const [name, input, request] of cases)
      expect([name, onlineRequest(name, input, press)]).toEqual([name, request])
  })

  it('carries the chat and user given, a message as kind message, a press as the button found', () => {
    expect(onlineRequest('send_message', {text: 'hello', chat_id: -100, user_id: 7}, press)).toEqual({
      kind: 'message',
      text: 'hello',
      chatId: -100,
      userId: 7,
    })
    expect(onlineRequest('press_button', {label: 'Like'}, press)).toEqual({kind: 'callback', ...press()})
  })

  it('send_media is a photo with its bytes and caption; another kind is refused (409)', () => {
    expect(
      onlineRequest('send_media', {kind: 'photo', file: {data: 'AAAA', filename: 'a.png'}, caption: 'look'}, press),
    ).toEqual({
      kind: 'fixture',
      type: 'photo',
      sets: [{path: ['message', 'caption'], value: 'look'}],
      file: {base64: 'AAAA', name: 'a.png'},
    })
    const refused = (() => {
      try {
        onlineRequest('send_media', {kind: 'video'}, press)
      } catch (error) {
        return error
      }
    })()
    expect(refused).toBeInstanceOf(ActionError)
    expect(refused).toMatchObject({status: 409})
  })

  it('refuses a field the action does not have, and a message without text (400)', () => {
    expect(() => onlineRequest('inline_query', {query: 'x', nope: 1}, press)).toThrow(/unknown field "nope"/)
    expect(() => onlineRequest('send_message', {}, press)).toThrow(/text is required/)
  })
})

describe('sessionActions', () => {
  it('online lists only what it can fake; press_button takes a label and needs no field', () => {
    const online = sessionActions(false)
    expect(online.every((a) => runsOnline(a.name))).toBe(true)
    const pressButton = online.find((a) => a.name === 'press_button')
    expect(pressButton?.params).toMatchObject({properties: {label: {type: 'string'}}})
    expect(pressButton?.params).not.toHaveProperty('required')
    expect(sessionActions(true).length).toBeGreaterThan(online.length)
  })
})

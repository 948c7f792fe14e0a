/**
 * The control port's request schemas (src/control/requests.ts): each refusal's exact error and fix text, the first
 * failing check winning in the order the checks are declared, and what passes (unknown fields dropped).
 */
import {describe, expect, it} from 'vitest'

import {
  checkFaultRequest,
  checkReplayRequest,
  checkScriptRequest,
  checkTriggerRequest,
  checkUpdateObject,
} from '../../src/control/requests.js'

const error = (r: object) => ('error' in r ? r.error : undefined)

describe('trigger requests', () => {
  it.each<[unknown, string]>([
    [[], 'The trigger request is not a JSON object.'],
    [null, 'The trigger request is not a JSON object.'],
    [{}, 'Unknown trigger kind undefined.'],
    [{kind: 'poke'}, 'Unknown trigger kind "poke".'],
    [{kind: 'message'}, 'The message text is empty.'],
    [{kind: 'message', text: '   '}, 'The message text is empty.'],
    [{kind: 'message', text: 5}, 'The message text is empty.'],
    [
      {kind: 'message', text: 'x'.repeat(4097)},
      'The message text is 4097 characters long; Telegram messages hold at most 4096.',
    ],
    // the text is checked before the parties, the user before the chat, the pair last
    [{kind: 'message', text: '', userId: -1}, 'The message text is empty.'],
    [{kind: 'message', text: 'hi', userId: 0, chatId: 0}, 'user id 0 is not a positive integer.'],
    [{kind: 'message', text: 'hi', userId: null}, 'user id null is not a positive integer.'],
    [{kind: 'message', text: 'hi', chatId: 1.5}, 'chat id 1.5 is not a non-zero integer.'],
    [
      {kind: 'message', text: 'hi', chatId: 5, userId: 6},
      "chat 5 is a private chat, whose id is its user's id, but the user is 6.",
    ],
    [{kind: 'callback', data: ''}, 'The callback data is empty.'],
    [{kind: 'callback'}, 'The callback data is empty.'],
    [
      {kind: 'callback', data: 'é'.repeat(33)},
      "The callback data is 66 bytes long; Telegram's callback_data holds 1-64 bytes.",
    ],
    [{kind: 'callback', data: 'x', messageId: '7'}, 'message id "7" is not a positive integer.'],
    [{kind: 'update'}, 'the update is not a JSON object.'],
    [
      {kind: 'update', update: {message: {}, edited_message: {}}},
      'the update has 2 fields besides update_id (message, edited_message); an update has exactly one.',
    ],
    [{kind: 'fixture'}, 'Unknown trigger type undefined.'],
    [{kind: 'fixture', type: 'selfie'}, 'Unknown trigger type "selfie".'],
    [{kind: 'fixture', type: 'photo', sets: [{path: []}]}, 'The --set list is not a list of {path, value}.'],
    [{kind: 'fixture', type: 'photo', sets: [[]]}, 'The --set list is not a list of {path, value}.'],
    [{kind: 'fixture', type: 'photo', sets: [{path: ['a-b']}]}, 'The --set list is not a list of {path, value}.'],
    [{kind: 'fixture', type: 'photo', template: []}, 'The fixture file has no update object.'],
    [{kind: 'fixture', type: 'photo', template: {update: 1}}, 'The fixture file has no update object.'],
    [
      {kind: 'fixture', type: 'photo', template: {update: {}, defaults: []}},
      'The fixture file\'s "defaults" is not an object.',
    ],
    // a bad set wins over a file given to a non-photo; the file's place wins over its shape
    [
      {kind: 'fixture', type: 'reaction', sets: 'x', file: {base64: '!!'}},
      'The --set list is not a list of {path, value}.',
    ],
    [{kind: 'fixture', type: 'reaction', file: {base64: '!!'}}, 'A file goes with a photo, not a reaction.'],
    [{kind: 'fixture', type: 'photo', file: {base64: '!!'}}, 'The photo is not base64.'],
    [{kind: 'fixture', type: 'photo', file: {}}, 'The photo is not base64.'],
    [{kind: 'fixture', type: 'photo', file: 'AAAA'}, 'The photo is not base64.'],
    [{kind: 'fixture', type: 'photo', file: {base64: 'A'.repeat(7_000_000)}}, 'The photo is over 5 MB.'],
    [{kind: 'fixture', type: 'photo', file: {base64: 'AAAA', name: 3}}, 'The photo name is not a string.'],
    [{kind: 'fixture', type: 'photo', file: {base64: 'AAAA'}, userId: -3}, 'user id -3 is not a positive integer.'],
  ])('%j → %s', (request, text) => {
    const r = checkTriggerRequest(request)
    expect(error(r)).toBe(text)
    expect('fix' in r && r.fix.length > 0 && !r.fix.includes('\u0000')).toBe(true)
  })

  it('keeps its own fix texts', () => {
    expect(checkTriggerRequest({kind: 'message', text: 'hi', chatId: 5, userId: 6})).toEqual({
      error: "chat 5 is a private chat, whose id is its user's id, but the user is 6.",
      fix: 'Leave --user out (the user is the chat), or use a negative --chat for a group.',
    })
    expect(checkTriggerRequest({kind: 'poke'})).toEqual({
      error: 'Unknown trigger kind "poke".',
      fix: 'Use "message", "callback", "update" or "fixture".',
    })
  })

  it('passes a valid request on, unknown fields dropped', () => {
    expect(
      checkTriggerRequest({
        kind: 'fixture',
        type: 'photo',
        sets: [{path: ['message', 'caption'], value: 'hi', x: 1}],
        template: {update: {message: {}}, defaults: {a: 1}, other: 2},
        file: {base64: 'AAAA', name: 'a.png'},
        chatId: -5,
        junk: true,
      }),
    ).toEqual({
      request: {
        kind: 'fixture',
        type: 'photo',
        sets: [{path: ['message', 'caption'], value: 'hi'}],
        template: {update: {message: {}}, defaults: {a: 1}},
        file: {base64: 'AAAA', name: 'a.png'},
        chatId: -5,
      },
    })
    expect(checkTriggerRequest({kind: 'update', update: {update_id: 3, message: {text: 'x'}}})).toEqual({
      request: {kind: 'update', update: {update_id: 3, message: {text: 'x'}}},
    })
  })
})

describe('updates from outside', () => {
  it('says which field is wrong, even one whose name holds the separator of error and fix', () => {
    expect(checkUpdateObject({'a\u0000b': {}}, 'x.json')).toEqual({
      error: 'x.json has the field "a\u0000b", which is not an update type.',
      fix: expect.stringMatching(/^Use one of: message, /),
    })
    expect(checkUpdateObject({update_id: 0, message: {}})?.error).toBe(
      'the update has update_id 0, which is not a positive 32-bit integer.',
    )
    expect(checkUpdateObject({message: []})?.error).toBe('"message" in the update is not an object.')
    expect(checkUpdateObject({update_id: 5})?.error).toBe(
      'the update has no update type field; an update has exactly one.',
    )
    expect(checkUpdateObject({message: {}})).toBeUndefined()
  })
})

describe('replay, fault and script requests', () => {
  it.each<[unknown, string]>([
    ['last', 'The replay request is not a JSON object.'],
    [[], 'The replay request is not a JSON object.'],
    [{}, 'updateId undefined is neither an update_id (a non-negative integer) nor "last".'],
    [{updateId: -1}, 'updateId -1 is neither an update_id (a non-negative integer) nor "last".'],
    [{updateId: 'last', update: 'x'}, 'the edited update is not a JSON object.'],
  ])('replay %j → %s', (body, text) => expect(error(checkReplayRequest(body))).toBe(text))

  it('passes a replay on', () => {
    expect(checkReplayRequest({updateId: 'last', x: 1})).toEqual({updateId: 'last'})
    expect(checkReplayRequest({updateId: 4, update: {message: {}}})).toEqual({updateId: 4, update: {message: {}}})
  })

  it.each<[unknown, string]>([
    [[], 'The fault is not a JSON object.'],
    // an unknown field is named before any other check
    [{extra: 1, method: 'x y'}, 'Unknown field "extra" in the fault.'],
    [{error_code: 429}, 'method undefined is not a Bot API method name.'],
    [{method: 'sendMessage', error_code: 200}, 'error_code 200 is not an HTTP error code (400-599).'],
    [
      {method: 'sendMessage', error_code: 429, description: ''},
      'description must be the error text (1-1000 characters).',
    ],
    [
      {method: 'sendMessage', error_code: 429, description: 'x', retry_after: 1.5},
      'retry_after 1.5 is not an integer.',
    ],
    [{method: 'sendMessage', error_code: 429, description: 'x', times: 0}, 'times 0 is not from 1 to 1000.'],
  ])('fault %j → %s', (body, text) => expect(error(checkFaultRequest(body))).toBe(text))

  it.each<[unknown, string]>([
    [null, 'The script request has no text.'],
    [{file: 'x'}, 'The script request has no text.'],
    [{text: 'steps: []', base_dir: 1}, 'base_dir must be a string.'],
  ])('script %j → %s', (body, text) => expect(error(checkScriptRequest(body))).toBe(text))
})

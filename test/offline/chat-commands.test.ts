/** What a typed chat line means (chat-commands.ts), on its own: the chat itself is covered by chat.test.ts. */
import {describe, expect, it} from 'vitest'

import {parseChatLine, pickButton, unknownCommandText} from '../../src/offline/chat-commands.js'
import type {ButtonView} from '../../src/offline/render.js'

describe('parseChatLine', () => {
  it('reads commands, their short forms and case, ignoring surrounding blanks', () => {
    expect(parseChatLine(':press 2')).toEqual({kind: 'press', arg: '2'})
    expect(parseChatLine('  :P  Large size ')).toEqual({kind: 'press', arg: 'Large size'})
    expect(parseChatLine(':press')).toEqual({kind: 'press', arg: ''})
    expect(parseChatLine(':help')).toEqual({kind: 'help'})
    expect(parseChatLine(':H')).toEqual({kind: 'help'})
    for (const quit of [':quit', ':q', ':exit', ':QUIT\r']) expect(parseChatLine(quit), quit).toEqual({kind: 'quit'})
    // bot dev --offline's keys, as chat commands
    for (const restart of [':r', ':restart', ':R']) expect(parseChatLine(restart)).toEqual({kind: 'restart'})
    for (const open of [':o', ':open']) expect(parseChatLine(open)).toEqual({kind: 'open'})
  })

  it('an unknown :word is not sent; :: sends one colon less; blank lines are nothing', () => {
    expect(parseChatLine(':frobnicate now')).toEqual({kind: 'unknown', name: 'frobnicate'})
    expect(unknownCommandText('frobnicate')).toMatch(/^✗ Unknown command :frobnicate\. .*"::"/)
    expect(parseChatLine('::press 1')).toEqual({kind: 'text', text: ':press 1'})
    expect(parseChatLine('   ')).toEqual({kind: 'empty'})
    expect(parseChatLine('\r')).toEqual({kind: 'empty'})
  })

  it('anything else is text, sent as typed (only a trailing CR dropped)', () => {
    expect(parseChatLine('/start')).toEqual({kind: 'text', text: '/start'})
    expect(parseChatLine('  hello: world \r')).toEqual({kind: 'text', text: '  hello: world '})
    expect(parseChatLine('a :press 1')).toEqual({kind: 'text', text: 'a :press 1'})
  })
})

describe('pickButton', () => {
  const buttons: ButtonView[] = [
    {text: 'Yes', kind: 'callback', data: 'y'},
    {text: 'yes', kind: 'callback', data: 'y2'},
    {text: 'Docs', kind: 'url', url: 'https://example.org'},
  ]

  it('by number (1-based), else by label: exact case first, then any case', () => {
    expect(pickButton(buttons, '3')).toEqual({button: buttons[2], n: 3})
    expect(pickButton(buttons, 'yes').button).toBe(buttons[1])
    expect(pickButton(buttons, 'Yes').button).toBe(buttons[0])
    expect(pickButton(buttons, 'DOCS').button).toBe(buttons[2])
  })

  it('nothing for a number past the end or an unknown label', () => {
    expect(pickButton(buttons, '4')).toEqual({button: undefined, n: 4})
    expect(pickButton(buttons, '0').button).toBeUndefined()
    expect(pickButton(buttons, 'Maybe')).toEqual({button: undefined, n: undefined})
  })
})

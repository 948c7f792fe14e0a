/**
 * parseChatScript: the example as data, and every error with its file:line:column and a fix.
 */
import {describe, expect, it} from 'vitest'
import {ChatScriptError, parseChatScript} from '../../src/emulator/index.js'

const EXAMPLE = `bot: npm run dev            # optional: the command to run
chat: private               # optional
users: {ada: {first_name: Ada}, bob: {first_name: Bob, language_code: de}}   # optional; the first one acts
steps:
  - user: /start                        # sends text as the acting user
  - bot: "Hi Ada!"                      # the bot's next message: exact text …
  - bot: /^Pick one/                    # … or a regular expression …
  - bot: {text: "Menu", buttons: [[Pasta, Pizza], [Back]]}
  - press: Pizza                        # a button of the bot's newest message, by its label
  - bot: {edit: "You picked Pizza"}
  - call: {method: answerCallbackQuery, text: "Saved"}
  - as: bob                             # who acts from here on
  - photo: fixtures/cat.jpg             # also file, voice, video, …
  - pay: true                           # pays the bot's newest invoice
  - silence: true                       # the bot sends nothing more
`

/** The error of parsing `text` as x.chat.yml. */
function error(text: string): ChatScriptError {
  try {
    parseChatScript(text, {file: 'x.chat.yml'})
  } catch (err) {
    if (err instanceof ChatScriptError) return err
    throw err
  }
  throw new Error('no error')
}

describe('parseChatScript', () => {
  it("reads the issue's example", () => {
    const script = parseChatScript(EXAMPLE, {file: 'start.chat.yml'})
    expect(script.bot).toBe('npm run dev')
    expect(script.chat).toBe('private')
    expect(script.users).toEqual([
      {name: 'ada', first_name: 'Ada'},
      {name: 'bob', first_name: 'Bob', language_code: 'de'},
    ])
    expect(script.steps.map((s) => [s.type, s.line, s.column])).toEqual([
      ['text', 5, 5],
      ['bot', 6, 5],
      ['bot', 7, 5],
      ['bot', 8, 5],
      ['press', 9, 5],
      ['bot', 10, 5],
      ['call', 11, 5],
      ['as', 12, 5],
      ['media', 13, 5],
      ['pay', 14, 5],
      ['silence', 15, 5],
    ])
    const [, hi, pick, menu, , edit, call] = script.steps
    expect(hi).toMatchObject({expect: {event: 'message', text: {kind: 'exact', text: 'Hi Ada!'}}})
    expect(pick).toMatchObject({expect: {text: {kind: 'regex', source: '/^Pick one/'}}})
    expect(menu).toMatchObject({expect: {text: {kind: 'exact', text: 'Menu'}, buttons: [['Pasta', 'Pizza'], ['Back']]}})
    expect(edit).toMatchObject({expect: {event: 'edit', text: {kind: 'exact', text: 'You picked Pizza'}}})
    expect(call).toMatchObject({method: 'answerCallbackQuery', params: {text: 'Saved'}})
  })

  it('a quoted "/…/" is exact text, a plain one a regular expression; numbers keep their spelling', () => {
    const script = parseChatScript('steps:\n  - bot: "/a/"\n  - bot: /a/i\n  - press: 1.50\n')
    expect(script.steps[0]).toMatchObject({expect: {text: {kind: 'exact', text: '/a/'}}})
    expect(script.steps[1]).toMatchObject({expect: {text: {kind: 'regex', source: '/a/i'}}})
    expect(script.steps[2]).toMatchObject({type: 'press', label: '1.50'})
    expect(parseChatScript('steps:\n  - user: hi\n').users).toEqual([{name: 'ada', first_name: 'Ada'}])
  })

  it('every table action is a step by its name; its fields are checked', () => {
    const script = parseChatScript('chat: supergroup\nsteps:\n  - boost_chat: {}\n  - block_bot: true\n')
    expect(script.steps.map((s) => s.type === 'action' && s.action)).toEqual(['boost_chat', 'block_bot'])
    const e = error('steps:\n  - boost_chat: {colour: red}\n')
    expect([e.line, e.column]).toEqual([2, 18])
    expect(e.message).toMatch(/^x\.chat\.yml:2:18: `boost_chat` has no key "colour"\./)
  })

  it.each([
    ['steps:\n  - user: [hi\n', 3, /not valid YAML/, /indentation/],
    ['steps:\n  - user: hi\n    bot: hi\n', 3, /a step has one key/, /own list item/],
    ['steps:\n  - usr: hi\n', 2, /there is no step "usr"/, /Did you mean `user`\?/],
    ['stepz:\n  - user: hi\n', 1, /a chat script has no key "stepz"/, /Did you mean `steps`\?/],
    ['chat: privat\nsteps:\n  - user: hi\n', 1, /chat "privat" is not a chat type/, /private, group/],
    ['users: {ada: {}}\nsteps:\n  - as: bob\n', 3, /there is no user "bob"/, /Name one of ada/],
    ['steps:\n  - bot: /(/\n', 2, /is not a valid regular expression/, /quote it/],
    ['steps:\n  - bot: {txt: hi}\n', 2, /`bot` has no key "txt"/, /Did you mean `text`\?/],
    ['steps:\n  - silence: yes\n', 2, /`silence` takes `true`/, /silence: true/],
    ['steps:\n  - user: {text: hi, user_id: 5}\n', 2, /takes no `user_id`/, /as: NAME/],
    ['steps:\n  - vote: first\n', 2, /option numbers/, /vote: \[0, 2\]/],
    ['steps:\n  - call: {text: x}\n', 2, /needs a `method`/, /answerCallbackQuery/],
    ['steps:\n  - bot: {buttons: [[A], B]}\n', 2, /each row is a list/, /rows of labels/],
    ['steps: []\n', 1, /`steps` is empty/, /user: \/start/],
    ['chat: group\n', 1, /has no `steps`/, /Add a list/],
    ['steps:\n  - user: a\n  - user: b\n    user: c\n', 4, /not valid YAML/, /Each key once/],
  ])('%j: line %i, the reason and the fix', (text, line, reason, fix) => {
    const e = error(text)
    expect(e.line).toBe(line)
    expect(e.column).toBeGreaterThan(0)
    expect(e.message.startsWith(`x.chat.yml:${line}:${e.column}: `)).toBe(true)
    expect(e.reason).toMatch(reason)
    expect(e.fix).toMatch(fix)
  })
})

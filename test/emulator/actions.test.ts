/**
 * The table of user actions (src/emulator/actions/): listed with their parameters as JSON Schema, run by name with
 * unchecked input and checked in the emulator's words, each one documented in docs/emulator.md and, when it names a
 * route, served by the control API.
 */
import {readFileSync} from 'node:fs'
import {describe, expect, it} from 'vitest'
import {InputError, listActions} from '../../src/emulator/index.js'
import {control} from './bots.js'
import {setup} from './helpers.js'

const DOCS = readFileSync(new URL('../../docs/emulator.md', import.meta.url), 'utf8')

describe('the table of user actions', () => {
  it('lists each action once: a description, a JSON Schema of its params, its result; each is in the docs', () => {
    const actions = listActions()
    expect(actions.length).toBeGreaterThanOrEqual(28)
    expect(new Set(actions.map((a) => a.name)).size).toBe(actions.length)
    for (const action of actions) {
      expect(action.name).toMatch(/^[a-z]+(_[a-z]+)*$/)
      expect(action.description.length, action.name).toBeGreaterThan(10)
      expect(action.result.length, action.name).toBeGreaterThan(2)
      const params = action.params as {
        type: string
        properties: Record<string, {description?: string}>
        required?: string[]
      }
      expect(params.type).toBe('object')
      for (const [name, schema] of Object.entries(params.properties))
        expect(schema.description, `${action.name}.${name}`).toMatch(/\S/)
      for (const name of params.required ?? []) expect(params.properties, action.name).toHaveProperty(name)
      expect(DOCS, `${action.name} is not in docs/emulator.md`).toContain(`\`${action.name}\``)
      if (action.route) expect(action.route).toMatch(/^POST \/_emulator\/bots\/\{token\}\/[a-z_{}/]+$/)
    }
    const send = actions.find((a) => a.name === 'send_message')!
    expect(send.route).toBe('POST /_emulator/bots/{token}/messages')
    expect((send.params as {required: string[]}).required).toEqual(['text'])
  })

  it('runs an action by name with unchecked input: checked in our words, its result as the control API answers', async () => {
    const {emu, token} = await setup()
    const sent = (await emu.runAction(token, 'send_message', {text: '/start', user_id: 7})) as {
      update_id: number
      message: {text: string; from: {id: number}; entities: unknown[]}
    }
    expect(sent.update_id).toBeGreaterThan(0)
    expect(sent.message).toMatchObject({text: '/start', from: {id: 7}, entities: [{type: 'bot_command'}]})
    expect(emu.pendingUpdates(token).map((u) => u.update_id)).toEqual([sent.update_id])

    const refused = async (name: string, input: unknown): Promise<InputError> => {
      const err = await emu.runAction(token, name, input).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(err, `${name} ${JSON.stringify(input)}`).toBeInstanceOf(InputError)
      return err as InputError
    }
    expect(await refused('send_message', {txt: 'hi'})).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^unknown field "txt"; the fields are text, chat_id, user_id/),
    })
    expect((await refused('send_message', {})).message).toBe('text is required (a non-empty string)')
    expect((await refused('send_message', {text: 'x', user_id: 0})).message).toBe('user_id 0 must be ≥ 1')
    expect((await refused('send_message', 'hello')).message).toBe('the input must be a JSON object')
    expect(await refused('vote_poll', {poll_id: '9', option_ids: [0]})).toMatchObject({
      status: 404,
      message: 'there is no poll 9 of this bot',
    })
    const unknown = await refused('fly', {})
    expect(unknown.status).toBe(404)
    expect(unknown.message).toMatch(/^there is no user action "fly"; the actions are send_message, send_media, /)
    expect((await refused('toString', {})).status).toBe(404)
    // nothing was queued by the refused ones
    expect(emu.pendingUpdates(token)).toHaveLength(1)
  })

  it('the JavaScript methods and the control API run the same entries', async () => {
    const {emu, token} = await setup()
    emu.addChat(token, {id: -1001, type: 'supergroup', title: 'Club'})
    emu.setBotStatus(token, {chatId: -1001, status: 'administrator', rights: ['can_invite_users']})
    const fromJs = emu.act(token, 'boost_chat', {chatId: -1001, userId: 5})
    const fromHttp = await control(emu, token, '/chats/-1001/boosts', {user_id: 6})
    expect(fromHttp.status).toBe(200)
    expect(fromJs.map((u) => Object.keys(u).filter((k) => k !== 'update_id'))).toEqual(
      (fromHttp.json.updates as Array<Record<string, unknown>>).map((u) =>
        Object.keys(u).filter((k) => k !== 'update_id'),
      ),
    )
    expect(await control(emu, token, '/chats/-1001/boosts', {user_id: 'x'})).toEqual({
      status: 400,
      json: {error: 'user_id "x" must be an integer'},
    })
  })
})

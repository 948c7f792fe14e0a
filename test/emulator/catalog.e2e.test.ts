/**
 * Every method of the Bot API answers, as Telegram does. The test walks the whole catalogue
 * (methods/catalog/, generated from the docs): no method answers `404 Not Found: method not found`, a method given
 * valid parameters answers a result of its documented type, bad parameters get Telegram's texts, and each set…/get…
 * pair round-trips. python-telegram-bot 13 (which reports a 404 as InvalidToken) and grammY call the methods the
 * issue names.
 */
import {describe, expect, it} from 'vitest'
import {BOT_API_VERSION, allMethods, methodAliases, type MethodSpec} from '../../src/emulator/methods/catalog/index.js'
import {Bot as GrammyBot} from 'grammy'
import {problems, sample} from './catalog-support.js'
import {type Raw, setup} from './helpers.js'
import {png} from './media-fixtures.js'
import {runPython} from './python-support.js'

const GROUP = -1001234567890
const USER = 1111
const FILE_URL = 'https://example.com/cat.png'

async function world() {
  const ctx = await setup()
  const {emu, token, api} = ctx
  emu.sendUserMessage(token, {text: 'hi', userId: USER, firstName: 'Ada'})
  emu.addChat(token, {id: GROUP, title: 'Group', type: 'supergroup'})
  emu.sendUserMessage(token, {text: 'hello group', chatId: GROUP, userId: USER, firstName: 'Ada'})
  const inPrivate = (await api('sendMessage', {chat_id: USER, text: 'a message'})).json.result.message_id as number
  const inGroup = (await api('sendMessage', {chat_id: GROUP, text: 'a group message'})).json.result.message_id as number
  return {...ctx, messages: {[USER]: inPrivate, [GROUP]: inGroup} as Record<number, number>}
}

/** Valid-looking parameters for a method, in chat `chat` (files as a URL; uploads as multipart by the caller). */
function paramsFor(spec: MethodSpec, chat: number, messageId: number): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const p of spec.params) {
    if (!p.required && p.name !== 'chat_id' && p.name !== 'message_id') continue
    if (p.name === 'chat_id' || p.name === 'from_chat_id') out[p.name] = chat
    else if (p.name === 'message_id') out[p.name] = messageId
    else if (p.name === 'message_ids') out[p.name] = [messageId]
    else if (/(^|_)user_id$/.test(p.name)) out[p.name] = USER
    else if (p.type === 'InputFile' || p.type === 'InputFile or String') out[p.name] = FILE_URL
    else out[p.name] = sample(p.type, FILE_URL)
  }
  return out
}

async function call(
  api: (m: string, p?: Record<string, unknown>) => Promise<Raw>,
  base: string,
  spec: MethodSpec,
  params: Record<string, unknown>,
) {
  const uploads = spec.params.filter((p) => p.type === 'InputFile' && p.name in params)
  if (uploads.length === 0) return api(spec.name, params)
  const form = new FormData()
  for (const [k, v] of Object.entries(params)) {
    if (uploads.some((u) => u.name === k))
      form.set(k, new Blob([new Uint8Array(png(64, 48))], {type: 'image/png'}), 'file.png')
    else form.set(k, typeof v === 'string' ? v : JSON.stringify(v))
  }
  const res = await fetch(`${base}/${spec.name}`, {method: 'POST', body: form})
  const text = await res.text()
  return {status: res.status, headers: res.headers, text, json: JSON.parse(text)} as Raw
}

describe(`the Bot API catalogue (Bot API ${BOT_API_VERSION})`, () => {
  it('every method answers: none is "method not found"; valid calls get a result of the documented type', async () => {
    const {api, base, messages} = await world()
    const methods = allMethods()
    expect(methods.length).toBeGreaterThanOrEqual(180)
    const notFound: string[] = []
    const malformed: string[] = []
    const succeeded: string[] = []
    const refused: Record<string, string> = {}
    for (const spec of methods) {
      if (['logOut', 'close', 'getUpdates', 'setWebhook', 'deleteWebhook'].includes(spec.name)) {
        succeeded.push(spec.name) // covered by their own tests (they change the instance's state)
        continue
      }
      let answer: Raw | undefined
      for (const chat of [USER, GROUP]) {
        answer = await call(api, base, spec, paramsFor(spec, chat, messages[chat]))
        if (answer.json?.ok) break
      }
      const a = answer!
      if (a.status === 404 && a.json?.description === 'Not Found: method not found') notFound.push(spec.name)
      else if (a.json?.ok) {
        const found = problems(a.json.result, spec.returns)
        if (found.length > 0) malformed.push(`${spec.name}: ${found.slice(0, 3).join('; ')}`)
        succeeded.push(spec.name)
      } else {
        // a refusal is Telegram's envelope with a 4xx and a prefixed description, never a crash of the emulator
        expect(a.status, `${spec.name}: ${a.text}`).toBeLessThan(500)
        expect(a.json?.description, spec.name).toMatch(/^(Bad Request|Forbidden|Too Many Requests): ./)
        refused[spec.name] = a.json.description
      }
    }
    for (const alias of Object.keys(methodAliases)) {
      const a = await api(alias, {})
      expect(a.json?.description ?? '', alias).not.toBe('Not Found: method not found')
    }
    expect(notFound).toEqual([])
    expect(malformed).toEqual([])
    console.log(
      `Bot API ${BOT_API_VERSION}: ${methods.length - notFound.length}/${methods.length} methods answer; ` +
        `${succeeded.length} succeed with the walk's parameters, ${Object.keys(refused).length} refuse them with Telegram's texts: ` +
        JSON.stringify(refused),
    )
  })

  /** set… → what the matching get… answers afterwards. */
  const PAIRS: Record<
    string,
    {set: Record<string, unknown>; get: [string, Record<string, unknown>]; expect: unknown}[]
  > = {
    setMyCommands: [
      {
        set: {commands: [{command: 'go', description: 'Go'}]},
        get: ['getMyCommands', {}],
        expect: [{command: 'go', description: 'Go'}],
      },
    ],
    setMyName: [
      {set: {name: 'Robo'}, get: ['getMyName', {}], expect: {name: 'Robo'}},
      {set: {name: 'Robot', language_code: 'de'}, get: ['getMyName', {language_code: 'de'}], expect: {name: 'Robot'}},
      {set: {name: 'Robo2'}, get: ['getMe', {}], expect: expect.objectContaining({first_name: 'Robo2'})},
    ],
    setMyDescription: [
      {set: {description: 'Does things'}, get: ['getMyDescription', {}], expect: {description: 'Does things'}},
      {
        set: {description: 'Macht Dinge', language_code: 'de'},
        get: ['getMyDescription', {language_code: 'de'}],
        expect: {description: 'Macht Dinge'},
      },
      {set: {}, get: ['getMyDescription', {language_code: 'fr'}], expect: {description: ''}},
    ],
    setMyShortDescription: [
      {set: {short_description: 'Short'}, get: ['getMyShortDescription', {}], expect: {short_description: 'Short'}},
    ],
    setChatMenuButton: [
      {
        set: {menu_button: {type: 'web_app', text: 'Open', web_app: {url: 'https://example.com/app'}}},
        get: ['getChatMenuButton', {}],
        expect: {type: 'web_app', text: 'Open', web_app: {url: 'https://example.com/app'}},
      },
      {
        set: {chat_id: USER, menu_button: {type: 'commands'}},
        get: ['getChatMenuButton', {chat_id: USER}],
        expect: {type: 'commands'},
      },
    ],
    setMyDefaultAdministratorRights: [
      {
        set: {rights: {can_pin_messages: true, can_invite_users: true}},
        get: ['getMyDefaultAdministratorRights', {}],
        expect: expect.objectContaining({can_pin_messages: true, can_invite_users: true, can_change_info: false}),
      },
      {
        set: {rights: {can_post_messages: true}, for_channels: true},
        get: ['getMyDefaultAdministratorRights', {for_channels: true}],
        expect: expect.objectContaining({can_post_messages: true}),
      },
    ],
    setManagedBotAccessSettings: [
      {
        set: {user_id: USER, is_access_restricted: true, added_user_ids: [USER]},
        get: ['getManagedBotAccessSettings', {user_id: USER}],
        expect: {is_access_restricted: true, added_users: [expect.objectContaining({id: USER, is_bot: false})]},
      },
    ],
    setChatTitle: [
      {
        set: {chat_id: GROUP, title: 'Renamed'},
        get: ['getChat', {chat_id: GROUP}],
        expect: expect.objectContaining({title: 'Renamed'}),
      },
    ],
    setChatDescription: [
      {
        set: {chat_id: GROUP, description: 'About'},
        get: ['getChat', {chat_id: GROUP}],
        expect: expect.objectContaining({description: 'About'}),
      },
    ],
    setChatPermissions: [
      {
        set: {chat_id: GROUP, permissions: {can_send_messages: true}},
        get: ['getChat', {chat_id: GROUP}],
        expect: expect.objectContaining({permissions: {can_send_messages: true}}),
      },
    ],
    setChatStickerSet: [
      {
        set: {chat_id: GROUP, sticker_set_name: 'cats'},
        get: ['getChat', {chat_id: GROUP}],
        expect: expect.objectContaining({sticker_set_name: 'cats'}),
      },
    ],
  }

  it('each set…/get… pair round-trips (every pair of the catalogue is covered)', async () => {
    const {api} = await world()
    const names = new Set(allMethods().map((m) => m.name))
    const pairs = [...names].filter((n) => n.startsWith('set') && names.has(`get${n.slice(3)}`))
    expect(pairs.length).toBeGreaterThanOrEqual(7)
    for (const pair of pairs) expect(Object.keys(PAIRS), `a round trip for ${pair}`).toContain(pair)
    for (const [setter, cases] of Object.entries(PAIRS)) {
      for (const c of cases) {
        const set = await api(setter, c.set)
        expect(set.json, `${setter} ${JSON.stringify(c.set)}`).toEqual({ok: true, result: true})
        const got = await api(c.get[0], c.get[1])
        expect(got.json?.result, `${c.get[0]} after ${setter}`).toEqual(c.expect)
      }
    }
  })

  it("checks parameters with the server's texts", async () => {
    const {api} = await world()
    const bad = (description: string) => ({ok: false, error_code: 400, description})
    expect((await api('getUserProfilePhotos', {})).json).toEqual(bad('Bad Request: invalid user_id specified'))
    expect((await api('getUserProfilePhotos', {user_id: 5})).json).toEqual(bad('Bad Request: user not found'))
    expect((await api('getUserProfilePhotos', {user_id: USER})).json).toEqual({
      ok: true,
      result: {total_count: 0, photos: []},
    })
    expect((await api('getMyName', {language_code: 'english'})).json).toEqual(
      bad('Bad Request: invalid language code specified'),
    )
    expect((await api('getChatMenuButton', {chat_id: 0})).json).toEqual(bad('Bad Request: invalid chat_id specified'))
    expect((await api('setChatMenuButton', {menu_button: '{'})).json).toEqual(
      bad("Bad Request: can't parse menu button JSON object"),
    )
    expect((await api('setChatMenuButton', {menu_button: {type: 'x'}})).json).toEqual(
      bad("Bad Request: can't parse menu button: MenuButton has unsupported type"),
    )
    expect((await api('setMyDefaultAdministratorRights', {rights: '['})).json).toEqual(
      bad("Bad Request: can't parse ChatAdministratorRights JSON object"),
    )
    expect((await api('pinChatMessage', {chat_id: USER, message_id: 999})).json).toEqual(
      bad('Bad Request: message to pin not found'),
    )
    expect((await api('pinChatMessage', {chat_id: 77, message_id: 1})).json).toEqual(bad('Bad Request: chat not found'))
    expect((await api('forwardMessages', {chat_id: USER, from_chat_id: USER, message_ids: '[0]'})).json).toEqual(
      bad('Bad Request: invalid message identifier specified'),
    )
    expect((await api('forwardMessages', {chat_id: USER, from_chat_id: USER})).json).toEqual(
      bad('Bad Request: message identifiers are not specified'),
    )
    expect((await api('sendVenue', {chat_id: USER, longitude: 1, title: 't', address: 'a'})).json).toEqual(
      bad('Bad Request: latitude is empty'),
    )
    expect((await api('sendGame', {chat_id: USER})).json).toEqual(
      bad('Bad Request: parameter "game_short_name" is required'),
    )
    expect((await api('answerWebAppQuery', {web_app_query_id: 'x', result: {}})).json).toEqual(
      bad('Bad Request: query is too old and response timeout expired or query ID is invalid'),
    )
    expect((await api('kickChatMember', {chat_id: GROUP, user_id: USER})).json).toEqual({ok: true, result: true})
    const name = 'cats_by_test_bot'
    const stickers = [{sticker: 'https://example.com/cat.webp', format: 'static', emoji_list: ['🐱']}]
    const create = (p: object) => api('createNewStickerSet', {user_id: USER, title: 'Cats', stickers, ...p})
    expect((await create({name: 'cats'})).json).toEqual(bad('Bad Request: invalid sticker set name is specified'))
    expect((await create({name, stickers: [{sticker: 'x', format: 'static'}]})).json).toEqual(
      bad('Bad Request: can\'t parse InputSticker: Can\'t find field "emoji_list"'),
    )
    expect((await create({name})).json).toEqual({ok: true, result: true})
    expect((await create({name})).json).toEqual(bad('Bad Request: sticker set name is already occupied'))
    expect((await api('setStickerSetTitle', {name, title: 'More cats'})).json.result).toBe(true)
    const set = (await api('getStickerSet', {name})).json.result
    expect(Object.keys(set)).toEqual(['name', 'title', 'sticker_type', 'contains_masks', 'stickers'])
    expect(set).toMatchObject({
      name,
      title: 'More cats',
      sticker_type: 'regular',
      stickers: [{emoji: '🐱', set_name: name}],
    })
    expect(problems(set, 'StickerSet')).toEqual([])
    expect((await api('getStickerSet', {name: 'dogs_by_test_bot'})).json).toEqual(
      bad('Bad Request: STICKERSET_INVALID'),
    )
    const venue = (
      await api('sendVenue', {chat_id: USER, latitude: 1.5, longitude: 2.5, title: 'Cafe', address: 'Main St'})
    ).json.result
    expect(venue.venue).toEqual({location: {latitude: 1.5, longitude: 2.5}, title: 'Cafe', address: 'Main St'})
  })

  it('python-telegram-bot 13 and grammY call the methods the issue names without "method not found"', async () => {
    const {emu, token} = await world()
    const bot = new GrammyBot(token, {client: {apiRoot: emu.apiRoot}})
    const named = [
      'getUserProfilePhotos',
      'getMyName',
      'getMyDescription',
      'getMyShortDescription',
      'getChatMenuButton',
      'getMyDefaultAdministratorRights',
      'getStickerSet',
      'getCustomEmojiStickers',
      'getForumTopicIconStickers',
      'getBusinessConnection',
      'getGameHighScores',
      'getUserChatBoosts',
      'getAvailableGifts',
      'getStarTransactions',
    ]
    const args: Record<string, Record<string, unknown>> = {
      getUserProfilePhotos: {user_id: USER},
      getStickerSet: {name: 'cats'},
      getCustomEmojiStickers: {custom_emoji_ids: ['5368324170671202286']},
      getBusinessConnection: {business_connection_id: 'abc'},
      getGameHighScores: {user_id: USER, chat_id: USER, message_id: 1},
      getUserChatBoosts: {chat_id: GROUP, user_id: USER},
    }
    for (const name of named) {
      const outcome = await (bot.api.raw as any)[name](args[name] ?? {}).then(
        () => 'ok',
        (err: {error_code?: number; description?: string}) => `${err.error_code} ${err.description}`,
      )
      expect(outcome, name).not.toMatch(/^404/)
    }
    const python = await runPython(PTB_SCRIPT, [emu.apiRoot, token, String(USER)])
    if (python.status !== 0 && /No module named .telegram/.test(python.stderr)) {
      if (process.env.CI) throw new Error(`python-telegram-bot 13 is missing: ${python.stderr}`)
      return
    }
    expect(python.status, python.stderr).toBe(0)
    const results = JSON.parse(python.stdout.trim().split('\n').at(-1)!)
    for (const [name, outcome] of Object.entries(results)) expect(outcome, name).not.toMatch(/InvalidToken|Not Found/)
    expect(results.get_user_profile_photos).toBe('ok 0')
    expect(results.get_chat_menu_button).toBe('ok commands')
    expect(results.get_my_default_administrator_rights).toBe('ok False')
    expect(results.get_sticker_set).toBe('BadRequest: Stickerset_invalid')
  })
})

/** python-telegram-bot 13: each call's outcome, as JSON on the last line. */
const PTB_SCRIPT = `
import json, sys
import telegram
api_root, token, user = sys.argv[1], sys.argv[2], int(sys.argv[3])
bot = telegram.Bot(token, base_url=api_root + "/bot")
calls = {
  "get_user_profile_photos": lambda: "ok %d" % bot.get_user_profile_photos(user).total_count,
  "get_chat_menu_button": lambda: "ok " + bot.get_chat_menu_button().type,
  "get_my_default_administrator_rights": lambda: "ok %s" % bot.get_my_default_administrator_rights().can_pin_messages,
  "get_sticker_set": lambda: "ok " + bot.get_sticker_set("cats").name,
  "get_custom_emoji_stickers": lambda: "ok %d" % len(bot.get_custom_emoji_stickers(["5368324170671202286"])),
  "get_forum_topic_icon_stickers": lambda: "ok %d" % len(bot.get_forum_topic_icon_stickers()),
  "get_game_high_scores": lambda: "ok %d" % len(bot.get_game_high_scores(user, chat_id=user, message_id=1)),
}
out = {}
for name, fn in calls.items():
  try:
    out[name] = fn()
  except telegram.error.TelegramError as err:
    out[name] = "%s: %s" % (type(err).__name__, err.message)
  except Exception as err:
    out[name] = "%s: %s" % (type(err).__name__, err)
print(json.dumps(out))
`

/**
 * Commands per scope and language. One list per (scope, language_code); getMyCommands answers that
 * list; deleteMyCommands per scope; scopes and command names checked with Telegram's texts; what a user sees is
 * resolved as the Bot API documents it (emu.commandsFor, GET …/commands).
 */
import {Telegraf} from 'telegraf'
import {describe, expect, it} from 'vitest'
import {setup} from './helpers.js'
import {runPython} from './python-support.js'

const GROUP = -1001000000001
const bad = (description: string) => ({ok: false, error_code: 400, description: `Bad Request: ${description}`})

describe('bot commands', () => {
  it('Telegraf keeps one list per scope and language; users see the documented resolution', async () => {
    const {emu, token, api} = await setup()
    emu.sendUserMessage(token, {text: 'hi', userId: 5, languageCode: 'de'})
    emu.addChat(token, {id: GROUP, title: 'G', type: 'supergroup'})
    const tg = new Telegraf(token, {telegram: {apiRoot: emu.apiRoot}}).telegram
    await tg.setMyCommands([{command: 'start', description: 'Start'}])
    await tg.setMyCommands([{command: 'start', description: 'Starten'}], {language_code: 'de'})
    await tg.setMyCommands([{command: 'private', description: 'In private'}], {scope: {type: 'all_private_chats'}})
    await tg.setMyCommands([{command: 'admin', description: 'Admins'}], {
      scope: {type: 'chat_administrators', chat_id: GROUP},
    })
    await tg.setMyCommands([{command: 'only_five', description: 'For 5'}], {
      scope: {type: 'chat_member', chat_id: GROUP, user_id: 5},
    })
    // the last call no longer wins globally: each (scope, language) has its own list
    expect(await tg.getMyCommands()).toEqual([{command: 'start', description: 'Start'}])
    expect(await tg.getMyCommands({language_code: 'de'})).toEqual([{command: 'start', description: 'Starten'}])
    expect(await tg.getMyCommands({scope: {type: 'all_private_chats'}})).toEqual([
      {command: 'private', description: 'In private'},
    ])
    expect(await tg.getMyCommands({scope: {type: 'all_group_chats'}})).toEqual([])
    // what users see (BotCommandScope, "Determining list of commands")
    const sees = (options: {chatId: number; userId?: number; languageCode?: string; isAdministrator?: boolean}) =>
      emu.commandsFor(token, options).map((c) => c.command)
    expect(sees({chatId: 5})).toEqual(['private'])
    expect(sees({chatId: GROUP, userId: 6, languageCode: 'de'})).toEqual(['start'])
    expect(emu.commandsFor(token, {chatId: GROUP, userId: 6, languageCode: 'de'})[0].description).toBe('Starten')
    expect(sees({chatId: GROUP, userId: 6, isAdministrator: true})).toEqual(['admin'])
    expect(sees({chatId: GROUP, userId: 5})).toEqual(['only_five'])
    const control = await fetch(
      `${emu.controlApiRoot}/bots/${token}/commands?chat_id=${GROUP}&user_id=7&is_administrator=true`,
    )
    expect(await control.json()).toEqual({commands: [{command: 'admin', description: 'Admins'}]})
    // deleteMyCommands per scope: the wider list shows again
    await tg.deleteMyCommands({scope: {type: 'all_private_chats'}})
    expect(sees({chatId: 5})).toEqual(['start'])
    expect(await tg.getMyCommands({scope: {type: 'chat_administrators', chat_id: GROUP}})).toHaveLength(1)
    // /start is stored as start (td strips one leading slash); an empty list clears
    expect((await api('setMyCommands', {commands: [{command: ' /help ', description: 'Help'}]})).json.result).toBe(true)
    expect((await api('getMyCommands')).json.result).toEqual([{command: 'help', description: 'Help'}])
    expect((await api('setMyCommands', {})).json.result).toBe(true)
    expect((await api('getMyCommands')).json.result).toEqual([])
  })

  it("refuses bad scopes and commands with Telegram's texts", async () => {
    const {emu, token, api} = await setup()
    emu.sendUserMessage(token, {text: 'hi', userId: 5})
    emu.addChat(token, {id: -100777, title: 'News', type: 'channel'})
    const set = (p: object) => api('setMyCommands', {commands: [{command: 'go', description: 'Go'}], ...p})
    expect((await set({scope: {type: 'everyone'}})).json).toEqual(
      bad("can't parse BotCommandScope: Unsupported type specified"),
    )
    expect((await set({scope: '{'})).json).toEqual(bad("can't parse BotCommandScope JSON object"))
    expect((await set({scope: {type: 'chat', chat_id: ''}})).json).toEqual(
      bad("can't parse BotCommandScope: Empty chat_id specified"),
    )
    expect((await set({scope: {type: 'chat_member', chat_id: 5, user_id: 0}})).json).toEqual(
      bad("can't parse BotCommandScope: Invalid user_id specified"),
    )
    expect((await set({scope: {type: 'chat', chat_id: 404}})).json).toEqual(bad('chat not found'))
    expect((await set({scope: {type: 'chat_administrators', chat_id: 5}})).json).toEqual(
      bad("can't use specified scope in private chats"),
    )
    expect((await set({scope: {type: 'chat', chat_id: -100777}})).json).toEqual(
      bad("can't change commands in channel chats"),
    )
    expect((await set({language_code: 'deu'})).json).toEqual(bad('invalid language code specified'))
    const cmd = (command: string, description = 'x') => api('setMyCommands', {commands: [{command, description}]})
    expect((await cmd('Start')).json).toEqual(bad('BOT_COMMAND_INVALID'))
    expect((await cmd('/')).json).toEqual(bad('command must be non-empty'))
    expect((await cmd('a'.repeat(33))).json).toEqual(bad('command length must not exceed 32'))
    expect((await cmd('ok', ' ')).json).toEqual(bad('command description must be non-empty'))
    expect((await cmd('ok', 'd'.repeat(257))).json).toEqual(bad('command description length must not exceed 256'))
    expect((await api('setMyCommands', {commands: '{'})).json).toEqual(bad("can't parse commands JSON object"))
    expect((await api('setMyCommands', {commands: {}})).json).toEqual(bad('expected an Array of BotCommand'))
    expect((await api('setMyCommands', {commands: [{command: 'x'}]})).json).toEqual(
      bad('can\'t parse BotCommand: Can\'t find field "description"'),
    )
    const many = Array.from({length: 101}, (_, i) => ({command: `c${i}`, description: 'd'}))
    expect((await api('setMyCommands', {commands: many})).json).toEqual(bad('BOT_COMMANDS_TOO_MUCH'))
  })

  it('python-telegram-bot 13 sets and reads commands per scope and language', async () => {
    const {emu, token} = await setup()
    emu.sendUserMessage(token, {text: 'hi', userId: 8})
    const python = await runPython(PTB_COMMANDS, [emu.apiRoot, token])
    if (python.status !== 0 && /No module named .telegram/.test(python.stderr)) {
      if (process.env.CI) throw new Error(python.stderr)
      return
    }
    expect(python.status, python.stderr).toBe(0)
    expect(JSON.parse(python.stdout.trim().split('\n').at(-1)!)).toEqual({
      default: ['start'],
      chat: ['secret'],
      french: ['demarrer'],
      after_delete: [],
    })
  })
})

const PTB_COMMANDS = `
import json, sys, telegram
api_root, token = sys.argv[1], sys.argv[2]
bot = telegram.Bot(token, base_url=api_root + "/bot")
bot.set_my_commands([("start", "Start")])
bot.set_my_commands([("secret", "Secret")], scope=telegram.BotCommandScopeChat(8))
bot.set_my_commands([("demarrer", "Démarrer")], language_code="fr")
names = lambda cs: [c.command for c in cs]
out = {"default": names(bot.get_my_commands()), "chat": names(bot.get_my_commands(scope=telegram.BotCommandScopeChat(8))),
       "french": names(bot.get_my_commands(language_code="fr"))}
bot.delete_my_commands(scope=telegram.BotCommandScopeChat(8))
out["after_delete"] = names(bot.get_my_commands(scope=telegram.BotCommandScopeChat(8)))
print(json.dumps(out))
`

/**
 * The newest Bot API versions with real grammY and Telegraf bots in both modes: guest mode (10.0: guest_message,
 * answerGuestQuery, supports_guest_queries) and join request queries (10.1: supports_join_request_queries, query_id,
 * answerChatJoinRequestQuery).
 */
import {Bot as GrammyBot} from 'grammy'
import {Telegraf} from 'telegraf'
import {describe, expect, it} from 'vitest'
import {BotApiEmulator} from '../../src/emulator/index.js'
import {MODES, control, runGrammy, runTelegraf} from './bots.js'
import {waitFor} from '../support/wait.js'

const QUERY_INVALID = 'Bad Request: query is too old and response timeout expired or query ID is invalid'
const ARTICLE = {type: 'article', id: '1', title: 'Hi', input_message_content: {message_text: 'Hello from a guest bot'}}

/**
 * Delays 100 times faster, but Telegram's 60 s webhook read timeout in real time (scaled to 600 ms, a loaded machine's
 * bot can outlast it and get the update twice). `timeScale` 1 where the bot must answer within a scaled window.
 */
async function emulator(
  options: {supportsGuestQueries?: boolean; supportsJoinRequestQueries?: boolean},
  timeScale = 0.01,
) {
  const emu = await BotApiEmulator.start({timeScale, webhookReadTimeoutMs: 60_000 / timeScale})
  const {token} = emu.createBot({username: 'new_bot', ...options})
  return {emu, token}
}

describe('guest mode (Bot API 10.0)', () => {
  for (const mode of MODES) {
    it(`grammY, ${mode}: a guest_message answered with answerGuestQuery, once`, async () => {
      const {emu, token} = await emulator({supportsGuestQueries: true})
      const bot = new GrammyBot(token, {client: {apiRoot: emu.apiRoot}})
      const answers: unknown[] = []
      bot.on('guest_message', async (ctx) => {
        answers.push(await ctx.api.answerGuestQuery(ctx.guestMessage!.guest_query_id!, ARTICLE as never))
        await ctx.api
          .answerGuestQuery(ctx.guestMessage!.guest_query_id!, ARTICLE as never)
          .catch((e: Error & {description: string}) => {
            answers.push(e.description)
          })
      })
      const stop = await runGrammy(emu, token, bot, mode)
      try {
        expect((await bot.api.getMe()).supports_guest_queries).toBe(true)
        const update = emu.summonGuest(token, {chatId: -777, userId: 42, text: '@new_bot hi'})
        expect(update.guest_message).toEqual({
          message_id: 1,
          from: {id: 42, is_bot: false, first_name: 'Test', username: 'tester'},
          chat: {id: -777, title: 'Test Group', type: 'group'},
          date: expect.any(Number),
          guest_query_id: expect.stringMatching(/^\d+$/),
          text: '@new_bot hi',
          entities: [{offset: 0, length: 8, type: 'mention'}],
        })
        await waitFor(() => answers.length === 2, {what: 'the two answers'})
        expect(answers).toEqual([{inline_message_id: expect.any(String)}, QUERY_INVALID])
        // the conversation API: resolved once the bot handled it (both of its answers are in)
        await emu.user(token, {id: 43, chatId: -778}).summon('@new_bot again')
        expect(answers).toHaveLength(4)
        // the chat it was summoned to is not the bot's
        await expect(bot.api.sendMessage(-777, 'may I?')).rejects.toThrow('chat not found')
      } finally {
        await stop()
        await emu.stop()
      }
    })

    it(`Telegraf, ${mode}: the update read raw (Telegraf 4.16 predates it)`, async () => {
      const {emu, token} = await emulator({supportsGuestQueries: true})
      const bot = new Telegraf(token, {telegram: {apiRoot: emu.apiRoot}})
      bot.use((ctx) => {
        const guest = (ctx.update as unknown as {guest_message?: {guest_query_id: string}}).guest_message
        if (guest)
          return ctx.telegram.callApi(
            'answerGuestQuery' as never,
            {guest_query_id: guest.guest_query_id, result: ARTICLE} as never,
          )
      })
      const stop = await runTelegraf(emu, token, bot, mode)
      try {
        const sent = await control(emu, token, '/guest_messages', {chat_id: 555, user_id: 42, text: 'hey @new_bot'})
        expect(sent.json.guest_message).toMatchObject({
          chat: {id: 555, type: 'private'},
          guest_query_id: expect.any(String),
        })
        await waitFor(() => emu.calls(token).some((c) => c.method === 'answerGuestQuery'), {what: 'the answer'})
        expect(emu.calls(token).find((c) => c.method === 'answerGuestQuery')?.result).toEqual({
          inline_message_id: expect.any(String),
        })
      } finally {
        await stop()
        await emu.stop()
      }
    })
  }

  it('a bot without guest mode cannot be summoned', async () => {
    const {emu, token} = await emulator({})
    try {
      expect(() => emu.summonGuest(token, {chatId: -1, text: 'hi'})).toThrow('the bot has no guest mode')
      expect((await control(emu, token, '/guest_messages', {chat_id: -1, text: 'hi'})).status).toBe(400)
    } finally {
      await emu.stop()
    }
  })
})

describe('join request queries (Bot API 10.1)', () => {
  for (const mode of MODES) {
    it(`grammY, ${mode}: a bot assigned to process join requests gets query_id and approves through it`, async () => {
      // timeScale 1: the bot has the real 10 s to answer the join request query (scaled to 100 ms, a loaded machine
      // misses it)
      const {emu, token} = await emulator({supportsJoinRequestQueries: true}, 1)
      const bot = new GrammyBot(token, {client: {apiRoot: emu.apiRoot}})
      bot.on('chat_join_request', (ctx) => ctx.api.answerChatJoinRequestQuery(ctx.chatJoinRequest.query_id!, 'approve'))
      const stop = await runGrammy(emu, token, bot, mode, ['chat_join_request', 'chat_member', 'message'])
      try {
        expect((await bot.api.getMe()).supports_join_request_queries).toBe(true)
        const ada = emu.user(token, {firstName: 'Ada', chatId: -1001111})
        await ada.requestJoin()
        const answered = emu.calls(token).find((c) => c.method === 'answerChatJoinRequestQuery')!
        expect(answered).toMatchObject({params: {result: 'approve'}, result: true})
        await waitFor(() => emu.chatMembers(token, -1001111).members.some((m) => m.status === 'member'), {
          what: 'the join',
        })
        expect((await bot.api.getChatMember(-1001111, ada.id)).status).toBe('member')
      } finally {
        await stop()
        await emu.stop()
      }
    })
  }
})

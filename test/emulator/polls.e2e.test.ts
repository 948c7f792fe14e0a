/**
 * Polls. sendPoll honours and validates quiz, is_anonymous, allows_multiple_answers, correct
 * options, is_closed, open_period/close_date and explanation with td's texts; stopPoll closes; users vote through
 * the control API (POST …/polls/{poll_id}/answers) and `user.vote`, giving poll_answer and poll updates.
 */
import {Bot as GrammyBot} from 'grammy'
import {Telegraf} from 'telegraf'
import {describe, expect, it} from 'vitest'
import {problems} from './catalog-support.js'
import {setup} from './helpers.js'
import {runPython} from './python-support.js'
import {waitFor} from '../support/wait.js'

const bad = (description: string) => ({ok: false, error_code: 400, description: `Bad Request: ${description}`})

describe('polls', () => {
  it("validates sendPoll with td's texts and answers every Poll field", async () => {
    const {emu, token, api} = await setup()
    emu.sendUserMessage(token, {text: 'hi'})
    const send = (p: object) => api('sendPoll', {chat_id: 1111, question: 'Q?', options: ['a', 'b'], ...p})
    expect((await send({type: 'quiz'})).json).toEqual(bad('correct quiz option list must be non-empty'))
    expect((await send({type: 'quiz', correct_option_id: 2})).json).toEqual(bad('wrong quiz correct_option_id'))
    expect((await send({type: 'quiz', correct_option_ids: [1, 0]})).json).toEqual(
      bad('correct quiz option list must be increasing'),
    )
    expect((await send({type: 'quiz', correct_option_ids: '[x'})).json).toEqual(
      bad("can't parse correct option identifiers JSON object"),
    )
    expect((await send({type: 'survey'})).json).toEqual(bad('unsupported poll type specified'))
    expect((await send({options: []})).json).toEqual(bad('poll must have at least one answer option'))
    expect((await send({options: Array.from({length: 13}, (_, i) => `o${i}`)})).json).toEqual(
      bad("poll can't have more than 12 options"),
    )
    expect((await send({options: ['x'.repeat(101)]})).json).toEqual(bad('poll options length must not exceed 100'))
    expect((await send({question: 'q'.repeat(301)})).json).toEqual(bad('poll question length must not exceed 300'))
    expect((await send({options: '{'})).json).toEqual(bad("can't parse options JSON object"))
    expect((await send({options: {a: 1}})).json).toEqual(bad('expected an Array of String as options'))
    expect((await send({members_only: true})).json).toEqual(bad('poll voters can be restricted only in channel chats'))
    const quiz = (
      await send({
        type: 'quiz',
        is_anonymous: false,
        correct_option_id: 1,
        explanation: '<b>b</b> is right',
        explanation_parse_mode: 'HTML',
        open_period: 60,
        options: ['a', {text: 'b'}],
      })
    ).json.result.poll
    expect(Object.keys(quiz)).toEqual([
      'id',
      'question',
      'options',
      'total_voter_count',
      'open_period',
      'close_date',
      'is_closed',
      'is_anonymous',
      'allows_multiple_answers',
      'allows_revoting',
      'members_only',
      'type',
      'correct_option_id',
      'correct_option_ids',
      'explanation',
      'explanation_entities',
    ])
    expect(quiz).toMatchObject({
      type: 'quiz',
      is_anonymous: false,
      allows_revoting: false,
      correct_option_id: 1,
      correct_option_ids: [1],
      explanation: 'b is right',
      explanation_entities: [{offset: 0, length: 1, type: 'bold'}],
      open_period: 60,
      options: [
        {persistent_id: '0', text: 'a', voter_count: 0},
        {persistent_id: '1', text: 'b', voter_count: 0},
      ],
    })
    expect(problems(quiz, 'Poll')).toEqual([])
    const closed = (await send({is_closed: true, allows_multiple_answers: true})).json.result
    expect(closed.poll).toMatchObject({
      is_closed: true,
      allows_multiple_answers: true,
      is_anonymous: true,
      type: 'regular',
    })
    // stopPoll: closes once, with the server's texts
    const open = (await send({})).json.result
    const stop = (id: number) => api('stopPoll', {chat_id: 1111, message_id: id})
    expect((await stop(open.message_id)).json.result).toMatchObject({id: open.poll.id, is_closed: true})
    expect((await stop(open.message_id)).json).toEqual(bad('poll has already been closed'))
    expect((await stop(999)).json).toEqual(bad('message with poll to stop not found'))
    const text = (await api('sendMessage', {chat_id: 1111, text: 'x'})).json.result
    expect((await stop(text.message_id)).json).toEqual(bad('message is not a poll'))
    expect((await stop(1)).json).toEqual(bad('message is not a poll')) // the user's own message
  })

  it('Telegraf: a user votes in a non-anonymous quiz through the control API; poll_answer then poll with counts', async () => {
    const {emu, token} = await setup()
    const bot = new Telegraf(token, {telegram: {apiRoot: emu.apiRoot}})
    const answers: unknown[] = []
    const polls: unknown[] = []
    bot.command('quiz', (ctx) =>
      ctx.replyWithQuiz('2 + 2?', ['3', '4', '5'], {correct_option_id: 1, is_anonymous: false}),
    )
    bot.on('poll_answer', async (ctx) => {
      answers.push(ctx.pollAnswer)
      await ctx.telegram.sendMessage(
        ctx.pollAnswer.user!.id,
        `${ctx.pollAnswer.user!.first_name} chose ${ctx.pollAnswer.option_ids}`,
      )
    })
    bot.on('poll', (ctx) => {
      polls.push(ctx.poll)
    })
    let launched = false
    const running = bot.launch({allowedUpdates: ['message', 'poll', 'poll_answer']}, () => {
      launched = true
    })
    try {
      await waitFor(() => launched && emu.isLongPolling(token), {what: 'Telegraf to poll'})
      emu.setUser(token, 21, {firstName: 'Ada'})
      emu.sendUserMessage(token, {text: '/quiz', userId: 21})
      const sent = await emu.waitForBotMessage(token, {chatId: 21})
      const pollId = (sent.result as any).poll.id
      const control = `${emu.controlApiRoot}/bots/${token}/polls/${pollId}/answers`
      const post = async (body: unknown) => {
        const res = await fetch(control, {
          method: 'POST',
          headers: {'content-type': 'application/json'},
          body: JSON.stringify(body),
        })
        return {status: res.status, json: (await res.json()) as any}
      }
      const voted = await post({user_id: 21, option_ids: [1]})
      expect(voted.status).toBe(200)
      expect(voted.json.update_ids).toHaveLength(2)
      expect(voted.json.poll.options.map((o: any) => o.voter_count)).toEqual([0, 1, 0])
      const reply = await emu.waitForBotMessage(token, {chatId: 21, predicate: (c) => c.method === 'sendMessage'})
      expect(reply.params.text).toBe('Ada chose 1')
      expect(answers[0]).toEqual({
        poll_id: pollId,
        user: {id: 21, is_bot: false, first_name: 'Ada', username: 'tester'},
        option_ids: [1],
        option_persistent_ids: ['1'],
      })
      await waitFor(() => polls.length === 1, {what: 'the poll update'})
      expect(polls[0]).toMatchObject({id: pollId, total_voter_count: 1, type: 'quiz'})
      // a quiz allows no second vote; options out of range; unknown polls
      expect((await post({user_id: 21, option_ids: [0]})).json.error).toMatch(/does not allow revoting/)
      expect((await post({user_id: 22, option_ids: [7]})).json.error).toMatch(/option 7 does not exist/)
      expect((await post({user_id: 22, option_ids: [0, 1]})).json.error).toMatch(/one answer only/)
      expect((await post({user_id: 22})).status).toBe(400)
      const unknown = await fetch(`${emu.controlApiRoot}/bots/${token}/polls/123/answers`, {
        method: 'POST',
        headers: {'content-type': 'application/json'},
        body: '{"option_ids":[0]}',
      })
      expect(unknown.status).toBe(404)
    } finally {
      bot.stop('test over')
      await running
    }
  })

  it('grammY: user.vote in an anonymous poll gives only the poll update; open_period closes the poll by itself', async () => {
    const {emu, token} = await setup({timeScale: 0.001})
    const bot = new GrammyBot(token, {client: {apiRoot: emu.apiRoot}})
    const seen: any[] = []
    bot.command('poll', (ctx) => ctx.replyWithPoll('Lunch?', ['pizza', 'salad'], {allows_multiple_answers: true}))
    bot.command('timed', (ctx) => ctx.replyWithPoll('Now?', ['yes', 'no'], {open_period: 5}))
    bot.on('poll', async (ctx) => {
      seen.push(ctx.poll)
      if (!ctx.poll.is_closed) await ctx.api.sendMessage(77, `votes: ${ctx.poll.options.map((o) => o.voter_count)}`)
    })
    bot.on('poll_answer', () => {
      throw new Error('an anonymous poll sends no poll_answer')
    })
    const running = bot.start({allowed_updates: ['message', 'poll', 'poll_answer']})
    try {
      await waitFor(() => emu.isLongPolling(token), {what: 'grammY to poll'})
      const user = emu.user(token, {id: 77, firstName: 'Bo'})
      await user.send('/poll')
      const replies = await user.vote([0, 1])
      expect(replies.map((m) => m.text)).toEqual(['votes: 1,1'])
      expect(user.chat.find((m) => m.poll)!.poll).toMatchObject({total_voter_count: 1, is_closed: false})
      await user.send('/timed')
      await waitFor(() => seen.some((p) => p.is_closed), {
        what: 'the poll to close at its close_date (5 s × timeScale)',
      })
      expect(user.chat.filter((m) => m.poll).at(-1)!.poll).toMatchObject({question: 'Now?', is_closed: true})
      await expect(user.vote(0)).rejects.toThrow(/the poll is closed/)
    } finally {
      await bot.stop()
      await running
    }
  })

  it('python-telegram-bot 13 (its poll example) reads poll answers and counts', async () => {
    const {emu, token} = await setup()
    emu.sendUserMessage(token, {text: 'hi', userId: 31, firstName: 'Cy'})
    const python = await runPython(PTB_POLL, [emu.apiRoot, emu.controlApiRoot, token])
    if (python.status !== 0 && /No module named .telegram/.test(python.stderr)) {
      if (process.env.CI) throw new Error(python.stderr)
      return
    }
    expect(python.status, python.stderr).toBe(0)
    expect(JSON.parse(python.stdout.trim().split('\n').at(-1)!)).toEqual({
      answer: {user: 'Cy', options: [0, 2]},
      counts: [1, 0, 1],
      stopped: true,
    })
  })
})

/** PTB 13: send a non-anonymous poll allowing several answers, a user votes (control API), read the updates. */
const PTB_POLL = `
import json, sys, urllib.request, telegram
api_root, control, token = sys.argv[1], sys.argv[2], sys.argv[3]
bot = telegram.Bot(token, base_url=api_root + "/bot")
offset = bot.get_updates(timeout=0)[-1].update_id + 1
message = bot.send_poll(31, "How are you?", ["Good", "Really good", "Fantastic"], is_anonymous=False, allows_multiple_answers=True)
req = urllib.request.Request(control + "/bots/" + token + "/polls/" + message.poll.id + "/answers", method="POST",
    data=json.dumps({"user_id": 31, "option_ids": [0, 2]}).encode(), headers={"Content-Type": "application/json"})
urllib.request.urlopen(req).read()
updates = bot.get_updates(offset=offset, timeout=0)
answer = [u.poll_answer for u in updates if u.poll_answer][0]
poll = [u.poll for u in updates if u.poll][0]
stopped = bot.stop_poll(31, message.message_id)
print(json.dumps({"answer": {"user": answer.user.first_name, "options": answer.option_ids},
                  "counts": [o.voter_count for o in poll.options], "stopped": stopped.is_closed}))
`

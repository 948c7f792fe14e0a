/**
 * Chat scripts played by runChatScript against a real grammY bot on the emulator, in long polling and webhook mode:
 * passing scripts, each kind of failure (with the step's line, expected, actual and the diff), the user actions of
 * the table as steps, and scripts in parallel that do not see each other.
 */
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {Bot as GrammyBot, InlineKeyboard, Keyboard} from 'grammy'
import {afterAll, describe, expect, it} from 'vitest'
import {runChatScript, updateChatScript} from '../../src/emulator/index.js'
import {setup} from './helpers.js'
import {MODES, runGrammy} from './bots.js'

const dir = mkdtempSync(join(tmpdir(), 'chat-scripts-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))
// a 1×1 PNG
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
)
writeFileSync(join(dir, 'cat.png'), PNG)

function grammyBot(token: string, apiRoot: string): GrammyBot {
  const bot = new GrammyBot(token, {client: {apiRoot}})
  bot.command('start', async (ctx) => {
    await ctx.reply(`Hi ${ctx.from?.first_name}!`)
    await ctx.reply('Pick one: what do you eat?')
    await ctx.reply('Menu', {
      reply_markup: new InlineKeyboard().text('Pasta', 'pasta').text('Pizza', 'pizza').row().text('Back', 'back'),
    })
  })
  bot.callbackQuery(['pasta', 'pizza'], async (ctx) => {
    await ctx.answerCallbackQuery('Saved')
    await ctx.editMessageText(`You picked ${ctx.callbackQuery.data === 'pasta' ? 'Pasta' : 'Pizza'}`)
  })
  bot.command('drinks', (ctx) => ctx.reply('Tea or coffee?', {reply_markup: new Keyboard().text('Tea').text('Coffee')}))
  bot.hears(/^(Tea|Coffee)$/, (ctx) => ctx.reply(`${ctx.message?.text} it is`, {reply_markup: {remove_keyboard: true}}))
  bot.command('poll', (ctx) => ctx.replyWithPoll('Best pet?', ['Cat', 'Dog'], {is_anonymous: false}))
  bot.on('poll_answer', (ctx) =>
    ctx.api.sendMessage(ctx.pollAnswer.user!.id, `You voted ${ctx.pollAnswer.option_ids.join(',')}`),
  )
  bot.command('buy', (ctx) => ctx.replyWithInvoice('Pass', 'A pass', 'pass', 'XTR', [{label: 'Pass', amount: 1}]))
  bot.on('pre_checkout_query', (ctx) => ctx.answerPreCheckoutQuery(true))
  bot.on('message:successful_payment', (ctx) => ctx.reply('Thanks for buying!'))
  bot.command('gone', async (ctx) => {
    const temp = await ctx.reply('temp')
    await ctx.api.deleteMessage(ctx.chat.id, temp.message_id)
  })
  bot.command('later', (ctx) => {
    // the handler ends before its message is sent (not awaited): the quiet window catches it
    void ctx.reply('later').catch(() => {})
  })
  bot.command('silent', () => undefined)
  bot.on('message:photo', (ctx) => ctx.reply(`A photo of ${ctx.message.photo.at(-1)!.width}px`))
  bot.on('message:text', (ctx) => ctx.reply(ctx.message.text))
  return bot
}

async function started(mode: (typeof MODES)[number]) {
  // time scaled by 0.01 (a quick grammY stop), but not the webhook's read timeout: a loaded machine may take
  // longer than 600 ms to answer one POST, and a redelivered update would be answered twice
  const {emu, token} = await setup({webhookReadTimeoutMs: 6_000_000})
  const bot = grammyBot(token, emu.apiRoot)
  const stop = await runGrammy(emu, token, bot, mode, [
    'message',
    'callback_query',
    'poll_answer',
    'pre_checkout_query',
  ])
  return {emu, token, stop}
}

const START = `# the issue's example, the parts a grammY bot plays
users: {ada: {first_name: Ada}, bob: {first_name: Bob, language_code: de}}
steps:
  - user: /start
  - bot: "Hi Ada!"
  - bot: /^Pick one/
  - bot: {text: "Menu", buttons: [[Pasta, Pizza], [Back]]}
  - press: Pizza
  - bot: {edit: "You picked Pizza"}
  - call: {method: answerCallbackQuery, text: "Saved"}
  - as: bob
  - user: hello
  - bot: hello
  - silence: true
`

describe.each(MODES)('chat scripts against grammY (%s)', (mode) => {
  it('the issue example passes; each script has its own users', async () => {
    const {emu, token, stop} = await started(mode)
    try {
      const result = await runChatScript(emu, token, START, {file: 'start.chat.yml'})
      expect(result.failures).toEqual([])
      expect(result.ok).toBe(true)
      expect(result.steps).toBe(11)
      expect(result.ran).toBe(11)
      expect(result.users.ada.id).not.toBe(result.users.bob.id)
      // a second run gets new ids
      const again = await runChatScript(emu, token, START)
      expect(again.ok).toBe(true)
      expect(again.users.ada.id).not.toBe(result.users.ada.id)
    } finally {
      await stop()
    }
  })

  it('a wrong text fails at its line with expected, actual and the diff', async () => {
    const {emu, token, stop} = await started(mode)
    try {
      const result = await runChatScript(emu, token, 'steps:\n  - user: hello\n  - bot: "Hello"\n', {
        file: 'x.chat.yml',
      })
      expect(result.ok).toBe(false)
      expect(result.failures).toHaveLength(1)
      const f = result.failures[0]
      expect([f.file, f.line, f.column, f.key]).toEqual(['x.chat.yml', 3, 5, 'bot'])
      expect(f.message).toMatch(/next message is not what this step expects/)
      expect(f.diff).toBe('- text: "Hello"\n+ text: "hello"')
    } finally {
      await stop()
    }
  })

  it('a message no step expects fails at the next user step; silence fails on more', async () => {
    const {emu, token, stop} = await started(mode)
    try {
      const extra = await runChatScript(emu, token, 'steps:\n  - user: /start\n  - bot: "Hi Ada!"\n  - user: hi\n')
      expect(extra.failures.map((f) => [f.line, f.key])).toEqual([[4, 'user']])
      expect(extra.failures[0].message).toMatch(/the bot also sent 2 messages that no `bot:` step expects/)
      expect(extra.failures[0].actual).toEqual([
        'text: "Pick one: what do you eat?"',
        '---',
        'text: "Menu"',
        'buttons: [["Pasta", "Pizza"], ["Back"]]',
      ])
      const silence = await runChatScript(emu, token, 'steps:\n  - user: hi\n  - silence: true\n')
      expect(silence.failures.map((f) => [f.line, f.key])).toEqual([[3, 'silence']])
      expect(silence.failures[0].diff).toBe('+ text: "hi"')
      const nothing = await runChatScript(emu, token, 'steps:\n  - user: /silent\n  - bot: "x"\n')
      expect(nothing.failures[0].message).toMatch(/the bot sent nothing more/)
      const atEnd = await runChatScript(emu, token, 'steps:\n  - user: hi\n')
      expect(atEnd.failures.map((f) => [f.line, f.step, f.key])).toEqual([[2, -1, 'end']])
    } finally {
      await stop()
    }
  })

  it('call: checks parameters (subset); a wrong one shows the diff', async () => {
    const {emu, token, stop} = await started(mode)
    try {
      const script = (text: string) =>
        `steps:\n  - user: /start\n  - bot: /Hi/\n  - bot: /Pick/\n  - bot: {buttons: [[Pasta, Pizza], [Back]]}\n  - press: Pasta\n  - call: {method: answerCallbackQuery, text: ${text}}\n  - bot: {edit: /Pasta/}\n`
      expect((await runChatScript(emu, token, script('Saved'))).failures).toEqual([])
      const wrong = await runChatScript(emu, token, script('Stored'))
      expect(wrong.failures[0].line).toBe(7)
      expect(wrong.failures[0].diff).toBe('  method: answerCallbackQuery\n- text: "Stored"\n+ text: "Saved"')
    } finally {
      await stop()
    }
  })

  it('reply keyboards, deletions, late messages, media, polls and payments', async () => {
    const {emu, token, stop} = await started(mode)
    try {
      const file = join(dir, 'many.chat.yml')
      const result = await runChatScript(
        emu,
        token,
        `steps:
  - user: /drinks
  - bot: {text: Tea or coffee?, keyboard: [[Tea, Coffee]]}
  - press: Coffee
  - bot: {text: Coffee it is, keyboard: false}
  - user: /gone
  - bot: temp
  - bot: {delete: true}
  - user: /later
  - bot: later
  - photo: cat.png
  - bot: A photo of 1px
  - user: /poll
  - bot: {poll: Best pet?}
  - vote: 1
  - bot: You voted 1
  - user: /buy
  - bot: {invoice: Pass}
  - pay: true
  - call: {method: answerPreCheckoutQuery, ok: true}
  - bot: Thanks for buying!
`,
        {file, quietMs: 50},
      )
      expect(result.failures).toEqual([])
    } finally {
      await stop()
    }
  })

  it('scripts in parallel do not see each other', async () => {
    const {emu, token, stop} = await started(mode)
    try {
      const scripts = Array.from(
        {length: 8},
        (_, i) =>
          `users: {u${i}: {first_name: U${i}}}\nsteps:\n${Array.from({length: 5}, (_, j) => `  - user: m${i}-${j}\n  - bot: m${i}-${j}\n`).join('')}`,
      )
      const results = await Promise.all(scripts.map((s) => runChatScript(emu, token, s)))
      expect(results.flatMap((r) => r.failures)).toEqual([])
    } finally {
      await stop()
    }
  })

  it('updateChatScript rewrites what changed, keeps comments and regexes that still match', async () => {
    const {emu, token, stop} = await started(mode)
    try {
      const text = `# what /start does
steps:
  - user: /start   # say hello
  - bot: "Hello Ada!"   # was the greeting
  - bot: /^Pick/
  - user: /silent
  - bot: gone
  - user: /start
  - bot: /^Hi/
  - press: Pasta
  - call: {method: answerCallbackQuery, text: Stored}
  - bot: {edit: /Pasta/}
`
      const first = await runChatScript(emu, token, text, {collect: true})
      expect(first.ok).toBe(false)
      const updated = updateChatScript(text, first)
      expect(updated).toBe(`# what /start does
steps:
  - user: /start # say hello
  - bot: "Hi Ada!" # was the greeting
  - bot: /^Pick/
  - bot: {text: "Menu", buttons: [[Pasta, Pizza], [Back]]}
  - user: /silent
  - user: /start
  - bot: /^Hi/
  - bot: "Pick one: what do you eat?"
  - bot: {text: "Menu", buttons: [[Pasta, Pizza], [Back]]}
  - press: Pasta
  - call: {method: answerCallbackQuery, text: "Saved"}
  - bot: {edit: /Pasta/}
`)
      const second = await runChatScript(emu, token, updated)
      expect(second.failures).toEqual([])
    } finally {
      await stop()
    }
  })
})

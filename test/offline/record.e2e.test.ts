/**
 * Recording in the offline chat, end to end, with every framework: the grammY, GramIO and Telegraf projects `bot init`
 * makes, and a python-telegram-bot bot (Debian's). For each, a real `bot dev --offline` process gets the chat on a pipe
 * and `:save talk` writes test/talk.chat.yml (a photo copied to test/fixtures/, a payment, a button, an answered
 * callback); then real `bot test` processes, on a new emulator with new users and chats: the recording passes → the
 * bot's reply is changed in its source → the script fails naming the step's file:line with the diff → `--update`
 * takes the new reply (the rest of the file unchanged) and the script passes again.
 */
import {mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, describe, it} from 'vitest'

import {parseChatScript} from '../../src/emulator/scripts/parse.js'
import {TEMPLATES, init, tempDir} from '../init/support.js'
import {PROJECT_ROOT, runCli} from '../support/cli.js'
import {png} from '../emulator/media-fixtures.js'
import {PYTHON, hasPtb} from '../emulator/python-support.js'

const root = tempDir('record-e2e-')
afterAll(() => rmSync(root, {recursive: true, force: true}))

/**
 * A python-telegram-bot 13 bot: /start greets, /ask asks with two buttons (answered and edited), text is echoed. It
 * polls with its own loop, handling each update before the next getUpdates confirms it: PTB's Updater confirms an
 * update before its worker thread has answered it, and on a loaded machine that answer can come after the quiet
 * window with which `bot test` decides a polling bot is done (src/emulator/scripts/run.ts), which fails a step that
 * is right.
 */
const PYTHON_BOT = `import os
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.ext import CallbackQueryHandler, CommandHandler, Dispatcher, Filters, MessageHandler


def start(update, context):
    update.message.reply_text("Hi {}, I am a Python bot.".format(update.effective_user.first_name))


def ask(update, context):
    buttons = [[InlineKeyboardButton("Yes", callback_data="yes"), InlineKeyboardButton("No", callback_data="no")]]
    update.message.reply_text("Do you like it?", reply_markup=InlineKeyboardMarkup(buttons))


def answer(update, context):
    query = update.callback_query
    query.answer("Noted")
    query.edit_message_text("You like it." if query.data == "yes" else "Maybe next time.")


def echo(update, context):
    update.message.reply_text("echo: " + update.message.text)


bot = Bot(token=os.environ["BOT_TOKEN"], base_url=os.environ["BOT_API_ROOT"].rstrip("/") + "/bot")
dispatcher = Dispatcher(bot, None, workers=0, use_context=True)
dispatcher.add_handler(CommandHandler("start", start))
dispatcher.add_handler(CommandHandler("ask", ask))
dispatcher.add_handler(CallbackQueryHandler(answer))
dispatcher.add_handler(MessageHandler(Filters.text & ~Filters.command, echo))
print("python bot polling", flush=True)
offset = None
while True:
    for update in bot.get_updates(offset=offset, timeout=1):
        offset = update.update_id + 1
        dispatcher.process_update(update)
`

interface Framework {
  name: string
  /** Runs when the framework is here (python-telegram-bot: Debian's package; .ci/run installs it). */
  present: boolean
  /** Make the project in `dir`; the words after `--` for `bot dev --offline` and `bot test`, if any. */
  make(dir: string): Promise<string[]>
  mode: 'webhook' | 'polling'
  /** The chat, one line each. */
  input: string[]
  /** The `✓ Saved` line's tail after `test/talk.chat.yml: `. */
  saved: string
  /** The saved file from `users:` on. */
  steps: string[]
  /** The `bot:` line, when the file must have one (a command given after `--`). */
  botLine?: string
  /** The file whose reply changes, the text replaced and its replacement. */
  change: {file: string; from: string; to: string}
  /** The `bot:` step that then fails: what it expected and what the bot now says. */
  fails: {expected: string; actual: string}
}

const GREETING = 'Hello, You! Send me a message and I will echo it. /help lists the commands.'
const THANKS = 'Thank you for your support! Your supporter pass is active. (/refund gives your Star back.)'

/** A project `bot init --template T` makes, its dependencies those of this repository (as the other template tests). */
function template(name: (typeof TEMPLATES)[number], mode: 'webhook' | 'polling', photo: boolean): Framework {
  return {
    name: `${name} (bot init --template ${name}, ${mode})`,
    present: true,
    async make(dir) {
      const made = await init([dir, '--template', name, '--no-install', '--no-git', '--yes'])
      if (made.code !== 0) throw new Error(`bot init --template ${name} exited ${made.code}: ${made.stderr}`)
      symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir')
      if (photo) writeFileSync(join(dir, 'cat.png'), png(8, 8))
      return []
    },
    mode,
    input: [
      '/start',
      'hello',
      '/count',
      ':press Reset',
      ...(photo ? [':photo cat.png on the sofa'] : []),
      '/buy',
      ':pay',
    ],
    saved: photo
      ? '16 steps; files: test/fixtures/cat.png. Run it with: npx bot test test/talk.chat.yml'
      : '14 steps. Run it with: npx bot test test/talk.chat.yml',
    steps: [
      'users:',
      '  you: {first_name: You, username: offline_user}',
      'steps:',
      '  - user: /start',
      `  - bot: ${GREETING}`,
      '  - user: hello',
      '  - bot: hello',
      '  - user: /count',
      '  - bot: {text: "Count: 1", buttons: [[Reset]]}',
      '  - press: Reset',
      '  - call: {method: answerCallbackQuery, text: Count reset}',
      '  - bot: {edit: "Count: 0 (reset)"}',
      // the template answers a photo with a note
      ...(photo
        ? ['  - photo: {path: fixtures/cat.png, caption: on the sofa}', '  - bot: I can only echo text for now.']
        : []),
      '  - user: /buy',
      '  - bot: {invoice: Supporter pass}',
      '  - pay: true',
      '  - call: {method: answerPreCheckoutQuery, ok: true}',
      `  - bot: ${THANKS}`,
      '',
    ],
    change: {file: 'src/bot.ts', from: 'Send me a message and I will echo it.', to: 'Write me anything.'},
    fails: {expected: GREETING, actual: 'Hello, You! Write me anything. /help lists the commands.'},
  }
}

const FRAMEWORKS: Framework[] = [
  template('grammy', 'polling', true),
  template('gramio', 'webhook', false),
  template('telegraf', 'webhook', false),
  {
    name: "python-telegram-bot (Debian's, polling)",
    present: hasPtb,
    async make(dir) {
      mkdirSync(dir, {recursive: true})
      writeFileSync(join(dir, 'bot.py'), PYTHON_BOT)
      return [PYTHON, '-W', 'ignore', 'bot.py']
    },
    mode: 'polling',
    input: ['/start', '/ask', ':press Yes', 'hello'],
    saved: '9 steps. Run it with: npx bot test test/talk.chat.yml',
    botLine: `bot: ${PYTHON} -W ignore bot.py`,
    steps: [
      'users:',
      '  you: {first_name: You, username: offline_user}',
      'steps:',
      '  - user: /start',
      '  - bot: Hi You, I am a Python bot.',
      '  - user: /ask',
      '  - bot: {text: Do you like it?, buttons: [[Yes, No]]}',
      '  - press: Yes',
      '  - call: {method: answerCallbackQuery, text: Noted}',
      '  - bot: {edit: You like it.}',
      '  - user: hello',
      '  - bot: "echo: hello"',
      '',
    ],
    change: {file: 'bot.py', from: 'I am a Python bot.', to: 'I speak Python.'},
    fails: {expected: 'Hi You, I am a Python bot.', actual: 'Hi You, I speak Python.'},
  },
]

// The frameworks run side by side: each has its own project, state folder, emulator and ports, and their processes
// mostly wait (on the bots' start-up, on the chat's answers), so together they take little more than the slowest.
describe.concurrent(':save in bot dev --offline, then bot test', () => {
  for (const fw of FRAMEWORKS)
    it.runIf(fw.present)(
      `${fw.name}: the recording passes; a changed reply fails it with the diff; --update takes it`,
      async ({expect}) => {
        const dir = join(root, fw.name.split(' ')[0])
        const bot = await fw.make(dir)
        const after = bot.length > 0 ? ['--', ...bot] : []
        const env = {BOT_STATE_DIR: join(dir, '.state')}

        const r = await runCli(['dev', '--offline', '--no-watch', '--mode', fw.mode, ...after], {
          cwd: dir,
          env,
          input: [...fw.input, ':save talk', ''].join('\n'),
          timeoutMs: 120_000,
        })
        expect(r.code, r.stdout + r.stderr).toBe(0)
        expect(r.stdout).toContain(`✓ Saved test/talk.chat.yml: ${fw.saved}`)
        const file = join(dir, 'test', 'talk.chat.yml')
        const text = readFileSync(file, 'utf8')
        const lines = text.split('\n')
        expect(lines[0]).toBe('# Recorded in the offline chat (bot dev --offline, :save). Run it with: npx bot test')
        if (fw.botLine) expect(lines).toContain(fw.botLine)
        const users = lines.indexOf('users:')
        expect(lines.slice(users).join('\n')).toBe(fw.steps.join('\n'))
        expect(parseChatScript(text, {file}).steps).toHaveLength(Number(fw.saved.split(' ')[0]))
        if (fw.input.some((l) => l.startsWith(':photo')))
          expect(readFileSync(join(dir, 'test', 'fixtures', 'cat.png')).equals(png(8, 8))).toBe(true)

        // bot test plays it against a new emulator (new users, new chats), the bot started from what the file or the
        // project says: the script's `bot:` line, else package.json's dev:bot.
        const test = (args: string[]) =>
          runCli(['test', 'test/talk.chat.yml', '--mode', fw.mode, ...args], {cwd: dir, env, timeoutMs: 120_000})
        const passed = await test([])
        expect(passed.code, passed.stdout + passed.stderr).toBe(0)
        expect(passed.stdout).toMatch(
          new RegExp(`^✓ test/talk\\.chat\\.yml {2}${fw.saved.split(' ')[0]} steps {2}\\d+ ms$`, 'm'),
        )

        // The bot's reply changes in its source: the script fails at that step, naming file:line, with the diff.
        const source = join(dir, fw.change.file)
        const code = readFileSync(source, 'utf8')
        expect(code).toContain(fw.change.from)
        writeFileSync(source, code.replace(fw.change.from, fw.change.to))
        const line = lines.indexOf(`  - bot: ${fw.fails.expected}`) + 1
        expect(line).toBeGreaterThan(0)
        const failed = await test([])
        expect(failed.code, failed.stdout + failed.stderr).toBe(1)
        expect(failed.stdout).toMatch(/^✗ test\/talk\.chat\.yml {2}\d+ steps {2}\d+ ms$/m)
        expect(failed.stdout).toContain(
          [
            `  test/talk.chat.yml:${line}  bot: the bot's next message is not what this step expects:`,
            `    - text: ${JSON.stringify(fw.fails.expected)}`,
            `    + text: ${JSON.stringify(fw.fails.actual)}`,
          ].join('\n'),
        )
        expect(failed.stdout).toMatch(/^1 failed \(1 script, /m)

        // --update takes the new reply (the rest of the file as recorded) and plays the script again: `↻ … updated`
        // and exit 0 say that second run passed (src/testing/run.ts).
        const updated = await test(['--update'])
        expect(updated.code, updated.stdout + updated.stderr).toBe(0)
        expect(updated.stdout).toMatch(/^↻ test\/talk\.chat\.yml {2}\d+ steps {2}\d+ ms {2}updated$/m)
        expect(updated.stdout).toMatch(/^1 updated \(1 script, /m)
        expect(readFileSync(file, 'utf8')).toBe(
          text.replace(`  - bot: ${fw.fails.expected}\n`, `  - bot: ${JSON.stringify(fw.fails.actual)}\n`),
        )
      },
      300_000,
    )
})

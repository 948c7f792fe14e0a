/**
 * `bot test` as a user runs it, against real bots: the grammY, GramIO and Telegraf projects `bot init` makes, and a
 * python-telegram-bot bot (Debian's) named by the script's `bot:`. Each goes: the scripts pass → the bot's reply is
 * changed → a script fails with the step's file:line and the diff (JUnit XML with the failure) → `--update` rewrites
 * it → it passes. Bad input exits 2 before anything starts.
 */
import {spawnSync} from 'node:child_process'
import {mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, describe, expect, it} from 'vitest'

import {PROJECT_ROOT, runCli} from '../support/cli.js'
import {TEMPLATES, init, tempDir} from '../init/support.js'
import {PYTHON, hasPtb} from '../emulator/python-support.js'

const root = tempDir('bot-test-e2e-')
afterAll(() => rmSync(root, {recursive: true, force: true}))

const GREETING = 'Hello, Ada! Send me a message and I will echo it. /help lists the commands.'
const THANKS = 'Thank you for your support! Your supporter pass is active. (/refund gives your Star back.)'

const START = `# /start, the echo and the count's button
steps:
  - user: /start
  - bot: "${GREETING}"   # the greeting
  - user: hello
  - bot: hello
  - user: /count
  - bot: {text: "Count: 1", buttons: [[Reset]]}
  - press: Reset
  - call: {method: answerCallbackQuery, text: Count reset}
  - bot: {edit: "Count: 0 (reset)"}
`
const BUY = `users: {bob: {first_name: Bob}}
steps:
  - user: /buy
  - bot: {invoice: /Supporter/}
  - pay: true
  - call: {method: answerPreCheckoutQuery, ok: true}
  - bot: "${THANKS}"
`

/** The JUnit file is well-formed XML (Debian's python3 parses it) and has the counts. */
function checkJunit(path: string, failures: number): void {
  const xml = readFileSync(path, 'utf8')
  const parsed = spawnSync(PYTHON, ['-c', 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])', path])
  expect(parsed.status, parsed.stderr?.toString()).toBe(0)
  expect(xml).toContain(`failures="${failures}"`)
}

describe.each(TEMPLATES)('bot test in a %s project made by bot init', (template) => {
  it('passes, fails with the diff when the reply changes, --update rewrites, passes again', async () => {
    const dir = join(root, template)
    const made = await init([dir, '--template', template, '--no-install', '--no-git', '--yes'])
    expect(made.code, made.stderr).toBe(0)
    symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir')
    mkdirSync(join(dir, 'test'), {recursive: true})
    writeFileSync(join(dir, 'test', 'start.chat.yml'), START)
    writeFileSync(join(dir, 'test', 'buy.chat.yml'), BUY)
    // a script under node_modules is never run
    const env = {BOT_STATE_DIR: join(dir, '.state')}
    const cli = (args: string[]) => runCli(['test', ...args], {cwd: dir, env, timeoutMs: 120_000})

    const passed = await cli(['--jobs', '2'])
    expect(passed.code, `${passed.stdout}\n${passed.stderr}`).toBe(0)
    expect(passed.stdout).toMatch(/^✓ test\/buy\.chat\.yml {2}5 steps {2}\d+ ms$/m)
    expect(passed.stdout).toMatch(/^✓ test\/start\.chat\.yml {2}9 steps {2}\d+ ms$/m)
    expect(passed.stdout).toMatch(/^2 passed \(2 scripts, /m)

    const bot = join(dir, 'src', 'bot.ts')
    writeFileSync(bot, readFileSync(bot, 'utf8').replace('Send me a message and I will echo it.', 'Write me anything.'))
    const failed = await cli(['--reporter', 'junit', '--output', 'results.xml'])
    expect(failed.code, `${failed.stdout}\n${failed.stderr}`).toBe(1)
    expect(failed.stdout).toMatch(/^✗ test\/start\.chat\.yml {2}9 steps {2}\d+ ms$/m)
    expect(failed.stdout).toContain(
      [
        "  test/start.chat.yml:4  bot: the bot's next message is not what this step expects:",
        `    - text: "${GREETING}"`,
        '    + text: "Hello, Ada! Write me anything. /help lists the commands."',
      ].join('\n'),
    )
    expect(failed.stdout).toMatch(/^1 passed, 1 failed \(2 scripts, /m)
    checkJunit(join(dir, 'results.xml'), 1)
    expect(readFileSync(join(dir, 'results.xml'), 'utf8')).toContain(
      `<failure message="test/start.chat.yml:4 bot: the bot's next message`,
    )

    const updated = await cli(['--update'])
    expect(updated.code, `${updated.stdout}\n${updated.stderr}`).toBe(0)
    expect(updated.stdout).toMatch(/^↻ test\/start\.chat\.yml {2}9 steps {2}\d+ ms {2}updated$/m)
    const rewritten = readFileSync(join(dir, 'test', 'start.chat.yml'), 'utf8')
    expect(rewritten).toContain('  - bot: "Hello, Ada! Write me anything. /help lists the commands." # the greeting\n')
    expect(rewritten).toContain("# /start, the echo and the count's button\n")
    expect(readFileSync(join(dir, 'test', 'buy.chat.yml'), 'utf8')).toBe(BUY)

    const again = await cli(['--json'])
    expect(again.code, `${again.stdout}\n${again.stderr}`).toBe(0)
    const json = JSON.parse(again.stdout)
    expect(json).toMatchObject({ok: true, passed: 2, failed: 0})
    expect(json.scripts.map((s: {file: string}) => s.file)).toEqual(['test/buy.chat.yml', 'test/start.chat.yml'])
  }, 300_000)
})

const PYTHON_BOT = `"""A python-telegram-bot 13 bot for bot test: /start greets, /ask asks with two buttons, text is echoed."""
import os
from telegram import InlineKeyboardButton, InlineKeyboardMarkup
from telegram.ext import CallbackQueryHandler, CommandHandler, Filters, MessageHandler, Updater

GREETING = "Hi {}, I am a Python bot."


def start(update, context):
    update.message.reply_text(GREETING.format(update.effective_user.first_name))


def ask(update, context):
    buttons = [[InlineKeyboardButton("Yes", callback_data="yes"), InlineKeyboardButton("No", callback_data="no")]]
    update.message.reply_text("Do you like it?", reply_markup=InlineKeyboardMarkup(buttons))


def answer(update, context):
    query = update.callback_query
    query.answer("Noted")
    query.edit_message_text("You like it." if query.data == "yes" else "Maybe next time.")


def echo(update, context):
    update.message.reply_text(update.message.text)


updater = Updater(token=os.environ["BOT_TOKEN"], base_url=os.environ["BOT_API_ROOT"].rstrip("/") + "/bot", use_context=True)
updater.dispatcher.add_handler(CommandHandler("start", start))
updater.dispatcher.add_handler(CommandHandler("ask", ask))
updater.dispatcher.add_handler(CallbackQueryHandler(answer))
updater.dispatcher.add_handler(MessageHandler(Filters.text & ~Filters.command, echo))
print("python bot polling", flush=True)
updater.start_polling(timeout=1, poll_interval=0)
updater.idle()
`

describe.runIf(hasPtb)("bot test with a python-telegram-bot bot (the script's bot:)", () => {
  it('passes, fails with the diff when the reply changes, --update rewrites, passes again', async () => {
    const dir = join(root, 'python')
    mkdirSync(dir, {recursive: true})
    writeFileSync(join(dir, 'bot.py'), PYTHON_BOT)
    const script = `bot: ${PYTHON} -W ignore bot.py
users: {ada: {first_name: Ada}}
steps:
  - user: /start
  - bot: "Hi Ada, I am a Python bot."
  - user: /ask
  - bot: {text: Do you like it?, buttons: [[Yes, No]]}
  - press: "Yes"
  - call: {method: answerCallbackQuery, text: Noted}
  - bot: {edit: You like it.}
  - user: hello
  - bot: /^hel+o$/
`
    writeFileSync(join(dir, 'python.chat.yml'), script)
    const cli = (args: string[]) =>
      runCli(['test', '--mode', 'polling', ...args], {
        cwd: dir,
        env: {BOT_STATE_DIR: join(dir, '.state')},
        timeoutMs: 120_000,
      })

    const passed = await cli([])
    expect(passed.code, `${passed.stdout}\n${passed.stderr}`).toBe(0)
    expect(passed.stdout).toMatch(/^✓ python\.chat\.yml {2}9 steps {2}\d+ ms$/m)

    writeFileSync(join(dir, 'bot.py'), PYTHON_BOT.replace('I am a Python bot.', 'I speak Python.'))
    const failed = await cli([])
    expect(failed.code, `${failed.stdout}\n${failed.stderr}`).toBe(1)
    expect(failed.stdout).toContain(
      [
        "  python.chat.yml:5  bot: the bot's next message is not what this step expects:",
        '    - text: "Hi Ada, I am a Python bot."',
        '    + text: "Hi Ada, I speak Python."',
      ].join('\n'),
    )

    const updated = await cli(['--update'])
    expect(updated.code, `${updated.stdout}\n${updated.stderr}`).toBe(0)
    const rewritten = readFileSync(join(dir, 'python.chat.yml'), 'utf8')
    expect(rewritten).toContain('  - bot: "Hi Ada, I speak Python."\n')
    // the regular expression still matches: kept
    expect(rewritten).toContain('  - bot: /^hel+o$/\n')

    const again = await cli([])
    expect(again.code, `${again.stdout}\n${again.stderr}`).toBe(0)
  }, 300_000)
})

describe('bot test: bad input exits 2 before anything starts', () => {
  const project = (files: Record<string, string>) => {
    const dir = tempDir('bot-test-bad-')
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(join(dir, name, '..'), {recursive: true})
      writeFileSync(join(dir, name), text)
    }
    return dir
  }

  it('a script that cannot be read: its file:line:column and the fix', async () => {
    const dir = project({'bot.js': '', 'test/a.chat.yml': 'steps:\n  - usr: hi\n'})
    const r = await runCli(['test', '--', 'node', 'bot.js'], {cwd: dir})
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toContain('test/a.chat.yml:2:5: there is no step "usr".')
    expect(r.stderr).toContain('Did you mean `user`?')
  })

  it('no bot command, no script, a file that is no script', async () => {
    const noCommand = await runCli(['test'], {cwd: project({'a.chat.yml': 'steps:\n  - user: hi\n'})})
    expect(noCommand.code).toBe(2)
    expect(noCommand.stderr).toMatch(/No bot command/)
    const none = await runCli(['test', '--', 'node', 'bot.js'], {
      cwd: project({'bot.js': '', 'node_modules/x/a.chat.yml': 'x'}),
    })
    expect(none.code).toBe(2)
    expect(none.stderr).toMatch(/No chat script \(\*\.chat\.yml\) under /)
    const notScript = await runCli(['test', 'bot.js'], {cwd: project({'bot.js': ''})})
    expect(notScript.code).toBe(2)
    expect(notScript.stderr).toMatch(/bot\.js is not a chat script/)
  })
})

/**
 * Issue 31 item 13, the rest: for a Node bot the watcher restarts for the files the bot loaded (as
 * `tsx watch` does), reported by the preload bot dev puts in its NODE_OPTIONS
 * (src/dev/imports/preload.cts). A real grammY bot under `bot dev`, in TypeScript under tsx (its CLI,
 * and `node --import tsx` as the templates run it; ES modules and a CommonJS `require`) and as plain ES modules under node, writes for each update a
 * file session (sessions/<chat>.json) and `.ts`/`.js` files it never imports: none restarts it.
 * Editing a module it imports restarts it once, naming that file. A bot that is not Node reports
 * nothing and is watched by extension.
 */
import {appendFileSync, mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {waitFor} from '../support/wait.js'
import {devWorld, esmProject, startDev, type DevWorld} from './helpers.js'

let world: DevWorld
beforeEach(async () => {
  world = await devWorld()
})
afterEach(async () => {
  await world.close()
})

/** A grammY bot serving its webhook; `handlers` is the module it imports for its reply. */
function grammyBot(handlers: string, ext: 'ts' | 'mjs'): string {
  return `import {appendFileSync, mkdirSync, writeFileSync} from 'node:fs'
import http from 'node:http'
import {createRequire} from 'node:module'
import {Bot, webhookCallback} from 'grammy'
import {reply} from './${handlers}'
const require = createRequire(import.meta.url)
const {prefix} = require('./lib/prefix.cjs')
const bot = new Bot(process.env.BOT_TOKEN${ext === 'ts' ? ' as string' : ''}, {client: {apiRoot: process.env.BOT_API_ROOT}})
bot.on('message:text', async (ctx) => {
  // What a bot writes in its own folder: a file session, and source-looking files it never imports.
  mkdirSync('sessions', {recursive: true})
  writeFileSync('sessions/' + ctx.chat.id + '.json', JSON.stringify({count: ctx.update.update_id}))
  mkdirSync('data', {recursive: true})
  writeFileSync('data/store.ts', 'export const last = ' + ctx.update.update_id)
  writeFileSync('data/cache.js', 'module.exports = ' + ctx.update.update_id)
  writeFileSync('notes.mjs', '// ' + ctx.update.update_id)
  await ctx.reply(prefix + reply(ctx.message.text))
  appendFileSync(process.env.FIXTURE_RECORD${ext === 'ts' ? ' as string' : ''}, ctx.update.update_id + '\\n')
})
const handle = webhookCallback(bot, 'http', {secretToken: process.env.WEBHOOK_SECRET})
http
  .createServer((req, res) => (req.url === process.env.WEBHOOK_PATH ? handle(req, res) : res.writeHead(404).end()))
  .listen(Number(process.env.PORT), '127.0.0.1')
`
}

function project(name: string, files: Record<string, string>): string {
  return esmProject(join(world.dir, name), name, {'lib/prefix.cjs': "module.exports = {prefix: '» '}\n", ...files})
}

const cases: Array<{name: string; bot: string[]; files: Record<string, string>; edit: string}> = [
  {
    name: 'TypeScript under tsx',
    bot: ['./node_modules/.bin/tsx', 'bot.ts'],
    files: {
      'bot.ts': grammyBot('lib/handlers.js', 'ts'),
      'lib/handlers.ts': 'export const reply = (text: string): string => `echo: ${text}`\n',
    },
    edit: 'lib/handlers.ts',
  },
  {
    // The templates' way: tsx's loader registers its module hooks first, the preload's follow them.
    name: 'TypeScript under node --import tsx',
    bot: ['node', '--import', 'tsx', 'bot.ts'],
    files: {
      'bot.ts': grammyBot('lib/handlers.js', 'ts'),
      'lib/handlers.ts': 'export const reply = (text: string): string => `echo: ${text}`\n',
    },
    edit: 'lib/handlers.ts',
  },
  {
    name: 'ES modules under node',
    bot: ['node', 'bot.mjs'],
    files: {
      'bot.mjs': grammyBot('lib/handlers.mjs', 'mjs'),
      'lib/handlers.mjs': 'export const reply = (text) => `echo: ${text}`\n',
    },
    edit: 'lib/handlers.mjs',
  },
]

describe('bot dev --watch with a Node bot: the files it loaded', () => {
  for (const c of cases)
    it(`${c.name}: its writes restart nothing; editing a module it imports restarts it once`, async () => {
      const dir = project(c.name.replace(/\W+/g, '-'), c.files)
      const dev = startDev(world, {cwd: dir, bot: c.bot, args: ['--debounce', '50'], timeoutMs: 90_000})
      await dev.waitForOutput(/Ready/, {timeoutMs: 40_000})
      for (const text of ['one', 'two', 'three']) {
        const update = world.emu.sendUserMessage(world.token, {text, chatId: 77})
        await waitFor(() => world.recorded().includes(update.update_id), {what: `update "${text}"`, timeout: 20_000})
      }
      // Its writes have reached the watcher by the time a later change does (one folder, events in order).
      appendFileSync(join(dir, c.edit), '// saved\n')
      await dev.waitForOutput(/changed; restarting the bot/, {timeoutMs: 20_000})
      await dev.waitForOutput(/Bot listening on port \d+[^]*Bot listening on port \d+/, {timeoutMs: 30_000})
      dev.kill('SIGINT')
      const r = await dev.exited
      const restarts = (r.stdout + r.stderr).match(/↻ .* changed; restarting the bot/g) ?? []
      expect(restarts, r.stderr).toEqual([`↻ ${c.edit} changed; restarting the bot`])
      // It answered through the modules it imported (ES and CommonJS).
      const replies = world.emu.sentMessages(world.token, {chatId: 77}).map((m) => m.params.text)
      expect(replies).toEqual(['» echo: one', '» echo: two', '» echo: three'])
    }, 120_000)

  it('a bot that is not Node reports nothing: source files by extension, as before', async () => {
    const dir = join(world.dir, 'shell-bot')
    mkdirSync(dir)
    // Polling mode (no port to open): it only waits.
    writeFileSync(join(dir, 'bot.sh'), 'exec sleep 600\n')
    const dev = startDev(world, {
      cwd: dir,
      bot: ['sh', 'bot.sh'],
      args: ['--debounce', '50', '--mode', 'polling'],
      timeoutMs: 90_000,
    })
    await dev.waitForOutput(/Ready/, {timeoutMs: 30_000})
    writeFileSync(join(dir, 'data.ts'), 'export {}\n')
    await dev.waitForOutput(/data\.ts changed; restarting the bot/, {timeoutMs: 30_000})
    dev.kill('SIGINT')
    await dev.exited
  })
})

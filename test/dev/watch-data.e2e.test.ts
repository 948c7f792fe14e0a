/**
 * Issue 31 item 13: the file watcher restarts the bot for source changes only. A real bot under
 * `bot dev` writes, for each update, what bots write in their own folder: a grammY-style file
 * session (sessions/<chat>.json), a photo it saved (user_photo.jpg, as the python-telegram-bot
 * example does), a python cache and a virtual environment's file, a source-looking file in a folder
 * .gitignore leaves out, and files under the patterns of --ignore and of package.json's
 * "bot": {"dev": {"ignore": [...]}}. None restarts it; saving its source does, naming only that file.
 */
import {appendFileSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {waitFor} from '../support/wait.js'
import {devWorld, startDev, type DevWorld} from './helpers.js'

let world: DevWorld
beforeEach(async () => {
  world = await devWorld()
})
afterEach(async () => {
  await world.close()
})

const BOT = `import {mkdirSync, writeFileSync, appendFileSync} from 'node:fs'
import http from 'node:http'
const write = (path, data) => {
  mkdirSync(path.split('/').slice(0, -1).join('/') || '.', {recursive: true})
  writeFileSync(path, data)
}
http
  .createServer((req, res) => {
    let body = ''
    req.on('data', (d) => (body += d))
    req.on('end', () => {
      const update = JSON.parse(body)
      const chat = update.message?.chat?.id ?? 0
      write('sessions/' + chat + '.json', JSON.stringify({count: update.update_id}))
      write('user_photo.jpg', Buffer.from([0xff, 0xd8, 0xff]))
      write('__pycache__/bot.cpython-312.pyc', 'x')
      write('.venv/lib/python3.12/site-packages/x.py', 'x = 1')
      write('generated/schema.ts', 'export const x = ' + update.update_id)
      write('cache/state.ts', 'export const y = 1')
      write('uploads/incoming.js', '// uploaded by a user')
      appendFileSync(process.env.FIXTURE_RECORD, update.update_id + '\\n')
      res.writeHead(200).end()
    })
  })
  .listen(Number(process.env.PORT), '127.0.0.1')
`

describe('bot dev --watch with a bot that writes files in its folder', () => {
  it('restarts for a saved source file only', async () => {
    const dir = join(world.dir, 'project')
    mkdirSync(dir)
    writeFileSync(join(dir, 'bot.mjs'), BOT)
    writeFileSync(join(dir, '.gitignore'), 'generated/\n')
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({name: 'writer', type: 'module', bot: {dev: {ignore: ['uploads/**']}}}),
    )
    const dev = startDev(world, {
      cwd: dir,
      bot: ['node', 'bot.mjs'],
      args: ['--debounce', '50', '--ignore', 'cache/**'],
      timeoutMs: 90_000,
    })
    await dev.waitForOutput(/Ready/, {timeoutMs: 25_000})
    for (const text of ['one', 'two', 'three']) {
      const update = world.emu.sendUserMessage(world.token, {text})
      await waitFor(() => world.recorded().includes(update.update_id), {what: `update "${text}"`, timeout: 20_000})
    }
    // The source is saved: one restart, for it alone (a write of the bot's above would show here too,
    // in an earlier restart or in this one's list).
    appendFileSync(join(dir, 'bot.mjs'), '// saved\n')
    await dev.waitForOutput(/changed; restarting the bot/, {timeoutMs: 20_000})
    await dev.waitForOutput(/Bot listening on port \d+[^]*Bot listening on port \d+/, {timeoutMs: 20_000})
    dev.kill('SIGINT')
    const r = await dev.exited
    const restarts = (r.stdout + r.stderr).match(/↻ .* changed; restarting the bot/g) ?? []
    expect(restarts, r.stderr).toEqual(['↻ bot.mjs changed; restarting the bot'])
    expect(readFileSync(join(dir, 'sessions', '1111.json'), 'utf8').length).toBeGreaterThan(0)
    expect(r.stderr).toMatch(/Watching .* for source changes \(.*uploads\/\*\*, cache\/\*\* ignored\)/)
  }, 90_000)
})

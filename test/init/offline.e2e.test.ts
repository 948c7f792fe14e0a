/**
 * `printf '/start\nhello\n/roll d20\n' | bot dev --offline` in a project made by `bot init`, for each
 * template, in webhook and polling mode: the emulator in-process, the bot started through its
 * `dev:bot` script, the replies on stdout. The project's node_modules is a link to this checkout's.
 */
import {rmSync, symlinkSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, describe, expect, it} from 'vitest'

import {PROJECT_ROOT, runCli} from '../support/cli.js'
import {TEMPLATES, init, tempDir} from './support.js'

const root = tempDir('bot-init-offline-')
afterAll(() => rmSync(root, {recursive: true, force: true}))

describe.each(TEMPLATES)('bot dev --offline in a %s project made by bot init', (template) => {
  it.each(['webhook', 'polling'] as const)(
    '%s mode: scripted lines in, the replies on stdout, exit 0',
    async (mode) => {
      const dir = join(root, `${template}-${mode}`)
      const made = await init([dir, '--template', template, '--no-install', '--no-git', '--yes'])
      expect(made.code, made.stderr).toBe(0)
      symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir')
      const r = await runCli(['dev', '--offline', '--no-watch', '--mode', mode], {
        cwd: dir,
        input: '/start\nhello\n/roll d20\n',
        timeoutMs: 90_000,
        env: {BOT_STATE_DIR: join(dir, '.state')},
      })
      expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0)
      const lines = r.stdout.split('\n')
      expect(lines.slice(0, 5)).toEqual([
        'you › /start',
        'bot › Hello, You! Send me a message and I will echo it. /help lists the commands.',
        'you › hello',
        'bot › hello',
        'you › /roll d20',
      ])
      const total = Number(/^bot › 🎲 d20: (\d+)$/.exec(lines[5] ?? '')?.[1])
      expect(total, r.stdout).toBeGreaterThanOrEqual(1)
      expect(total).toBeLessThanOrEqual(20)
      expect(r.stderr).toMatch(/SIG(INT|TERM): stopping/) // the bot stopped through its own handler
    },
    90_000,
  )
})

/**
 * Each template under the offline dev session (what `bot dev --offline` runs): the emulator in-process,
 * the bot started through its `dev:bot` script, scripted chat lines in, the bot's replies out, in
 * webhook and polling mode. The generated project's node_modules is a link to this checkout's.
 */
import {rmSync, symlinkSync} from 'node:fs'
import {join} from 'node:path'
import {PassThrough} from 'node:stream'

import {afterAll, describe, expect, it} from 'vitest'

import {resolveBotCommand} from '../../src/dev/index.js'
import {runOfflineDev} from '../../src/offline/index.js'
import {PROJECT_ROOT} from '../support/cli.js'
import {TEMPLATES, init, tempDir} from './support.js'

const root = tempDir('bot-init-offline-')
afterAll(() => rmSync(root, {recursive: true, force: true}))

async function generate(template: string): Promise<string> {
  const dir = join(root, `${template}-offline-bot`)
  const r = await init([dir, '--template', template, '--no-install', '--no-git', '--yes'])
  expect(r.code, r.stderr).toBe(0)
  symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir')
  return dir
}

describe.each(TEMPLATES)('template %s offline', (template) => {
  let dir: string

  it.each(['webhook', 'polling'] as const)('%s mode: answers /start, echoes, rolls dice', async (mode) => {
    dir ??= await generate(template)
    const input = new PassThrough()
    const output = new PassThrough()
    let transcript = ''
    output.setEncoding('utf8').on('data', (d: string) => (transcript += d))
    const log: string[] = []
    input.end('/start\nhello offline\n/roll d20\n')
    const summary = await runOfflineDev({
      mode,
      command: resolveBotCommand([], dir),
      cwd: dir,
      watch: false,
      input,
      output,
      logOutput: new PassThrough(),
      onEvent: (event) => {
        if ('text' in event && typeof event.text === 'string') log.push(event.text)
      },
    })
    const lines = transcript.split('\n')
    expect(lines, `${transcript}\n${log.join('\n')}`).toContain('you › /start')
    expect(lines.find((l) => l.startsWith('bot › Hello'))).toBeTruthy()
    expect(lines).toContain('bot › hello offline')
    expect(lines.find((l) => /^bot › 🎲 d20: \d+$/.test(l)), transcript).toBeTruthy()
    expect(summary.exitCode, log.join('\n')).toBe(0)
  }, 60_000)
})

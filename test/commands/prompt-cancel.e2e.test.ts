/**
 * A cancelled question ends the command with exit code 130, one line and no stack: Ctrl-C or Esc
 * at `bot webhook delete --drop-pending-updates`'s confirmation and at `bot init`'s prompts, on a
 * real pseudo-terminal (util-linux `script`). Nothing is changed or written.
 */
import {spawnSync} from 'node:child_process'
import {readdirSync} from 'node:fs'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {BotApiEmulator} from '../../src/emulator/index.js'
import {cleanEnv, startProcess, tempDir} from '../init/support.js'
import {BIN} from '../support/paths.js'

const hasScript = spawnSync('script', ['--version']).status === 0
const node = JSON.stringify(process.execPath)
const bin = JSON.stringify(BIN)

let emu: BotApiEmulator
beforeAll(async () => {
  emu = await BotApiEmulator.start({timeScale: 0.01})
})
afterAll(async () => {
  await emu.stop()
})

function onTerminal(args: string, env: Record<string, string | undefined> = {}, cwd = tempDir()) {
  return startProcess('script', ['-qefc', `${node} ${bin} ${args}`, '/dev/null'], {
    cwd,
    env: cleanEnv({TERM: 'xterm', NO_COLOR: '1', CI: undefined, ...env}),
    stdin: 'pipe',
  })
}

function expectCancelled(output: string, line: string): void {
  expect(output).toContain(`✗ ${line}`)
  expect(output).not.toMatch(/ExitPromptError|AbortPromptError|^\s+at /m)
}

describe.skipIf(!hasScript)('a cancelled prompt exits 130', () => {
  it.each([
    ['Ctrl-C', '\x03'],
    ['Esc', '\x1b'],
  ])(
    '%s at the confirmation of bot webhook delete --drop-pending-updates: 130, nothing changed',
    async (_key, bytes) => {
      const {token} = emu.createBot()
      emu.sendUserMessage(token, {text: 'pending'})
      const p = onTerminal('webhook delete --drop-pending-updates', {
        BOT_TOKEN: token,
        BOT_API_ROOT: emu.apiRoot,
        BOT_STATE_DIR: tempDir(),
      })
      try {
        await p.waitForOutput(/drop 1 pending update\?/)
        p.child.stdin!.write(bytes)
        await p.waitForOutput(/Cancelled: nothing changed/)
      } finally {
        p.child.stdin!.end()
      }
      const exit = await p.exited
      expect(exit.code, p.output()).toBe(130)
      expectCancelled(p.output(), 'Cancelled: nothing changed.')
      expect(emu.calls(token).map((c) => c.method)).not.toContain('deleteWebhook')
      expect(emu.pendingUpdates(token)).toHaveLength(1)
    },
  )

  it("Esc at bot init's first prompt: 130, nothing written", async () => {
    const cwd = tempDir()
    const p = onTerminal('init --no-install --no-git', {}, cwd)
    try {
      await p.waitForOutput(/Project folder/)
      p.child.stdin!.write('\x1b')
      await p.waitForOutput(/Cancelled: nothing was written/)
    } finally {
      p.child.stdin!.end()
    }
    const exit = await p.exited
    expect(exit.code, p.output()).toBe(130)
    expectCancelled(p.output(), 'Cancelled: nothing was written.')
    expect(readdirSync(cwd)).toEqual([])
  })
})

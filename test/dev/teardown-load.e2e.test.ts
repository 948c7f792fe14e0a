/**
 * Teardown reaches the Bot API whatever the inbound load: a real `bot dev` with
 * few file descriptors (`ulimit -n 512`, where ~21,000 idle connections did it on a laptop) gets
 * ~1,800 idle connections to its inspector, control port and api proxy (no key needed to open
 * one). The bounded servers close their oldest idle ones instead of running out of descriptors, a
 * `bot trigger` still gets through, and on Ctrl-C the webhook is deleted and the exit code is 0
 * (before: `connect EMFILE`, webhook left set, exit 1).
 */
import {spawn} from 'node:child_process'
import {readdirSync, readFileSync} from 'node:fs'
import net from 'node:net'
import {join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {BIN, cliEnv, runCli, PROCESS_WAIT_MS} from '../support/cli.js'
import {waitFor} from '../support/wait.js'
import {devWorld, fixture, type DevWorld} from './helpers.js'

let world: DevWorld | undefined
const sockets: net.Socket[] = []
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy()
  await world?.close()
  world = undefined
})

/** `n` connections to `port` that send nothing; resolves once each is connected (or refused). */
async function idle(port: number, n: number): Promise<void> {
  await Promise.all(
    Array.from(
      {length: n},
      () =>
        new Promise<void>((resolve) => {
          const socket = net.connect(port, '127.0.0.1')
          sockets.push(socket)
          socket.on('error', () => resolve())
          socket.once('connect', () => resolve())
        }),
    ),
  )
}

describe('bot dev under a flood of idle connections', () => {
  it('keeps its descriptors: a trigger gets through, and Ctrl-C still deletes the webhook (exit 0)', async () => {
    world = await devWorld()
    const w = world
    const args = ['dev', '--json', '--api-root', w.emu.apiRoot, '--tunnel-host', w.lt.url, '--no-watch']
    const child = spawn(
      'sh',
      ['-c', `ulimit -n 512 && exec "$0" "$@"`, process.execPath, BIN, ...args, '--', 'node', fixture('echo-bot.mjs')],
      {
        cwd: w.dir,
        env: cliEnv({env: {BOT_TOKEN: w.token, BOT_STATE_DIR: w.stateDir, FIXTURE_RECORD: w.record}}),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
    const killer = setTimeout(() => child.kill('SIGKILL'), 90_000)
    try {
      const events = () =>
        stdout
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as Record<string, any>)
      const ready = await waitFor(() => events().find((e) => e.type === 'ready'), {
        what: () => `the ready event\nstdout: ${stdout}\nstderr: ${stderr}`,
        timeout: PROCESS_WAIT_MS,
      })
      const inspectorPort = Number(new URL(ready.inspectorUrl as string).port)
      const proxyStep = events().find((e) => e.type === 'step' && e.step === 'api-proxy')!
      const proxyPort = Number(/http:\/\/127\.0\.0\.1:(\d+)/.exec(proxyStep.text as string)![1])
      const name = readdirSync(w.stateDir).find((f) => /^control-\d+\.json$/.test(f))!
      const controlPort = (JSON.parse(readFileSync(join(w.stateDir, name), 'utf8')) as {port: number}).port
      expect(w.emu.getWebhookInfo(w.token).url).not.toBe('')

      await idle(inspectorPort, 700)
      await idle(controlPort, 400)
      await idle(proxyPort, 700)

      // The session still works: a trigger reaches the bot through the control port.
      const trigger = await runCli(['trigger', 'message', '/start', '--chat', '1111'], {
        cwd: w.dir,
        env: {BOT_TOKEN: w.token, BOT_STATE_DIR: w.stateDir},
        timeoutMs: 90_000,
      })
      expect(trigger.code, trigger.stdout + trigger.stderr).toBe(0)

      child.kill('SIGINT')
      const code = await exited
      expect(stderr + stdout).not.toMatch(/EMFILE/)
      expect(code, `stdout: ${stdout}\nstderr: ${stderr}`).toBe(0)
      expect(events().some((e) => e.type === 'teardown' && e.step === 'webhook' && e.ok === true)).toBe(true)
      expect(w.emu.getWebhookInfo(w.token).url).toBe('')
    } finally {
      clearTimeout(killer)
      if (child.exitCode === null) child.kill('SIGKILL')
    }
  }, 120_000)
})

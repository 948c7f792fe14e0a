/**
 * The inspector's history of `bot dev --offline` is kept per project, like online,
 * so `bot replay` of an update from an earlier offline run finds it; and replaying it into the fresh
 * emulator of a new run works: the emulator learns the update's chat, as Telegram would know it.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {fixture} from '../dev/helpers.js'
import {BIN, cliEnv, runCli} from '../support/cli.js'
import {waitFor} from '../support/wait.js'
import {recordLines} from '../inspector/offline-helpers.js'

const running: ChildProcess[] = []
afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
})

const BOT = ['--', 'node', fixture('inspector-bot.mjs')]

describe('bot replay of an update from an earlier bot dev --offline run', () => {
  for (const mode of ['webhook', 'polling'] as const) {
    it(`finds it in the project's history and the fresh emulator takes it, chat and all (${mode})`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'bot-offline-history-'))
      const env = {BOT_STATE_DIR: join(dir, 'state'), FIXTURE_RECORD: join(dir, 'record.txt')}
      // 1. An earlier run, as user 4242 (a chat the next run's emulator has never seen).
      const first = await runCli(['dev', '--offline', '--no-watch', '--mode', mode, '--user', '4242', ...BOT], {
        cwd: dir,
        input: 'remember me\n',
        env,
        timeoutMs: 90_000,
      })
      expect(first.code, first.stderr).toBe(0)
      const id = Number(/#(\d+) message chat 4242 "remember me"/.exec(first.stderr)?.[1])
      expect(id, first.stderr).toBeGreaterThan(0)

      // 2. A new run in the same project (its input left open), then the replay from another terminal.
      const second = spawn(
        process.execPath,
        [BIN, 'dev', '--offline', '--no-watch', '--mode', mode, '--json', ...BOT],
        {
          cwd: dir,
          env: cliEnv({env}),
          stdio: ['pipe', 'pipe', 'pipe'],
        },
      )
      running.push(second)
      let stdout = ''
      second.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d))
      second.stdin!.on('error', () => {})
      await waitFor(() => stdout.includes('"type":"ready"'), {what: () => `ready\n${stdout}`, timeout: 30_000})

      const replay = await runCli(['replay', String(id)], {cwd: dir, env, timeoutMs: 90_000})
      expect(replay.code, replay.stdout + replay.stderr).toBe(0)
      // The bot got it again and its answer to chat 4242 went through: no "chat not found".
      await waitFor(
        () => recordLines(env.FIXTURE_RECORD).filter((l) => l.endsWith('message remember me')).length === 2,
        {
          what: 'the replayed update at the bot',
        },
      )
      const events = () =>
        stdout
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as {type: string; source?: string; replayOf?: number; method?: string})
      await waitFor(() => events().some((e) => e.type === 'update' && e.source === 'replay' && e.replayOf === id), {
        what: () => `the replay's update line\n${stdout}`,
      })
      expect(events().filter((e) => e.type === 'api-call')).toEqual([])
      second.stdin!.end()
      const code = await new Promise<number | null>((r) => second.on('close', r))
      expect(code).toBe(0)
    }, 90_000)
  }
})

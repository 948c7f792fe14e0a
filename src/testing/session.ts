/**
 * The bot under test, started as `bot dev --offline` starts it (offline/dev-offline.ts): the in-process emulator
 * with a fresh fake token, the dev session against it (the bot command, its environment: BOT_TOKEN, BOT_API_ROOT,
 * BOT_MODE, PORT, WEBHOOK_*), webhooks over loopback, no file watching and no inspector. Ready once the session is
 * and the bot takes updates (its webhook is set, or it polls); the bot's output lines are kept with their time.
 */
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import type {BotApiEmulator} from '../emulator/index.js'
import type {BotCommand} from '../dev/bot/command.js'
import {DevSession, type DevEvent, type DevSummary} from '../dev/index.js'
import {offlineSessionToken, startOfflineBackend} from '../offline/offline-env.js'
import {BotApi} from '../telegram/index.js'
import {loopbackProvider} from '../tunnel/index.js'

/** At most this many output lines are kept (the oldest go first). */
const MAX_LINES = 20_000

export interface OutputLine {
  at: number
  stream: 'stdout' | 'stderr'
  line: string
}

export interface TestBotOptions {
  command: BotCommand
  cwd: string
  mode: 'webhook' | 'polling'
  /** How long the bot may take to start taking updates (default 60000 ms). */
  startupTimeoutMs?: number
  /** Every event of the session (for --json or a log). */
  onEvent?: (event: DevEvent) => void
  /** Stop waiting for the bot (it is stopped). */
  signal?: AbortSignal
}

export interface TestBot {
  emulator: BotApiEmulator
  token: string
  /** The bot's output lines so far, oldest first. */
  output: OutputLine[]
  /** Stop the bot and the emulator (idempotent); the session's summary. */
  stop(): Promise<DevSummary | undefined>
}

/** A start-up that failed: why, and the bot's last output lines. */
export class BotStartError extends Error {
  constructor(
    message: string,
    readonly output: OutputLine[],
  ) {
    super(message)
  }
}

export async function startTestBot(options: TestBotOptions): Promise<TestBot> {
  const backend = await startOfflineBackend({token: offlineSessionToken()})
  const stateDir = mkdtempSync(join(tmpdir(), 'bot-test-state-'))
  const output: OutputLine[] = []
  const controller = new AbortController()
  let readyEvent: (() => void) | undefined
  const ready = new Promise<void>((resolve) => (readyEvent = resolve))
  const session = new DevSession({
    api: new BotApi({token: backend.token, apiRoot: backend.apiRoot}),
    token: backend.token,
    apiRoot: backend.apiRoot,
    passApiRoot: true,
    mode: options.mode,
    ...(options.mode === 'webhook' ? {tunnel: loopbackProvider()} : {}),
    command: options.command,
    cwd: options.cwd,
    watch: false,
    endOnEarlyExit: true,
    inspect: false,
    stateDir,
    keepDir: stateDir,
    controlDir: stateDir,
    offline: {emulator: backend.emulator, token: backend.token, user: backend.user, onSent: () => {}},
    signal: controller.signal,
    onEvent: (event) => {
      if (event.type === 'bot-output') {
        output.push({at: Date.now(), stream: event.stream, line: event.line})
        if (output.length > MAX_LINES) output.splice(0, MAX_LINES / 10)
      }
      if (event.type === 'ready') readyEvent?.()
      options.onEvent?.(event)
    },
  })
  const ran = session.run()
  let summary: DevSummary | undefined
  const ended = ran.then(
    (s) => {
      summary = s
    },
    () => undefined,
  )
  let stopped: Promise<DevSummary | undefined> | undefined
  const stop = (): Promise<DevSummary | undefined> =>
    (stopped ??= (async () => {
      controller.abort(new Error('the tests are over'))
      await ended
      await backend.stop()
      rmSync(stateDir, {recursive: true, force: true})
      return summary
    })())
  const emulator = backend.emulator
  const token = backend.token
  const limit = options.startupTimeoutMs ?? 60_000
  const takesUpdates = (): boolean => emulator.webhook(token) !== undefined || emulator.isLongPolling(token)
  const outcome = await new Promise<'ready' | 'ended' | 'timeout' | 'stopped'>((resolve) => {
    let timer: NodeJS.Timeout | undefined
    let poll: NodeJS.Timeout | undefined
    const onAbort = () => finish('stopped')
    const finish = (value: 'ready' | 'ended' | 'timeout' | 'stopped') => {
      clearTimeout(timer)
      clearInterval(poll)
      options.signal?.removeEventListener('abort', onAbort)
      resolve(value)
    }
    if (options.signal?.aborted) return finish('stopped')
    options.signal?.addEventListener('abort', onAbort, {once: true})
    timer = setTimeout(() => finish('timeout'), limit)
    void ended.then(() => finish('ended'))
    void ready.then(() => {
      // a polling bot's first getUpdates may come after Ready: checked every 25 ms until the deadline
      if (takesUpdates()) return finish('ready')
      poll = setInterval(() => takesUpdates() && finish('ready'), 25)
    })
  })
  if (outcome === 'ready') return {emulator, token, output, stop}
  await stop()
  throw new BotStartError(
    outcome === 'stopped'
      ? 'The run was stopped before the bot was ready.'
      : outcome === 'timeout'
        ? `The bot did not start taking updates within ${Math.round(limit / 1000)} s (${options.command.display}).`
        : `The bot stopped before it was ready (${options.command.display}${summary ? `, ${summary.reason}` : ''}).`,
    output.slice(-20),
  )
}

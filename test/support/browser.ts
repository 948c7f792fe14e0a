/**
 * For the inspector's tests: Debian's chromium driven by playwright-core, and an echo "session": the
 * emulator delivers webhooks to a loopback handler that records each update in a real UpdateHistory,
 * makes a real sendMessage call to the emulator for it (attached by its chat, as the api proxy's
 * calls are), and can replay a recorded update as a new delivery.
 */
import {existsSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'

import type {Browser} from 'playwright-core'

import {BotApiEmulator} from '../../src/emulator/index.js'
import {UpdateHistory} from '../../src/inspector/history/history.js'
import type {ApiCall, EntrySource, UpdateEntry} from '../../src/inspector/types.js'
import {ActionError, type SessionActions} from '../../src/control/protocol.js'

export const CHROMIUM_CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']

/** The local chromium, or undefined. */
export function findChromium(): string | undefined {
  const fromEnv = process.env.BOT_TEST_CHROMIUM
  if (fromEnv && existsSync(fromEnv)) return fromEnv
  return CHROMIUM_CANDIDATES.find((p) => existsSync(p))
}

/**
 * Why a browser test is skipped, or undefined when it runs. It is skipped only when no chromium is
 * installed and this is not CI (on CI a missing chromium fails the test: .ci/run installs it).
 */
export function browserSkipReason(): string | undefined {
  if (findChromium()) return undefined
  if (process.env.CI) return undefined
  return `no chromium at ${CHROMIUM_CANDIDATES.join(', ')}: install it (apt-get install chromium) to run the inspector's browser tests`
}

/** Debian's chromium, headless; `args` add to its flags (e.g. `--host-resolver-rules` for a rebound name). */
export async function launchChromium(args: string[] = []): Promise<Browser> {
  const executablePath = findChromium()
  if (!executablePath)
    throw new Error(`no chromium found (${CHROMIUM_CANDIDATES.join(', ')}); .ci/run installs it with apt-get`)
  const {chromium} = await import('playwright-core')
  return chromium.launch({
    executablePath,
    headless: true,
    timeout: 60_000,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-extensions',
      '--no-first-run',
      '--disable-sync',
      '--mute-audio',
      ...args,
    ],
  })
}

export interface EchoSession {
  emu: BotApiEmulator
  token: string
  history: UpdateHistory
  actions: Pick<SessionActions, 'replay'>
  /** Number of webhook deliveries and replays the "bot" handled. */
  handled(): number
  close(): Promise<void>
}

/**
 * An emulator-backed echo bot behind a recording "relay": each update becomes a history entry with
 * the real sendMessage call it caused (text "fail" makes a broken MarkdownV2 answer: 400 can't parse entities).
 */
export async function startEchoSession(): Promise<EchoSession> {
  const emu = await BotApiEmulator.start()
  const {token} = emu.createBot({username: 'echo_test_bot'})
  const history = new UpdateHistory()
  let handled = 0

  async function call(method: string, params: Record<string, unknown>): Promise<ApiCall> {
    const started = performance.now()
    const time = new Date().toISOString()
    const res = await fetch(`${emu.apiRoot}/bot${token}/${method}`, {
      method: 'POST',
      headers: {'content-type': 'application/json'},
      body: JSON.stringify(params),
    })
    const answer = (await res.json()) as {ok: boolean; error_code?: number; description?: string}
    const ms = Math.round((performance.now() - started) * 10) / 10
    return {
      method,
      ok: answer.ok,
      ms,
      params,
      time,
      chatId: params.chat_id as number,
      ...(answer.ok ? {} : {errorCode: answer.error_code, description: answer.description}),
      ...(answer.description?.includes("can't parse entities")
        ? {
            explanation:
              'The text is not valid MarkdownV2: escape _*[]()~`>#+-=|{}.! with a backslash, or send it without parse_mode.',
          }
        : {}),
    }
  }

  async function deliver(
    update: Record<string, unknown>,
    source: EntrySource,
    replayOf?: number,
  ): Promise<UpdateEntry> {
    const started = performance.now()
    const entry = history.begin(update, source, replayOf)
    handled++
    const message = update.message as {text?: string; chat: {id: number}} | undefined
    if (message) {
      const params =
        message.text === 'fail'
          ? {chat_id: message.chat.id, text: 'you said *fail', parse_mode: 'MarkdownV2'}
          : {chat_id: message.chat.id, text: message.text ?? '(no text)'}
      history.addCall(await call('sendMessage', params))
    }
    history.finish(entry, {status: 200, body: ''}, Math.round((performance.now() - started) * 10) / 10)
    return entry
  }

  const hook: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      deliver(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>, 'webhook')
        .then(() => res.writeHead(200).end())
        .catch(() => res.writeHead(500).end())
    })
  })
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve))
  const hookPort = (hook.address() as AddressInfo).port
  const set = await fetch(`${emu.apiRoot}/bot${token}/setWebhook`, {
    method: 'POST',
    headers: {'content-type': 'application/json'},
    body: JSON.stringify({url: `http://127.0.0.1:${hookPort}/hook`}),
  })
  if (!((await set.json()) as {ok: boolean}).ok) throw new Error('setWebhook on the emulator failed')

  const actions: Pick<SessionActions, 'replay'> = {
    async replay(updateId, edited) {
      const original = updateId === 'last' ? history.last() : history.find(updateId)
      if (!original)
        throw new ActionError(
          404,
          `no update ${updateId} in this session's history`,
          'bot replay --last replays the newest one',
        )
      const update = {...((edited ?? original.update) as Record<string, unknown>), update_id: original.updateId}
      return deliver(update, 'replay', original.updateId)
    },
  }

  return {
    emu,
    token,
    history,
    actions,
    handled: () => handled,
    async close() {
      hook.closeAllConnections()
      await new Promise<void>((resolve) => hook.close(() => resolve()))
      await emu.stop()
    },
  }
}

/**
 * Run a real grammY or Telegraf bot against the emulator in either mode: long polling (the framework's own loop) or
 * webhook (a loopback HTTP server with the framework's webhook handler, setWebhook done over real HTTP). Both take
 * the bot's allowed_updates, as a real bot passes them. `stop()` ends it and waits.
 */
import http from 'node:http'
import type {AddressInfo} from 'node:net'
import {type Bot as GrammyBot, webhookCallback} from 'grammy'
import type {Telegraf} from 'telegraf'
import type {BotApiEmulator} from '../../src/emulator/index.js'
import {waitFor} from '../support/wait.js'

export type Mode = 'polling' | 'webhook'
export const MODES: Mode[] = ['polling', 'webhook']

/** A loopback HTTP server for a webhook handler, with setWebhook done; stopped by the returned function. */
export async function serveWebhook(
  emu: BotApiEmulator,
  token: string,
  handler: http.RequestListener,
  allowedUpdates?: string[],
): Promise<() => Promise<void>> {
  const server = http.createServer(handler)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
  const setWebhook = async () => {
    const res = await fetch(`${emu.apiRoot}/bot${token}/setWebhook`, {
      method: 'POST',
      headers: {'content-type': 'application/json'},
      body: JSON.stringify({url, ...(allowedUpdates ? {allowed_updates: allowedUpdates} : {})}),
    })
    return (await res.json()) as {ok: boolean; error_code?: number; description?: string}
  }
  // a second setWebhook within a second gets 429 (as on Telegram): retry until it is taken
  const answer = await waitFor(
    async () => {
      const a = await setWebhook()
      return a.error_code === 429 ? undefined : a
    },
    {what: 'setWebhook to be taken'},
  )
  if (!answer.ok) throw new Error(`setWebhook failed: ${answer.description}`)
  return async () => {
    server.closeAllConnections()
    await new Promise((r) => server.close(r))
  }
}

export async function runGrammy(
  emu: BotApiEmulator,
  token: string,
  bot: GrammyBot,
  mode: Mode,
  allowedUpdates?: string[],
): Promise<() => Promise<void>> {
  if (mode === 'webhook') {
    await bot.init()
    return serveWebhook(emu, token, webhookCallback(bot, 'http'), allowedUpdates)
  }
  const running = bot.start(allowedUpdates ? {allowed_updates: allowedUpdates as never} : {})
  await waitFor(() => emu.isLongPolling(token), {what: 'grammY to poll'})
  return async () => {
    await bot.stop()
    await running
  }
}

export async function runTelegraf(
  emu: BotApiEmulator,
  token: string,
  bot: Telegraf,
  mode: Mode,
  allowedUpdates?: string[],
): Promise<() => Promise<void>> {
  if (mode === 'webhook')
    return serveWebhook(emu, token, bot.webhookCallback('/hook') as http.RequestListener, allowedUpdates)
  let launched = false
  const running = bot.launch({allowedUpdates: allowedUpdates as never}, () => {
    launched = true
  })
  await waitFor(() => launched && emu.isLongPolling(token), {what: 'Telegraf to poll'})
  return async () => {
    bot.stop('test over')
    await running
  }
}

/** POST a JSON body to the control API of the bot; the status and the parsed answer. */
export async function control(
  emu: BotApiEmulator,
  token: string,
  path: string,
  body?: unknown,
  method = body === undefined ? 'GET' : 'POST',
): Promise<{status: number; json: any}> {
  const res = await fetch(`${emu.controlApiRoot}/bots/${token}${path}`, {
    method,
    ...(body !== undefined ? {headers: {'content-type': 'application/json'}, body: JSON.stringify(body)} : {}),
  })
  return {status: res.status, json: await res.json()}
}

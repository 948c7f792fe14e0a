/**
 * The Bot API client against the emulator (two independent readings of the Bot API facts
 * checking each other): typed methods, descriptions, 401/404/409, and the 429 wait.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {BotApiEmulator} from '../../src/emulator/index.js'
import {BotApi, BotApiError} from '../../src/telegram/index.js'
import {waitFor} from '../support/wait.js'

let emu: BotApiEmulator

beforeAll(async () => {
  emu = await BotApiEmulator.start({timeScale: 0.01})
})
afterAll(async () => {
  await emu.stop()
})

function client(
  token = emu.createBot({username: 'client_test_bot', firstName: 'Client'}).token,
  debug?: (l: string) => void,
) {
  return {token, api: new BotApi({token, apiRoot: emu.apiRoot, debug})}
}

async function failure(p: Promise<unknown>): Promise<BotApiError> {
  const e = await p.then(
    () => {
      throw new Error('expected a failure')
    },
    (error: unknown) => error,
  )
  expect(e).toBeInstanceOf(BotApiError)
  return e as BotApiError
}

describe('BotApi against the emulator', () => {
  it('getMe returns the bot', async () => {
    const {api} = client()
    const me = await api.getMe()
    expect(me).toMatchObject({is_bot: true, username: 'client_test_bot', first_name: 'Client'})
  })

  it('setWebhook / getWebhookInfo / deleteWebhook round trip, with descriptions', async () => {
    const {api, token} = client()
    const set = await api.callEnvelope('setWebhook', {
      url: 'http://127.0.0.1:9/hook',
      max_connections: 2,
      allowed_updates: ['message'],
    })
    expect(set).toEqual({result: true, description: 'Webhook was set'})
    const info = await api.getWebhookInfo()
    expect(info).toMatchObject({
      url: 'http://127.0.0.1:9/hook',
      max_connections: 2,
      allowed_updates: ['message'],
      pending_update_count: 0,
    })
    expect(emu.webhook(token)?.url).toBe('http://127.0.0.1:9/hook')
    expect(await api.callEnvelope('deleteWebhook')).toEqual({result: true, description: 'Webhook was deleted'})
    expect(await api.callEnvelope('deleteWebhook')).toEqual({result: true, description: 'Webhook is already deleted'})
  })

  it('getUpdates returns queued updates and confirms them with offset', async () => {
    const {api, token} = client()
    emu.sendUserMessage(token, {text: 'one'})
    emu.sendUserMessage(token, {text: 'two'})
    const updates = await api.getUpdates()
    expect(updates.map((u) => u.message?.text)).toEqual(['one', 'two'])
    await api.getUpdates({offset: updates[1].update_id + 1, timeout: 0})
    expect(emu.pendingUpdates(token)).toHaveLength(0)
  })

  it('a long poll waits for an update', async () => {
    const {api, token} = client()
    const poll = api.getUpdates({timeout: 5})
    setTimeout(() => emu.sendUserMessage(token, {text: 'late'}), 50)
    const updates = await poll
    expect(updates[0].message?.text).toBe('late')
  })

  it('409 while a webhook is set is recognised', async () => {
    const {api} = client()
    await api.setWebhook({url: 'http://127.0.0.1:9/hook'})
    const e = await failure(api.getUpdates())
    expect(e.code).toBe(409)
    expect(e.isWebhookActiveConflict).toBe(true)
    expect(e.isPollerConflict).toBe(false)
  })

  it('409 for the older of two waiting polls is recognised', async () => {
    const {api, token} = client()
    const older = failure(api.getUpdates({timeout: 10}))
    // Start the newer poll once the older one is waiting.
    await waitFor(() => emu.isLongPolling(token), {what: 'the older poll waiting'})
    const newer = api.getUpdates({timeout: 1})
    const e = await older
    expect(e.code).toBe(409)
    expect(e.isPollerConflict).toBe(true)
    await newer
  })

  it('401 for a revoked token, 404 for a malformed one, never with the token in the error', async () => {
    const {token} = client()
    emu.revokeToken(token)
    const lines: string[] = []
    const e401 = await failure(new BotApi({token, apiRoot: emu.apiRoot, debug: (l) => lines.push(l)}).getMe())
    expect(e401.kind).toBe('api')
    expect(e401.code).toBe(401)
    expect(e401.description).toBe('Unauthorized')
    // A malformed token: the local server (the emulator's default rules) answers 401, api.telegram.org 404.
    const local = await failure(new BotApi({token: 'not-a-token', apiRoot: emu.apiRoot}).getMe())
    expect([local.code, local.description]).toEqual([401, 'Unauthorized: invalid token specified'])
    const cloud = await BotApiEmulator.start({local: false, timeScale: 0.01})
    try {
      const e404 = await failure(new BotApi({token: 'not-a-token', apiRoot: cloud.apiRoot}).getMe())
      expect(e404.code).toBe(404)
    } finally {
      await cloud.stop()
    }
    for (const text of [e401.message, e401.stack ?? '', lines.join('\n')]) {
      expect(text).not.toContain(token)
      expect(text).not.toContain(token.split(':')[1])
    }
  })

  it('waits out the 1-second setWebhook rate limit and succeeds', async () => {
    const real = await BotApiEmulator.start({timeScale: 1})
    try {
      const {token} = real.createBot()
      const lines: string[] = []
      const api = new BotApi({token, apiRoot: real.apiRoot, debug: (l) => lines.push(l)})
      await api.setWebhook({url: 'http://127.0.0.1:9/a'})
      const started = performance.now()
      await api.setWebhook({url: 'http://127.0.0.1:9/b'})
      expect(real.webhook(token)?.url).toBe('http://127.0.0.1:9/b')
      const sets = real.calls(token).filter((c) => c.method === 'setWebhook')
      if (sets.length === 3) {
        // The second call met the rate limit: the client waited as asked.
        expect(sets[1].error?.code).toBe(429)
        expect(lines.join('\n')).toMatch(/setWebhook: 429, waiting 1s as asked/)
        expect(performance.now() - started).toBeGreaterThanOrEqual(900)
      } else expect(sets).toHaveLength(2)
    } finally {
      await real.stop()
    }
  })
})

/**
 * bot dev's check for another poller (start-up time): it is bounded by its window (a poll
 * still waiting when the window closes is cut, not waited out for its whole long-poll timeout), and
 * pending updates end it at once (no poll can wait, so none can be displaced). In-process, against
 * the emulator, and a loopback server that holds a waiting poll longer. Shown by what the servers saw
 * (a poll cut unanswered, a single poll), not by a stopwatch.
 */
import {createServer, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {findRunningPoller} from '../../src/dev/poller-check.js'
import {BotApiEmulator} from '../../src/emulator/index.js'
import {BotApi} from '../../src/telegram/index.js'
import {waitFor} from '../support/wait.js'

let emu: BotApiEmulator
beforeEach(async () => {
  emu = await BotApiEmulator.start()
})
afterEach(async () => {
  await emu.stop()
})

function check(token: string, seconds = 0.5, apiRoot = emu.apiRoot, until?: {signal: AbortSignal; minSeconds: number}) {
  const api = new BotApi({token, apiRoot})
  return findRunningPoller(api, token, {signal: new AbortController().signal, seconds, until})
}

/**
 * getUpdates as the probe meets it at the Bot API: a new poll displaces the waiting one (409 at once), and the
 * waiting one is answered [] only after `holdMs` (a long poll), unless its client closes it first. `answered` counts
 * the polls it answered [] (a check that waited one out), `cut` those their client closed while waiting.
 */
async function holdingBotApi(holdMs: number) {
  let waiting: {res: ServerResponse; timer: NodeJS.Timeout} | undefined
  const seen = {polls: 0, answered: 0, cut: 0}
  const json = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, {'content-type': 'application/json'}).end(JSON.stringify(body))
  const server = createServer((req, res) => {
    req.resume()
    if (!req.url?.endsWith('/getUpdates')) return json(res, 404, {ok: false, error_code: 404, description: 'Not Found'})
    seen.polls++
    if (waiting) {
      clearTimeout(waiting.timer)
      json(waiting.res, 409, {
        ok: false,
        error_code: 409,
        description:
          'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
      })
    }
    const timer = setTimeout(() => {
      waiting = undefined
      seen.answered++
      json(res, 200, {ok: true, result: []})
    }, holdMs)
    const me = {res, timer}
    waiting = me
    res.on('close', () => {
      if (res.writableEnded) return
      clearTimeout(timer)
      if (waiting === me) waiting = undefined
      seen.cut++
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    seen,
    apiRoot: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections()
      return new Promise<void>((r) => server.close(() => r()))
    },
  }
}

describe('the poller check of bot dev', () => {
  it('ends with its 0.5 s window when nobody polls (its waiting poll is cut, not waited out)', async () => {
    // The server holds the waiting poll 5 s, ten windows (and within the client's own 10 s request timeout): a
    // check that waited it out would come back with its answer.
    const api = await holdingBotApi(5000)
    try {
      const found = await check('123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1', 0.5, api.apiRoot)
      expect(found).toBeUndefined()
      expect(api.seen.polls).toBeGreaterThanOrEqual(2) // the probe's first poll, displaced by its second
      expect(api.seen.answered).toBe(0)
      await waitFor(() => api.seen.cut === 1, {what: 'the waiting poll closed by the check'})
    } finally {
      await api.close()
    }
  })

  it('ends at once when updates are pending', async () => {
    const {token} = emu.createBot()
    emu.sendUserMessage(token, {text: 'queued'})
    // A 5 s window: a check that went on would poll again (every poll comes back at once with the update).
    const found = await check(token, 5)
    expect(found).toBeUndefined()
    expect(emu.calls(token).filter((c) => c.method === 'getUpdates')).toHaveLength(1)
    // Nothing was consumed.
    expect(emu.pendingUpdates(token)).toHaveLength(1)
  })

  it('still finds a poller that comes back after its 409', async () => {
    const {token} = emu.createBot()
    const api = new BotApi({token, apiRoot: emu.apiRoot})
    const stop = new AbortController()
    // Another program polling, python-telegram-bot style: it polls again right after a 409.
    const poller = (async () => {
      while (!stop.signal.aborted) await api.getUpdates({timeout: 5}, {signal: stop.signal}).catch(() => {})
    })()
    try {
      await waitFor(() => emu.isLongPolling(token), {what: "the other program's first poll waiting"})
      const found = await check(token)
      expect(found).toBeDefined()
    } finally {
      stop.abort()
      await poller
    }
  })

  // A flake at load 8 (test/dev/hardening.e2e.test.ts, "a poller already running"): with a 0.5 s window the check's
  // second poll had a 1 s long-poll timeout, as long as its wait for a held 409; when that poll's [] came back first,
  // the check ended 'clear' and the session said nothing of the poller. Its polls now outwait that wait.
  it("each poll's long-poll timeout outlasts the wait for a held 409, whatever the window", async () => {
    const {token} = emu.createBot()
    expect(await check(token, 0.5)).toBeUndefined()
    const timeouts = emu
      .calls(token)
      .filter((c) => c.method === 'getUpdates')
      .map((c) => Number(c.params.timeout))
    // (the emulator records a call once answered: the first poll, displaced by the second, which was cut)
    expect(timeouts.length).toBeGreaterThanOrEqual(1)
    // HELD_AFTER_MS (src/dev/poller-check.ts) is 1 s: a poll must not be able to come back [] within it.
    for (const t of timeouts) expect(t).toBeGreaterThanOrEqual(2)
  })

  // bot dev's check stays open until the session asks for its answer (it is about to take the updates), so it uses
  // the time the start takes anyway.
  it('with `until`: a poller between two polls that polls again only later is still found, while the window is open', async () => {
    const {token} = emu.createBot()
    const api = new BotApi({token, apiRoot: emu.apiRoot})
    const wanted = new AbortController()
    const stop = new AbortController()
    try {
      // Another program between two polls (no 409 sent to it, so none is held back): the check's polls wait.
      const found = check(token, 5, emu.apiRoot, {signal: wanted.signal, minSeconds: 0})
      // Its first poll answered (409: displaced by its second), the second waiting.
      await waitFor(() => emu.calls(token).some((c) => c.method === 'getUpdates') && emu.isLongPolling(token), {
        what: "the check's second poll waiting",
      })
      // Only now does the other program poll again: it displaces the check's waiting poll.
      void api.getUpdates({timeout: 5}, {signal: stop.signal}).catch(() => {})
      expect(await found).toBeDefined()
    } finally {
      wanted.abort()
      stop.abort()
    }
  })

  it('with `until`: asking for the answer closes the window (its waiting poll is cut, not waited out)', async () => {
    const api = await holdingBotApi(5000)
    const wanted = new AbortController()
    try {
      const found = check('123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1', 8, api.apiRoot, {
        signal: wanted.signal,
        minSeconds: 0,
      })
      // The probe's first poll, displaced by its second, which waits: then the session asks.
      await waitFor(() => api.seen.polls >= 2, {what: "the check's second poll"})
      wanted.abort()
      expect(await found).toBeUndefined()
      expect(api.seen.answered).toBe(0)
      await waitFor(() => api.seen.cut === 1, {what: 'the waiting poll closed by the check'})
    } finally {
      await api.close()
    }
  })
})

/**
 * bot dev's check for another poller (start-up time): it is bounded by its window (a poll
 * still waiting when the window closes is cut, not waited out for its whole long-poll timeout), and
 * pending updates end it at once (no poll can wait, so none can be displaced). In-process, against
 * the emulator.
 */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {findRunningPoller} from '../../src/dev/poller-check.js'
import {BotApiEmulator} from '../../src/emulator/index.js'
import {BotApi} from '../../src/telegram/index.js'

let emu: BotApiEmulator
beforeEach(async () => {
  emu = await BotApiEmulator.start()
})
afterEach(async () => {
  await emu.stop()
})

function check(token: string, seconds = 0.5) {
  const api = new BotApi({token, apiRoot: emu.apiRoot})
  const started = performance.now()
  return findRunningPoller(api, token, {signal: new AbortController().signal, seconds}).then((found) => ({
    found,
    ms: performance.now() - started,
  }))
}

describe('the poller check of bot dev', () => {
  it('ends with its 0.5 s window when nobody polls (its waiting poll is cut, not waited out)', async () => {
    const {token} = emu.createBot()
    const {found, ms} = await check(token)
    expect(found).toBeUndefined()
    // The Bot API may hold that waiting poll up to 3 s: waited out, the check took 3.3 s here (the bound leaves a
    // loaded machine 1.5 s beyond the window).
    expect(ms).toBeLessThan(2000)
  })

  it('ends at once when updates are pending', async () => {
    const {token} = emu.createBot()
    emu.sendUserMessage(token, {text: 'queued'})
    // A 5 s window: a check that waited it out could not pass for one that ended at once, however loaded the machine.
    const {found, ms} = await check(token, 5)
    expect(found).toBeUndefined()
    expect(ms).toBeLessThan(2500)
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
      await new Promise((r) => setTimeout(r, 50)) // (its first poll is waiting)
      const {found} = await check(token)
      expect(found).toBeDefined()
    } finally {
      stop.abort()
      await poller
    }
  })
})

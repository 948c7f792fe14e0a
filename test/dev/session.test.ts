/**
 * The session's runner (src/dev/session.ts) in-process, with fake parts: the order it starts and
 * stops them in, a part that fails to start, a fallback, the hand-over to polling, a second signal,
 * and the time each part gets at teardown. The claim and webhook parts run for real against a fake
 * Bot API, to show the webhook is deleted (or the state file kept) whichever way the session ends.
 */
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import type {DevEvent} from '../../src/dev/events.js'
import type {DevSessionOptions} from '../../src/dev/options.js'
import {ReplaceablePartError, type SessionContext, type SessionPart} from '../../src/dev/part.js'
import {claimPart} from '../../src/dev/parts/claim.js'
import {webhookPart} from '../../src/dev/parts/webhook.js'
import {DevSession} from '../../src/dev/session.js'
import type {Delivery, DeliveryName} from '../../src/dev/delivery/types.js'
import {readState} from '../../src/session-store/state.js'
import type {BotApi} from '../../src/telegram/index.js'

/** A session over `parts`, its events, and a promise per event type (the first of it). */
function session(parts: SessionPart[], over: Partial<DevSessionOptions> = {}) {
  const events: DevEvent[] = []
  const waiting: Array<{type: DevEvent['type']; resolve: (e: DevEvent) => void}> = []
  const options: DevSessionOptions = {
    api: {} as BotApi,
    token: '1:fake',
    apiRoot: 'http://127.0.0.1:9',
    mode: 'polling',
    cwd: tmpdir(),
    stateDir: mkdtempSync(join(tmpdir(), 'bot-session-test-')),
    onEvent: (event) => {
      events.push(event)
      for (const w of waiting.filter((w) => w.type === event.type)) {
        waiting.splice(waiting.indexOf(w), 1)
        w.resolve(event)
      }
    },
    ...over,
  }
  const dev = new DevSession(options, parts)
  return {
    dev,
    events,
    options,
    /** The next event of `type` (or the first one already seen). */
    next: (type: DevEvent['type']) =>
      new Promise<DevEvent>((resolve) => {
        const seen = events.find((e) => e.type === type)
        if (seen) resolve(seen)
        else waiting.push({type, resolve})
      }),
    texts: (type: DevEvent['type']) => events.filter((e) => e.type === type).map((e) => ('text' in e ? e.text : '')),
  }
}

/** A part that logs its start, stop, abandon and hand-over; `over` replaces any of them. */
function fake(name: string, log: string[], over: Partial<SessionPart> = {}): SessionPart {
  return {
    name,
    async start() {
      log.push(`start ${name}`)
    },
    async stop() {
      log.push(`stop ${name}`)
    },
    abandon() {
      log.push(`abandon ${name}`)
    },
    ...over,
  }
}

function fakeDelivery(name: DeliveryName): Delivery {
  return {
    name,
    botMode: name === 'polling' ? 'polling' : 'webhook',
    url: undefined,
    start: async () => {},
    stop: async () => {},
    close: async () => {},
    onLost: () => {},
  }
}

/** The bot's stand-in: a server of the user's own (no bot process), up at once. */
function fakeBot(log: string[], onStart?: (ctx: SessionContext) => void): SessionPart {
  return fake('bot', log, {
    async start(ctx) {
      log.push('start bot')
      ctx.forwardTo = 'http://127.0.0.1:9'
      ctx.events.emit('bot-up')
      onStart?.(ctx)
    },
  })
}

/** A delivery part of `kind` that puts a fake delivery on the context. */
function fakeDeliveryPart(kind: DeliveryName, log: string[], over: Partial<SessionPart> = {}): SessionPart {
  return fake(kind, log, {
    async start(ctx) {
      log.push(`start ${kind}`)
      ctx.delivery = fakeDelivery(kind)
    },
    ...over,
  })
}

describe('the session runner', () => {
  it('starts the parts in order, says Ready once all are up, and stops them in reverse, once', async () => {
    const log: string[] = []
    const s = session([fake('a', log), fake('b', log), fakeDeliveryPart('polling', log), fakeBot(log)])
    const run = s.dev.run()
    const ready = await s.next('ready')
    expect(ready).toMatchObject({mode: 'polling', delivery: 'polling'})
    expect(log).toEqual(['start a', 'start b', 'start polling', 'start bot'])
    s.dev.stop()
    s.dev.stop()
    const summary = await run
    expect(log.slice(4)).toEqual(['stop bot', 'stop polling', 'stop b', 'stop a'])
    expect(summary).toMatchObject({exitCode: 0, reason: 'stop'})
    expect(s.events.filter((e) => e.type === 'ready')).toHaveLength(1)
  })

  it('a part that fails to start ends the session: the parts started so far and the failing one are stopped in reverse, later ones never start', async () => {
    const log: string[] = []
    const broken = fake('broken', log, {
      async start() {
        log.push('start broken')
        throw new Error('cannot bind')
      },
    })
    const s = session([fake('a', log), fake('b', log), broken, fake('later', log)])
    await expect(s.dev.run()).rejects.toThrow('cannot bind')
    expect(log).toEqual(['start a', 'start b', 'start broken', 'stop broken', 'stop b', 'stop a'])
    expect(s.events.some((e) => e.type === 'ready')).toBe(false)
  })

  it('a part that cannot start but has a fallback hands over, and the fallback takes its place (also at teardown)', async () => {
    const log: string[] = []
    const tunnel = fake('tunnel', log, {
      async start() {
        log.push('start tunnel')
        throw new ReplaceablePartError('no tunnel works')
      },
      fallback: (reason) => {
        log.push(`fallback (${reason})`)
        return fakeDeliveryPart('bridge', log)
      },
      async handOver() {
        log.push('hand over tunnel')
        return true
      },
    })
    const s = session([fake('a', log), fakeBot(log), tunnel], {mode: 'webhook'})
    const run = s.dev.run()
    await s.next('ready')
    s.dev.stop()
    await run
    expect(log).toEqual([
      'start a',
      'start bot',
      'start tunnel',
      'fallback (no tunnel works)',
      'hand over tunnel',
      'start bridge',
      'stop bridge',
      'stop bot',
      'stop a',
    ])
  })

  it('a part lost while it runs is swapped for its fallback, the others untouched; without one the session stops with an error', async () => {
    const log: string[] = []
    let ctx: SessionContext | undefined
    const bridgeUp = deferred()
    const bridge = fakeDeliveryPart('bridge', log, {
      async start(c) {
        log.push('start bridge')
        c.delivery = fakeDelivery('bridge')
        bridgeUp.resolve()
      },
    })
    const tunnelUp = deferred()
    const tunnel = fake('tunnel', log, {
      async start() {
        log.push('start tunnel')
        tunnelUp.resolve()
      },
      fallback: () => bridge,
      async handOver() {
        log.push('hand over tunnel')
        return true
      },
    })
    const bot = fakeBot(log, (c) => {
      ctx = c
    })
    const s = session([bot, tunnel], {mode: 'webhook'})
    const run = s.dev.run()
    await tunnelUp.promise
    ctx!.events.emit('lost', tunnel, 'the tunnel is gone')
    await bridgeUp.promise
    expect(log).toEqual(['start bot', 'start tunnel', 'hand over tunnel', 'start bridge'])
    // A part no longer running is not swapped twice.
    ctx!.events.emit('lost', tunnel, 'late news')
    // The bridge has no fallback: losing it ends the session.
    ctx!.events.emit('lost', bridge, 'the bridge is gone')
    const summary = await run
    expect(log.slice(4)).toEqual(['stop bridge', 'stop bot'])
    expect(summary).toMatchObject({reason: 'error', exitCode: 1})
  })

  it('a hand-over that fails (the webhook could not be deleted) stops the session instead of starting the fallback', async () => {
    const log: string[] = []
    const tunnel = fake('tunnel', log, {
      async start() {
        log.push('start tunnel')
        throw new ReplaceablePartError('no tunnel works')
      },
      fallback: () => fakeDeliveryPart('bridge', log),
      async handOver() {
        log.push('hand over tunnel')
        return false
      },
    })
    const s = session([fakeBot(log), tunnel], {mode: 'webhook'})
    const summary = await s.dev.run()
    expect(log).toEqual(['start bot', 'start tunnel', 'hand over tunnel', 'stop tunnel', 'stop bot'])
    expect(summary).toMatchObject({reason: 'error', exitCode: 1})
  })
})

describe('the hand-over to polling (the bot polls by itself)', () => {
  /** A webhook delivery whose polling successor is a polling delivery; each logs. */
  function webhookDelivery(log: string[]): SessionPart {
    return fakeDeliveryPart('bridge', log, {
      pollingSuccessor: () => fakeDeliveryPart('polling', log),
      async handOver() {
        log.push('hand over bridge')
        return true
      },
    })
  }

  it("after Ready: the bot's getUpdates is held until the polling delivery took over, then let through", async () => {
    const log: string[] = []
    let ctx: SessionContext | undefined
    const s = session(
      [
        fakeBot(log, (c) => {
          ctx = c
        }),
        webhookDelivery(log),
      ],
      {mode: 'webhook'},
    )
    const run = s.dev.run()
    expect(await s.next('ready')).toMatchObject({mode: 'webhook', delivery: 'bridge'})
    const through = deferred()
    ctx!.events.emit('bot-polls', () => {
      log.push('getUpdates let through')
      through.resolve()
    })
    await through.promise
    expect(log).toEqual(['start bot', 'start bridge', 'hand over bridge', 'start polling', 'getUpdates let through'])
    // A later getUpdates goes through at once.
    ctx!.events.emit('bot-polls', () => log.push('again'))
    expect(log.at(-1)).toBe('again')
    s.dev.stop()
    const summary = await run
    expect(log.slice(6)).toEqual(['stop polling', 'stop bot'])
    expect(summary.mode).toBe('polling')
  })

  it('while the session starts: the switch comes at the end of start-up, and Ready says polling', async () => {
    const log: string[] = []
    const s = session(
      [
        fakeBot(log, (ctx) => ctx.events.emit('bot-polls', () => log.push('getUpdates let through'))),
        webhookDelivery(log),
      ],
      {mode: 'webhook'},
    )
    const run = s.dev.run()
    expect(await s.next('ready')).toMatchObject({mode: 'polling', delivery: 'polling'})
    expect(log).toEqual(['start bot', 'start bridge', 'hand over bridge', 'start polling', 'getUpdates let through'])
    s.dev.stop()
    await run
  })
})

describe('a second signal', () => {
  it("exits at once with the signal's code: every started part lets go, the last first, each waited for a moment at most", async () => {
    const log: string[] = []
    const starting = deferred()
    const stuck = deferred()
    const s = session(
      [
        fake('a', log, {
          abandon: () => {
            log.push('abandon a')
            return new Promise<void>(() => {}) // never lets go: the runner does not wait for it long
          },
        }),
        fake('b', log, {
          async stop() {
            log.push('stop b')
            stuck.resolve()
            await new Promise<void>(() => {}) // a teardown that never ends
          },
        }),
        fakeDeliveryPart('polling', log),
        fakeBot(log),
        fake('starting', log, {
          // Still starting when the first signal comes: it gives up when the session stops.
          start: (ctx) =>
            new Promise<void>((_, reject) => {
              log.push('start starting')
              ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))
              starting.resolve()
            }),
        }),
      ],
      // The teardown alone would take a minute: the test's own timeout fails it if the second signal is not heard.
      {teardownTimeoutMs: 60_000, abandonTimeoutMs: 50},
    )
    const run = s.dev.run()
    await starting.promise
    s.dev.signalled('SIGINT')
    await stuck.promise
    s.dev.signalled('SIGINT')
    const summary = await run
    expect(summary).toMatchObject({exitCode: 130, reason: 'SIGINT'})
    expect(s.texts('warn')).toContain('SIGINT again: exiting now.')
    expect(log.filter((l) => l.startsWith('abandon'))).toEqual([
      'abandon starting',
      'abandon bot',
      'abandon polling',
      'abandon b',
      'abandon a',
    ])
    expect(log.filter((l) => l.startsWith('stop'))).toEqual(['stop starting', 'stop bot', 'stop polling', 'stop b'])
  })
})

describe("the teardown's time budget", () => {
  it('a stop past what is left of the deadline is cut off and reported; the next part still gets its own minimum', async () => {
    const log: string[] = []
    const started = deferred()
    const s = session(
      [
        fake('slow', log, {
          stopMinMs: 10_000,
          async stop() {
            // Past the whole teardown's deadline (1 ms), well within this part's minimum.
            const started = performance.now()
            while (performance.now() - started < 5) await new Promise((r) => setImmediate(r))
            log.push('stop slow done')
          },
        }),
        fake('stuck', log, {
          async start() {
            log.push('start stuck')
            started.resolve()
          },
          stopMinMs: 1,
          async stop() {
            log.push('stop stuck')
            await new Promise<void>(() => {})
          },
        }),
      ],
      {teardownTimeoutMs: 1},
    )
    const run = s.dev.run()
    await started.promise
    s.dev.stop()
    await run
    expect(log).toEqual(['start slow', 'start stuck', 'stop stuck', 'stop slow done'])
    const teardown = s.events.filter((e) => e.type === 'teardown')
    expect(teardown).toHaveLength(1)
    expect(teardown[0]).toMatchObject({step: 'stuck', ok: false})
    expect(teardown[0]).toHaveProperty('text', expect.stringMatching(/^! stuck cleanup: timed out after \d+ ms$/))
  })
})

function deferred(): {promise: Promise<void>; resolve: () => void} {
  let resolve!: () => void
  const promise = new Promise<void>((r) => {
    resolve = r
  })
  return {promise, resolve}
}

describe('the webhook, held by the webhook part (the claim and webhook parts for real, a fake Bot API)', () => {
  const me = {id: 4242, is_bot: true as const, first_name: 'Dev', username: 'dev_bot'}

  function fakeApi(fail: {deleteWebhook?: boolean} = {}) {
    const calls: Array<[string, Record<string, unknown>]> = []
    const api = {
      async setWebhook(params: Record<string, unknown>) {
        calls.push(['setWebhook', params])
        return true
      },
      async deleteWebhook(params: Record<string, unknown>) {
        calls.push(['deleteWebhook', params])
        if (fail.deleteWebhook) throw new Error('Bad Gateway')
        return true
      },
    }
    return {api: api as unknown as BotApi, calls}
  }

  /** token, claim, webhook, a delivery that sets our webhook, the bot: a webhook session in miniature. */
  function parts(log: string[], o: {replaced?: string; stopHangs?: () => void} = {}): SessionPart[] {
    return [
      fake('token', log, {
        async start(ctx) {
          ctx.me = me
          if (o.replaced) ctx.webhook.replaced = {url: o.replaced}
        },
      }),
      claimPart(),
      webhookPart(),
      fake('tunnel', log, {
        async start(ctx) {
          ctx.delivery = fakeDelivery('bridge')
          await ctx.webhook.set('https://tunnel.test/webhook/abc')
        },
        async stop() {
          log.push('stop tunnel')
          if (!o.stopHangs) return
          o.stopHangs()
          await new Promise<void>(() => {})
        },
      }),
      fakeBot(log),
    ]
  }

  it('on stop: the delivery stops, then our webhook is deleted (pending kept), then the state file goes', async () => {
    const log: string[] = []
    const {api, calls} = fakeApi()
    const s = session(parts(log), {api, mode: 'webhook'})
    const run = s.dev.run()
    await s.next('ready')
    expect(readState(me.id, s.options.stateDir!)?.webhook?.url).toBe('https://tunnel.test/webhook/abc')
    s.dev.stop()
    const summary = await run
    expect(calls.map(([method, params]) => [method, params.drop_pending_updates])).toEqual([
      ['setWebhook', undefined],
      ['deleteWebhook', false],
    ])
    expect(s.texts('teardown')).toEqual(['✓ Webhook deleted (pending updates kept): the bot is back on long polling'])
    expect(readState(me.id, s.options.stateDir!)).toBeUndefined()
    expect(summary.exitCode).toBe(0)
  })

  it('on stop after --force: the production webhook is put back', async () => {
    const {api, calls} = fakeApi()
    const s = session(parts([], {replaced: 'https://prod.test/hook'}), {api, mode: 'webhook'})
    const run = s.dev.run()
    await s.next('ready')
    s.dev.stop()
    await run
    expect(calls.at(-1)).toEqual(['setWebhook', {url: 'https://prod.test/hook', allowed_updates: []}])
    expect(s.texts('teardown')).toEqual(['✓ Restored the previous webhook https://prod.test/hook'])
  })

  it('a webhook that cannot be deleted on stop: exit code 1, the state file kept for the repair, and what to run later', async () => {
    const {api} = fakeApi({deleteWebhook: true})
    const s = session(parts([]), {api, mode: 'webhook'})
    const run = s.dev.run()
    await s.next('ready')
    s.dev.stop()
    const summary = await run
    expect(summary.exitCode).toBe(1)
    expect(s.texts('teardown')).toEqual(['✗ Could not delete the webhook: Bad Gateway'])
    expect(s.events.find((e) => e.type === 'warn')).toMatchObject({fix: expect.stringMatching(/bot webhook delete/)})
    expect(readState(me.id, s.options.stateDir!)?.webhook?.url).toBe('https://tunnel.test/webhook/abc')
  })

  it('a second signal while the teardown hangs: the webhook is deleted at once, then the state file goes', async () => {
    const log: string[] = []
    const {api, calls} = fakeApi()
    const hanging = deferred()
    const s = session(parts(log, {stopHangs: hanging.resolve}), {api, mode: 'webhook', abandonTimeoutMs: 5000})
    const run = s.dev.run()
    await s.next('ready')
    s.dev.signalled('SIGTERM')
    await hanging.promise
    s.dev.signalled('SIGTERM')
    const summary = await run
    expect(summary.exitCode).toBe(143)
    expect(calls.map(([method]) => method)).toEqual(['setWebhook', 'deleteWebhook'])
    expect(s.texts('teardown')).toEqual(['✓ Webhook deleted (pending updates kept)'])
    expect(readState(me.id, s.options.stateDir!)).toBeUndefined()
  })

  it('a second signal when the webhook cannot be deleted: the state file stays for the repair, and says what to run', async () => {
    const {api} = fakeApi({deleteWebhook: true})
    const hanging = deferred()
    const s = session(parts([], {stopHangs: hanging.resolve}), {api, mode: 'webhook', abandonTimeoutMs: 5000})
    const run = s.dev.run()
    await s.next('ready')
    s.dev.signalled('SIGINT')
    await hanging.promise
    s.dev.signalled('SIGINT')
    const summary = await run
    expect(summary.exitCode).toBe(130)
    expect(s.texts('warn')).toContain('Could not delete the webhook: Bad Gateway')
    expect(readState(me.id, s.options.stateDir!)?.webhook?.url).toBe('https://tunnel.test/webhook/abc')
  })
})

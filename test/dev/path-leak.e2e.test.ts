/**
 * The webhook path never leaks: a real `bot dev --json` with BOT_DEBUG=1 whose
 * relay gets requests at its secret path with a wrong secret, with a query string, and at a longer
 * path. The `rejected` events (their `path` and `text`) and the debug lines (setWebhook's URL,
 * getWebhookInfo's answer) show the path masked by lib/mask-url.ts: `/webhook/` and 4 characters.
 */
import {afterEach, describe, expect, it} from 'vitest'

import {waitFor} from '../support/wait.js'
import {devWorld, startDev, type DevWorld} from './helpers.js'

let world: DevWorld | undefined
afterEach(async () => {
  await world?.close()
  world = undefined
})

describe('the webhook path in the output', () => {
  it('is masked in --json rejected events and in BOT_DEBUG lines', async () => {
    world = await devWorld()
    const w = world
    const dev = startDev(w, {args: ['--no-watch', '--json'], env: {BOT_DEBUG: '1'}, timeoutMs: 90_000})
    const events = () =>
      dev
        .stdout()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, any>)
    await dev.waitForOutput('"type":"ready"', {timeoutMs: 30_000})
    const relayStep = events().find((e) => e.type === 'step' && e.step === 'relay' && e.status === 'ok')!
    const relay = /http:\/\/127\.0\.0\.1:(\d+)/.exec(relayStep.text as string)![1]
    const path = new URL(w.emu.webhook(w.token)!.url).pathname
    const random = path.slice('/webhook/'.length)
    expect(random.length).toBeGreaterThan(12)

    const post = (target: string) =>
      fetch(`http://127.0.0.1:${relay}${target}`, {
        method: 'POST',
        headers: {'content-type': 'application/json', 'x-telegram-bot-api-secret-token': 'wrong'},
        body: '{"update_id":1}',
      }).then((r) => r.status)
    expect(await post(path)).toBe(401)
    expect(await post(`${path}?token=x`)).toBeGreaterThanOrEqual(400)
    expect(await post(`${path}/more`)).toBeGreaterThanOrEqual(400)
    const rejected = await waitFor(
      () => {
        const r = events().filter((e) => e.type === 'rejected')
        return r.length === 3 ? r : undefined
      },
      {what: () => `three rejected events\n${dev.stdout()}`},
    )
    const masked = `/webhook/${random.slice(0, 4)}…`
    // (The relay reports the path without its query.)
    expect(rejected.map((e) => e.path)).toEqual([masked, masked, masked])
    for (const e of rejected) expect(e.text).not.toContain(random.slice(0, 5))

    dev.kill('SIGINT')
    const result = await dev.exited
    expect(result.code, result.stderr).toBe(0)
    // The debug lines were there (setWebhook, getWebhookInfo), with the URL masked.
    expect(result.stderr).toMatch(/\[debug\] → setWebhook \{"url":"http:\/\/[^"]+\/webhook\/[A-Za-z0-9_-]{4}…"/)
    for (const text of [result.stdout, result.stderr]) expect(text).not.toContain(random.slice(0, 5))
  })
})

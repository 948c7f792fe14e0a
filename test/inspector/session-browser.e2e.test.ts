/**
 * The whole chain in a real browser: `bot dev` as a real process (emulator, loopback tunnel, the
 * inspector bot), its inspector page opened in chromium from the URL of the ready event: the
 * update shows with its failing call, the detail shows the description, Replay re-delivers it
 * through the session (the bot's second answer reaches the emulator).
 *
 * Skipped (with the reason) only when no chromium is installed and CI is not set.
 */
import type {Browser} from 'playwright-core'
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {devWorld, startDev, type DevWorld} from '../dev/helpers.js'
import {browserSkipReason, launchChromium} from '../support/browser.js'
import {waitFor} from '../support/wait.js'

const skip = browserSkipReason()
if (skip) console.warn(`test/inspector/session-browser.e2e.test.ts skipped: ${skip}`)

describe.skipIf(skip !== undefined)('bot dev: the inspector page of a running session, in chromium', () => {
  let browser: Browser
  let world: DevWorld

  beforeAll(async () => {
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
  })
  beforeEach(async () => {
    world = await devWorld()
  })
  afterEach(async () => {
    await world.close()
  })

  it('lists the updates with their calls, shows a failing call, and Replay reaches the bot again', async () => {
    const {emu, token} = world
    const dev = startDev(world, {bot: 'inspector-bot.mjs', args: ['--no-watch', '--json'], timeoutMs: 90_000})
    let url: string | undefined
    await waitFor(
      () => {
        const ready = dev
          .stdout()
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as {type: string; inspectorUrl?: string})
          .find((e) => e.type === 'ready')
        url = ready?.inspectorUrl
        return url !== undefined
      },
      {what: 'the ready event', timeout: 20_000},
    )
    const page = await browser.newPage()
    const problems: string[] = []
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`))
    try {
      await page.goto(url!)
      await page.waitForSelector('#status[data-state="live"]', {timeout: 15_000})

      const hello = emu.sendUserMessage(token, {text: 'hello page', chatId: 4242}).update_id
      const bad = emu.sendUserMessage(token, {text: '/missing', chatId: 4242}).update_id
      const row = (id: number) => page.locator(`#rows tr[data-update-id="${id}"]`)
      await page.waitForSelector(`#rows tr[data-update-id="${hello}"] .call`, {timeout: 10_000})
      await waitFor(async () => (await row(bad).locator('.call.failed').count()) === 1, {
        what: 'the failed call chip',
        timeout: 10_000,
      })
      expect(await row(bad).locator('.call.failed').textContent()).toBe('sendMessage 400')

      await row(bad).click()
      await page.waitForSelector('#detail:not([hidden])')
      expect(await page.locator('#detail-calls .call-card .description').textContent()).toBe(
        'Bad Request: chat not found',
      )

      await row(hello).click()
      await waitFor(async () => (await page.locator('#detail-title').textContent()) === `update ${hello} · message`, {
        what: 'the detail of the answered update',
        timeout: 10_000,
      })
      await page.locator('#replay').click()
      await waitFor(
        () => emu.sentMessages(token, {chatId: 4242}).filter((c) => c.params.text === 'echo: hello page').length === 2,
        {what: 'the bot answered the replay', timeout: 15_000},
      )
      await waitFor(async () => (await row(hello).count()) === 2, {what: 'the replay row', timeout: 10_000})
      expect(await page.locator('#rows tr').first().locator('.tag').textContent()).toBe(`replay of ${hello}`)
      expect(problems).toEqual([])
    } finally {
      await page.close()
    }
    dev.kill('SIGINT')
    expect((await dev.exited).code).toBe(0)
  }, 120_000)
})

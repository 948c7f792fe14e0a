/**
 * The inspector page's "Save as chat script" in Debian's chromium, on an online session: `bot dev` (a real process)
 * runs a real grammY bot (test/fixtures/bots/script-bot.mjs) with the emulator standing in for Telegram (webhook
 * through the loopback tunnel); a person with a real-looking name, id, username and phone number talks to it while
 * someone else writes in between. In the page: the first update → "First of script", the last → "Last of script";
 * "Show the text" writes nothing; a name and "Save as chat script" write test/NAME.chat.yml, and the page says the
 * file, the counts (the other chat's update left out) and each value replaced. Then, offline, `bot test` passes it.
 *
 * Skipped (with the reason) only when no chromium is installed and CI is not set.
 */
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'

import type {Browser, Page} from 'playwright-core'
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {devWorld, startDev, type DevWorld, type RunningCli} from '../dev/helpers.js'
import {browserSkipReason, launchChromium} from '../support/browser.js'
import {PROJECT_ROOT, runCli, jsonEvents} from '../support/cli.js'
import {waitFor} from '../support/wait.js'

const skip = browserSkipReason()
if (skip) console.warn(`test/inspector/chat-script-browser.e2e.test.ts skipped: ${skip}`)

const BOT = join(PROJECT_ROOT, 'test', 'fixtures', 'bots', 'script-bot.mjs')
const PERSON = {id: 734_110_592, firstName: 'Margarethe', lastName: 'Vestager', username: 'mvestager'}
const PHONE = '+4520123456'

type Event = Record<string, any>

const events = (dev: RunningCli): Event[] => jsonEvents(dev.stdout())

describe.skipIf(skip !== undefined)("the inspector page's Save as chat script, in chromium", () => {
  let browser: Browser
  let world: DevWorld
  beforeAll(async () => {
    browser = await launchChromium()
  }, 90_000)
  afterAll(async () => {
    await browser?.close()
  })
  beforeEach(async () => {
    world = await devWorld()
  })
  afterEach(async () => {
    await world.close()
  })

  it('saves the range an online session showed, says what it replaced, and the bot passes it offline', async () => {
    const {emu, token} = world
    const dev = startDev(world, {bot: ['node', BOT], args: ['--no-watch', '--json'], timeoutMs: 120_000})
    await waitFor(() => events(dev).some((e) => e.type === 'ready'), {what: 'bot dev ready', timeout: 60_000})
    const inspectorUrl = events(dev).find((e) => e.type === 'ready')!.inspectorUrl as string

    const page: Page = await browser.newPage()
    const problems: string[] = []
    page.on('pageerror', (e) => problems.push(e.message))
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text())
    })
    await page.goto(inspectorUrl)
    await page.locator('#status[data-state="live"]').waitFor({timeout: 15_000})

    // The conversation, on "Telegram" (the emulator): the person's four updates, someone else's in between.
    const chatId = PERSON.id
    emu.setUser(token, PERSON.id, {
      firstName: PERSON.firstName,
      lastName: PERSON.lastName,
      username: PERSON.username,
    })
    const answer = (chat: number) => emu.waitForBotMessage(token, {chatId: chat, timeoutMs: 30_000})
    emu.sendUserMessage(token, {text: '/start', userId: PERSON.id})
    await answer(chatId)
    emu.sendUserMessage(token, {text: '/menu', userId: PERSON.id})
    const menu = await answer(chatId)
    emu.sendCallbackQuery(token, {
      data: 'pizza',
      messageId: (menu.result as {message_id: number}).message_id,
      userId: PERSON.id,
    })
    await answer(chatId) // the edit (answerCallbackQuery names no chat)
    emu.sendUserMessage(token, {text: 'meanwhile', userId: 5005, firstName: 'Other'})
    await answer(5005)
    emu.sendUserMessage(token, {text: `call ${PHONE}, @${PERSON.username}`, userId: PERSON.id})
    await answer(chatId)

    // The page lists the five updates with their calls; the person's first and last mark the range.
    const rows = page.locator('#rows tr')
    await waitFor(async () => (await page.locator('#rows tr .call').count()) >= 5 && (await rows.count()) === 5, {
      what: 'five updates with their calls in the page',
      timeout: 30_000,
    })
    const first = page.locator('#rows tr', {has: page.locator('td.preview:text-is("/start")')})
    const last = page.locator('#rows tr', {
      has: page.locator(`td.preview:text-is("call ${PHONE}, @${PERSON.username}")`),
    })
    await first.click()
    await page.locator('#script-first').click()
    await last.click()
    await page.locator('#script-last').click()
    const pane = page.locator('#script')
    await pane.waitFor({state: 'visible', timeout: 5000})
    expect(await page.locator('#script-range').textContent()).toMatch(
      new RegExp(`^From update \\d+ \\(message\\) to update \\d+ \\(message\\), the updates of chat ${chatId}\\. `),
    )

    // "Show the text": the script in the page, nothing written.
    const file = join(world.dir, 'test', 'online.chat.yml')
    await page.locator('#script-preview').click()
    const result = page.locator('#script-result')
    await result.filter({hasText: 'The script:'}).waitFor({timeout: 15_000})
    expect(await result.textContent()).toBe('The script: 9 steps from 4 updates (1 update of other chats left out).')
    expect(await page.locator('#script-text').textContent()).toContain('  - user: call +15550100, @ada\n')
    expect(existsSync(file)).toBe(false)

    // A name, then "Save as chat script".
    await page.locator('#script-name').fill('online')
    await page.locator('#script-save').click()
    await result.filter({hasText: 'Saved'}).waitFor({timeout: 15_000})
    expect(await result.textContent()).toBe(
      'Saved test/online.chat.yml: 9 steps from 4 updates (1 update of other chats left out). Run it with: npx bot test test/online.chat.yml',
    )
    expect(await page.locator('#script-replaced li').allTextContents()).toEqual([
      `user id: ${PERSON.id} → 100001`,
      `name: ${PERSON.firstName} → Ada`,
      `name: ${PERSON.lastName} → Lovelace`,
      `username: ${PERSON.username} → ada`,
      `phone number: ${PHONE} → +15550100`,
    ])
    const text = readFileSync(file, 'utf8')
    expect(await page.locator('#script-text').textContent()).toBe(text)
    for (const real of [PERSON.firstName, PERSON.lastName, PERSON.username, String(PERSON.id), PHONE, 'meanwhile'])
      expect(text, `"${real}" in:\n${text}`).not.toContain(real)
    expect(text).toContain('(4 in all; 1 of other chats left out)')
    expect(text).toContain(
      [
        'steps:',
        '  - user: /start',
        '  - bot: Hi Ada! /menu shows the menu.',
        '  - user: /menu',
        '  - bot: {text: Menu, buttons: [[Pasta, Pizza], [Back]]}',
        '  - press: Pizza',
        '  - call: {method: answerCallbackQuery, text: Saved}',
        '  - bot: {edit: "You picked Pizza, Ada"}',
        '  - user: call +15550100, @ada',
        '  - bot: "echo: call +15550100, @ada"',
        '',
      ].join('\n'),
    )
    // Saving again under the same name is refused in the page; the file stays.
    await page.locator('#script-save').click()
    await result.filter({hasText: 'Not saved'}).waitFor({timeout: 15_000})
    expect(await result.getAttribute('class')).toBe('action-result failed')
    expect(await result.textContent()).toMatch(/^Not saved: test\/online\.chat\.yml exists already/)
    expect(readFileSync(file, 'utf8')).toBe(text)
    expect(problems.filter((p) => !/409/.test(p))).toEqual([])
    await page.close()

    dev.child.kill('SIGINT')
    const ended = await dev.exited
    expect(ended.code, ended.stderr).toBe(0)

    // Offline: bot test runs the bot against its own emulator, as new users in new chats, and it passes.
    const tested = await runCli(['test', 'test/online.chat.yml', '--', 'node', BOT], {
      cwd: world.dir,
      timeoutMs: 90_000,
    })
    expect(tested.code, tested.stdout + tested.stderr).toBe(0)
    expect(tested.stdout).toMatch(/^✓ test\/online\.chat\.yml {2}9 steps {2}\d+ ms$/m)
  }, 240_000)
})

/**
 * The chat page of an online `bot dev` session (docs/chat.md, "Online"): `bot dev` (a real process) runs a real grammY
 * bot (test/fixtures/bots/script-bot.mjs) against the emulator standing in for Telegram, and Debian's chromium opens the
 * page the ready event names (`chatUrl`, the inspector's `/chat`).
 *
 * Webhook mode (through the loopback tunnel): a person writes from the emulator's side (as Telegram delivers it) and
 * the page shows the message and the bot's answer, live; a message typed into the page reaches the bot as a synthetic
 * update (bot trigger's path), is marked synthetic in the page and in the inspector, and the bot's answer (sent to
 * "Telegram") appears; a button pressed in the page is a synthetic callback query: the bot's answerCallbackQuery shows
 * as a toast and its edit of the real message shows. Neither the token nor the webhook secret or path reach the page.
 * Long polling: the page shows the chats, and its input is off with the reason (nothing can be handed to the bot);
 * an ephemeral message (Bot API 10.2) the bot sends shows to its receiver, and its edit and deletion show live.
 */
import type {Browser, Page} from 'playwright-core'
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {assertNoToken, devWorld, fixture, startDev, type DevWorld, type RunningCli} from '../dev/helpers.js'
import {browserSkipReason, launchChromium} from '../support/browser.js'
import {PNG} from './helpers.js'
import {waitFor} from '../support/wait.js'
import {jsonEvents} from '../support/cli.js'

const skip = browserSkipReason()
if (skip) console.warn(`test/chat/chat-online.e2e.test.ts skipped: ${skip}`)

const BOT = fixture('script-bot.mjs')
const PERSON = {id: 734_110_592, firstName: 'Margarethe', username: 'mvestager'}

type Event = Record<string, any>

const events = (dev: RunningCli): Event[] => jsonEvents(dev.stdout())

let browser: Browser
let world: DevWorld
const problems: string[] = []
const pages: Page[] = []

beforeAll(async () => {
  if (!skip) browser = await launchChromium()
})
afterAll(async () => {
  await browser?.close()
})
beforeEach(async () => {
  world = await devWorld()
  problems.length = 0
})
afterEach(async () => {
  // closed before the session ends: a page left open would log its reconnections
  while (pages.length) await pages.pop()!.close()
  await world.close()
})

async function session(mode: 'webhook' | 'polling'): Promise<{dev: RunningCli; ready: Event}> {
  const dev = startDev(world, {bot: ['node', BOT], args: ['--no-watch', '--json', '--mode', mode], timeoutMs: 120_000})
  await waitFor(() => events(dev).some((e) => e.type === 'ready'), {what: 'bot dev ready', timeout: 60_000})
  return {dev, ready: events(dev).find((e) => e.type === 'ready')!}
}

async function open(url: string): Promise<Page> {
  const page = await browser.newPage({viewport: {width: 1100, height: 800}})
  pages.push(page)
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`))
  page.on('console', (m) => {
    // the page's own refusals (409) are shown as toasts; a failed request is logged by chromium as an error too
    if (m.type() === 'error' && !/status of 409/.test(m.text())) problems.push(`console: ${m.text()}`)
  })
  await page.goto(url)
  await page.waitForSelector('body[data-ready="true"]', {timeout: 30_000})
  await page.waitForSelector('#status[data-state="live"]', {timeout: 30_000})
  return page
}

/** The person writes to the bot in "Telegram" (the emulator) and the bot answers there (with `answer`). */
async function say(text: string, answer: string) {
  world.emu.sendUserMessage(world.token, {text, userId: PERSON.id})
  return world.emu.waitForBotMessage(world.token, {
    chatId: PERSON.id,
    timeoutMs: 30_000,
    predicate: (c) => c.params.text === answer,
  })
}

const messageOf = (page: Page, from: 'bot' | 'user', text: string) =>
  page.locator(`.msg[data-from="${from}"]`, {hasText: text}).last()

describe.skipIf(skip)('the chat page of an online bot dev session', () => {
  it('shows the real chat live, and sends synthetic messages and button presses as bot trigger does', async () => {
    const {token, emu} = world
    emu.setUser(token, PERSON.id, {firstName: PERSON.firstName, username: PERSON.username})
    const {dev, ready} = await session('webhook')
    const chatUrl = String(ready.chatUrl)
    const inspector = new URL(String(ready.inspectorUrl))
    const key = inspector.searchParams.get('key')!
    expect(chatUrl).toBe(`${inspector.origin}/chat?key=${key}`)
    expect(ready.text).toContain(` Chat page: ${chatUrl}`)
    // The inspector page links to it.
    const inspectorHtml = await (await fetch(inspector)).text()
    expect(inspectorHtml).toContain(`id="chat-link" class="chat-link" href="/chat?key=${key}"`)

    const page = await open(chatUrl)
    // No chat yet: the page says how one appears, and has nothing to send to.
    await expect.poll(() => page.locator('#intro-text').textContent()).toContain('No chat yet')
    expect(await page.locator('#composer').isHidden()).toBe(true)

    // A person writes in Telegram: the chat appears, with their message and the bot's answer.
    await say('hello from Telegram', 'echo: hello from Telegram')
    await messageOf(page, 'user', 'hello from Telegram').waitFor({timeout: 30_000})
    await messageOf(page, 'bot', 'echo: hello from Telegram').waitFor({timeout: 30_000})
    expect(await page.locator('#chats li').first().textContent()).toContain(PERSON.firstName)
    // the page types as the person now (the stand-in of a session without a chat is gone)
    expect(await page.locator('#user-select option').allTextContents()).toEqual([`${PERSON.firstName} (${PERSON.id})`])
    expect(await page.locator('.msg[data-synthetic]').count()).toBe(0)

    // A photo: its bytes come from Telegram through the session (getFile), never through a URL with the token.
    emu.sendUserMedia(token, {kind: 'photo', data: PNG, caption: 'cap', userId: PERSON.id})
    await emu.waitForBotMessage(token, {
      chatId: PERSON.id,
      timeoutMs: 30_000,
      predicate: (c) => c.params.text === 'A photo: cap',
    })
    const photo = page.locator('.msg[data-from="user"] img.photo').last()
    await photo.waitFor({timeout: 30_000})
    await expect.poll(() => photo.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(2)
    expect(await photo.getAttribute('src')).not.toContain(token.split(':')[1])
    await messageOf(page, 'bot', 'A photo: cap').waitFor({timeout: 30_000})

    // Typed into the page: a synthetic update through bot trigger's path; the bot answers in the real chat.
    const before = emu.calls(token).length
    await page.fill('#input', 'typed in the page')
    await page.press('#input', 'Enter')
    const typed = page.locator('.msg[data-from="user"][data-synthetic="true"]', {hasText: 'typed in the page'})
    await typed.waitFor({timeout: 30_000})
    expect(await typed.locator('.synthetic-mark').textContent()).toBe('synthetic')
    await messageOf(page, 'bot', 'echo: typed in the page').waitFor({timeout: 30_000})
    const answer = emu
      .calls(token)
      .slice(before)
      .find((c) => c.method === 'sendMessage' && c.params.text === 'echo: typed in the page')
    expect(Number(answer?.params.chat_id)).toBe(PERSON.id)
    // The bot's answer is a real message (not marked), drawn after the synthetic one.
    const order = await page.$$eval('#messages .msg', (nodes) =>
      nodes.map((n) => `${(n as HTMLElement).dataset.from}${(n as HTMLElement).dataset.synthetic ? '*' : ''}`),
    )
    expect(order).toEqual(['user', 'bot', 'user', 'bot', 'user*', 'bot'])

    // A button of a real message, pressed in the page: a synthetic callback query.
    const menu = await say('/menu', 'Menu')
    const menuId = (menu.result as {message_id: number}).message_id
    const menuNode = page.locator(`.msg[data-message-id="${menuId}"]`)
    await menuNode.locator('button', {hasText: 'Pizza'}).click()
    // answerCallbackQuery (answered by the api proxy: the query is made up) shows as a toast…
    await expect.poll(() => page.locator('#toast').textContent(), {timeout: 30_000}).toBe('Saved')
    // …and the bot's edit of the real message shows, marked edited.
    await menuNode.filter({hasText: `You picked Pizza, ${PERSON.firstName}`}).waitFor({timeout: 30_000})
    expect(await menuNode.locator('.edited').count()).toBe(1)
    const edit = emu.calls(token).find((c) => c.method === 'editMessageText' && Number(c.params.message_id) === menuId)
    expect(edit?.result).toMatchObject({message_id: menuId, text: `You picked Pizza, ${PERSON.firstName}`})

    // What makes no sense online is refused with the reason.
    expect(await page.locator('.composer .attach').getAttribute('title')).toContain('bot trigger photo')
    await menuNode.hover()
    await menuNode.locator('.react-open').click()
    await expect.poll(() => page.locator('#toast').textContent()).toContain('bot trigger reaction')

    // The inspector marks the page's updates as bot trigger's.
    const res = await fetch(`${inspector.origin}/api/updates`, {headers: {'x-bot-dev-key': key}})
    const entries = (await res.json()) as Event[]
    const synthetic = entries.filter((e) => e.source === 'trigger')
    expect(synthetic.map((e) => e.type).sort()).toEqual(['callback_query', 'message'])

    // A second tab, opened later, draws the same transcript from the record.
    const again = await open(chatUrl)
    await messageOf(again, 'bot', 'echo: typed in the page').waitFor({timeout: 30_000})
    expect(await again.locator('.msg[data-synthetic="true"]').count()).toBe(1)

    // Nothing secret in what the page and its API serve.
    const webhook = emu.webhook(token)!
    const secrets = [token, token.split(':')[1], webhook.secretToken!, new URL(webhook.url).pathname]
    const base = `${inspector.origin}/chat/`
    for (const path of ['', 'api/config', `api/chats/${PERSON.id}/messages`, 'api/bot']) {
      const text = await (await fetch(`${base}${path}`, {headers: {'x-bot-dev-key': key}})).text()
      for (const secret of secrets) expect(text, path).not.toContain(secret)
    }
    const html = await page.content()
    for (const secret of secrets) expect(html).not.toContain(secret)
    expect(problems).toEqual([])
    while (pages.length) await pages.pop()!.close()

    dev.child.kill('SIGINT')
    const result = await dev.exited
    expect(result.code, result.stderr).toBe(0)
    assertNoToken(result, token)
  }, 180_000)

  it('through the polling bridge (--tunnel none) too: a synthetic message reaches the bot, its answer shows', async () => {
    const {token, emu} = world
    emu.setUser(token, PERSON.id, {firstName: PERSON.firstName, username: PERSON.username})
    const dev = startDev(world, {bot: ['node', BOT], tunnel: false, args: ['--no-watch', '--json', '--tunnel', 'none']})
    await waitFor(() => events(dev).some((e) => e.type === 'ready'), {what: 'bot dev ready', timeout: 60_000})
    const ready = events(dev).find((e) => e.type === 'ready')!
    expect(ready.delivery).toBe('bridge')
    const page = await open(String(ready.chatUrl))
    await say('hello bridge', 'echo: hello bridge')
    await messageOf(page, 'bot', 'echo: hello bridge').waitFor({timeout: 30_000})
    await page.fill('#input', 'typed over the bridge')
    await page.press('#input', 'Enter')
    await page.locator('.msg[data-synthetic="true"]', {hasText: 'typed over the bridge'}).waitFor({timeout: 30_000})
    await messageOf(page, 'bot', 'echo: typed over the bridge').waitFor({timeout: 30_000})
    expect(problems).toEqual([])
    while (pages.length) await pages.pop()!.close()
    dev.child.kill('SIGINT')
    expect((await dev.exited).code).toBe(0)
  }, 180_000)

  it('in long polling shows the chat and says why its input is off', async () => {
    const {token, emu} = world
    emu.setUser(token, PERSON.id, {firstName: PERSON.firstName, username: PERSON.username})
    const {dev, ready} = await session('polling')
    const page = await open(String(ready.chatUrl))
    await say('hello polling', 'echo: hello polling')
    await messageOf(page, 'user', 'hello polling').waitFor({timeout: 30_000})
    await messageOf(page, 'bot', 'echo: hello polling').waitFor({timeout: 30_000})
    expect(await page.locator('#input').isDisabled()).toBe(true)
    expect(await page.locator('#input').getAttribute('placeholder')).toContain('long polling')
    const res = await fetch(new URL('api/actions/send_message', `${String(ready.chatUrl).split('?')[0]}/`), {
      method: 'POST',
      headers: {
        'x-bot-dev-key': new URL(String(ready.chatUrl)).searchParams.get('key')!,
        'content-type': 'application/json',
      },
      body: JSON.stringify({text: 'x', chat_id: PERSON.id, user_id: PERSON.id}),
    })
    expect(res.status).toBe(409)
    expect(((await res.json()) as {error: string}).error).toContain('long polling')

    // An ephemeral message (Bot API 10.2) the bot sends the person: shown to them, out of the chat's history; its
    // edit and its deletion (each answered `true` by Telegram, so drawn from the call's parameters) show live.
    emu.sendUserMessage(token, {text: '/ephemeral', userId: PERSON.id})
    const eph = page.locator('.msg.ephemeral')
    await eph.filter({hasText: 'Only for you'}).waitFor({timeout: 30_000})
    expect(await eph.locator('.ephemeral-mark').textContent()).toBe('only you can see this')
    const base = `${String(ready.chatUrl).split('?')[0]}/`
    const headers = {'x-bot-dev-key': new URL(String(ready.chatUrl)).searchParams.get('key')!}
    const history = await (await fetch(new URL(`api/chats/${PERSON.id}/messages`, base), {headers})).text()
    expect(history).not.toContain('Only for you')
    emu.sendUserMessage(token, {text: '/reveal', userId: PERSON.id})
    await eph.filter({hasText: 'Revealed: 42'}).waitFor({timeout: 30_000})
    expect(await eph.locator('strong').textContent()).toBe('Revealed')
    expect(await page.locator('.msg', {hasText: 'Only for you'}).count()).toBe(0)
    // the edit removed the keyboard (an edit without reply_markup does)
    expect(await eph.locator('button').count()).toBe(0)
    // a page opened now draws it as it is from the session's record
    const later = await open(String(ready.chatUrl))
    await later.locator('.msg.ephemeral', {hasText: 'Revealed: 42'}).waitFor({timeout: 30_000})
    emu.sendUserMessage(token, {text: '/dismiss', userId: PERSON.id})
    for (const p of [page, later])
      await p.waitForFunction(() => document.querySelectorAll('.msg.ephemeral').length === 0, undefined, {
        timeout: 30_000,
      })
    const left = await (
      await fetch(new URL(`api/chats/${PERSON.id}/ephemeral?user_id=${PERSON.id}`, base), {headers})
    ).json()
    expect(left).toEqual([])
    expect(problems).toEqual([])
    while (pages.length) await pages.pop()!.close()
    dev.child.kill('SIGINT')
    const result = await dev.exited
    expect(result.code, result.stderr).toBe(0)
  }, 180_000)
})

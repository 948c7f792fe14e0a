/**
 * The chat page in chromium against a real grammY bot on the emulator: a new chat shows the bot's description and a
 * Start button; typing sends, the bot's answers show live (an edit, a delete, a reaction, a chat action at once);
 * inline buttons: a callback's toast and alert, copy_text, url, switch_inline_query → the bot's results → chosen,
 * web_app dispatches the Mini App event; the commands menu built from setMyCommands; an ephemeral message (Bot API
 * 10.2) shown to its receiver, pressed, edited and deleted live. Also `bot emulator`'s lines.
 */
import type {Page} from 'playwright-core'
import {beforeEach, describe, expect, it} from 'vitest'

import {browserSkipReason} from '../support/browser.js'
import {startGrammy} from './bots.js'
import {botMessage, type ChatRig, type, useChatPage} from './helpers.js'

const skip = browserSkipReason()
if (skip) console.warn(`test/chat/chat-live.e2e.test.ts skipped: ${skip}`)

describe.skipIf(skip !== undefined)('the chat page: live chat and buttons (grammY)', () => {
  const chat = useChatPage({firstUserId: 5000, name: 'Tess', startBot: startGrammy})
  // each test is a user of its own, in their own private chat with the bot (useChatPage opens the page)
  let page: Page
  let rig: ChatRig
  let userId: number
  beforeEach(() => void ({page, rig, userId} = chat))

  it('shows the description and Start on a new chat; Start sends /start and the answer shows', async () => {
    await page.waitForSelector('#intro:not([hidden])')
    await page.waitForFunction(() => document.querySelector('#intro-text')!.textContent!.includes('I am the test bot'))
    await page.click('#start')
    await botMessage(page, 'Welcome!').waitFor()
    expect(await page.locator('.msg[data-from="user"]').first().textContent()).toContain('/start')
    expect(await page.locator('#intro').isHidden()).toBe(true)
  })

  it('sends typed text and shows the answer, an edit, a delete, a reaction and a chat action live', async () => {
    await type(page, 'hello')
    await botMessage(page, 'Hi there!').waitFor()
    // a chat action: "typing…" under the title
    await type(page, 'typing')
    await page.waitForFunction(() => document.querySelector('#chat-sub')!.textContent === 'typing…')
    // the bot reacts to the user's message
    await type(page, 'react')
    await page.locator('.msg[data-from="user"]', {hasText: 'react'}).locator('.reactions', {hasText: '👍 1'}).waitFor()
    // sent then deleted: it goes away
    const deleted = rig.emu.waitForBotMessage(rig.token, {
      chatId: userId,
      predicate: (c) => c.method === 'deleteMessage',
    })
    await type(page, 'del')
    await deleted
    await page.waitForFunction(
      () => ![...document.querySelectorAll('.msg')].some((m) => m.textContent!.includes('to be deleted')),
    )
    // an edit replaces the message in place, marked "edited"
    await type(page, '/kb')
    await botMessage(page, 'Pick one').waitFor()
    await page.click('.msg[data-from="bot"] button:has-text("Edit me")')
    const edited = botMessage(page, 'Edited text')
    await edited.waitFor()
    expect(await edited.locator('.edited').textContent()).toBe('edited')
    expect(await page.locator('.msg', {hasText: 'Pick one'}).count()).toBe(0)
  })

  it("shows an ephemeral message to its receiver with its mark; its button's edit and delete show live", async () => {
    await type(page, 'secret')
    const eph = page.locator('.msg.ephemeral', {hasText: 'Only for you'})
    await eph.waitFor()
    expect(await eph.locator('.ephemeral-mark').textContent()).toBe('only you can see this')
    // not a message of the chat's history (message_id 0): only the receiver's list has it
    expect(rig.emu.chatHistory(rig.token, userId, {limit: 100}).some((v) => v.message.text === 'Only for you')).toBe(
      false,
    )
    // the press goes to the bot as press_button with ephemeral_message_id; it edits the message
    await eph.locator('button:has-text("Reveal")').click()
    const revealed = page.locator('.msg.ephemeral', {hasText: 'Revealed: 42'})
    await revealed.waitFor()
    expect(await page.locator('.msg', {hasText: 'Only for you'}).count()).toBe(0)
    await revealed.locator('button:has-text("Dismiss")').click()
    await page.waitForFunction(() => document.querySelectorAll('.msg.ephemeral').length === 0)
  })

  it('shows a callback answer as a toast, with show_alert as an alert; copy_text copies; url opens', async () => {
    await type(page, '/kb')
    const kb = botMessage(page, 'Pick one')
    await kb.waitFor()
    await kb.locator('button:has-text("Toast")').click()
    await page.waitForFunction(
      () =>
        !document.querySelector<HTMLElement>('#toast')!.hidden &&
        document.querySelector('#toast')!.textContent === 'Toasted!',
    )
    await kb.locator('button:has-text("Alert")').click()
    await page.waitForSelector('#alert[open]')
    expect(await page.locator('#alert-text').textContent()).toBe('An alert!')
    await page.click('#alert button')
    await kb.locator('button:has-text("Copy")').click()
    await page.waitForFunction(() => document.body.dataset.copied === 'copied text')
    // a url button opens the link in a new tab (caught here: tests reach loopback only)
    await page.evaluate(() => {
      window.open = ((u: string) => {
        ;(window as any).__opened = u
        return null
      }) as typeof window.open
    })
    await kb.locator('button:has-text("Site")').click()
    expect(await page.evaluate(() => (window as any).__opened)).toBe('https://example.com/')
  })

  it('switch_inline_query_current_chat puts @bot query in the composer; results come from the bot; one is chosen', async () => {
    await type(page, '/kb')
    await botMessage(page, 'Pick one').waitFor()
    await page.click('.msg[data-from="bot"] button:has-text("Inline here")')
    expect(await page.inputValue('#input')).toBe('@chat_test_bot cats')
    const result = page.locator('#inline-results button[data-result-id="a1"]')
    await result.waitFor()
    expect(await result.textContent()).toContain('Result for cats')
    const chosen = new Promise<void>((resolve) => {
      const listener = (update: Record<string, unknown>) => {
        if (update.chosen_inline_result) {
          rig.emu.off('update', listener)
          resolve()
        }
      }
      rig.emu.on('update', listener)
    })
    await result.click()
    await chosen
    await page.locator('.msg', {hasText: 'picked cats'}).locator('.via', {hasText: 'via @chat_test_bot'}).waitFor()
  })

  it('a web_app button dispatches bot-chat:open-web-app for the Mini App part and does nothing else', async () => {
    await page.evaluate(() => {
      ;(window as any).__apps = []
      window.addEventListener('bot-chat:open-web-app', (e) => (window as any).__apps.push((e as CustomEvent).detail))
    })
    await type(page, '/kb')
    await botMessage(page, 'Pick one').waitFor()
    await page.click('.msg[data-from="bot"] button:has-text("App")')
    const apps = await page.evaluate(() => (window as any).__apps)
    expect(apps).toEqual([
      {
        token: rig.token,
        url: 'https://app.example.com/',
        chatId: userId,
        userId,
        source: 'inline',
        startParam: undefined,
      },
    ])
  })

  it('opens the commands menu from setMyCommands (by language) and sends the command picked', async () => {
    await page.click('#menu-button')
    const names = await page
      .locator('#commands-menu button')
      .evaluateAll((bs) => bs.map((b) => (b as HTMLElement).dataset.command))
    expect(names).toEqual(['start', 'help', 'kb'])
    await page.click('#commands-menu button[data-command="help"]')
    await botMessage(page, 'I help.').waitFor()
    // typing "/" opens it filtered
    await page.fill('#input', '/k')
    await page.locator('#commands-menu button[data-command="kb"]').waitFor()
    expect(await page.locator('#commands-menu button').count()).toBe(1)
    // a German-speaking user sees the German list
    const card = await page.evaluate(() => fetch('/api/bot?chat_id=1&user_id=1&language_code=de').then((r) => r.json()))
    expect(card.commands).toEqual([{command: 'hilfe', description: 'Hilfe'}])
  })
})

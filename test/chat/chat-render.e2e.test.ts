/**
 * The chat page in chromium against a real grammY bot on the emulator: how messages are drawn (every entity type,
 * spoilers hidden until clicked, pre with its language, block quotes and expandable ones, custom emoji as their text;
 * replies with quotes; photos from the emulator's files, documents as downloads, voice, location, venue, contact,
 * dice), polls and quizzes voted in, invoices paid (Stars; a provider's with shipping and a tip) with their receipts,
 * a reply keyboard's request buttons (contact, location, users, chat), an upload (and a dropped file), several chats
 * and users. The screenshot docs/chat.png is taken here.
 */
import {readFileSync} from 'node:fs'

import type {Page} from 'playwright-core'
import {beforeEach, describe, expect, it} from 'vitest'

import {browserSkipReason} from '../support/browser.js'
import {startGrammy} from './bots.js'
import {botMessage, PNG, type ChatRig, type, useChatPage} from './helpers.js'

const skip = browserSkipReason()
if (skip) console.warn(`test/chat/chat-render.e2e.test.ts skipped: ${skip}`)

describe.skipIf(skip !== undefined)('the chat page: rendering, polls, payments, shares, chats (grammY)', () => {
  const chat = useChatPage({firstUserId: 7000, name: 'Rita', startBot: startGrammy})
  // each test is a user of its own, in their own private chat with the bot (useChatPage opens the page)
  let page: Page
  let rig: ChatRig
  let userId: number
  beforeEach(() => void ({page, rig, userId} = chat))

  it('draws every entity: spoiler hidden until clicked, pre with its language, quotes, custom emoji as text', async () => {
    await type(page, 'fmt')
    const m = botMessage(page, 'bold')
    await m.waitFor()
    expect(await m.locator('strong').textContent()).toBe('bold')
    expect(await m.locator('em').textContent()).toBe('italic')
    expect(await m.locator('u').textContent()).toBe('under')
    expect(await m.locator('s').textContent()).toBe('struck')
    expect(await m.locator('code[data-entity="code"]').textContent()).toBe('inline')
    expect(await m.locator('a[data-entity="text_link"]').getAttribute('href')).toBe('https://example.com/x')
    expect(await m.locator('.custom-emoji').textContent()).toBe('👍')
    expect(await m.locator('.custom-emoji').getAttribute('data-custom-emoji-id')).toBe('5368324170671202286')
    expect(await m.locator('pre .lang').textContent()).toBe('python')
    expect(await m.locator('pre code').textContent()).toBe('print("hi")')
    expect(await m.locator('blockquote:not(.expandable)').textContent()).toBe('quoted')
    const expandable = m.locator('blockquote.expandable')
    expect(await expandable.getAttribute('class')).toContain('collapsed')
    await expandable.click()
    expect(await expandable.getAttribute('class')).not.toContain('collapsed')
    const spoiler = m.locator('.spoiler')
    expect(await spoiler.evaluate((s) => getComputedStyle(s).color)).toBe('rgba(0, 0, 0, 0)')
    await spoiler.click()
    expect(await spoiler.getAttribute('class')).toContain('revealed')
  })

  it('draws replies with quotes, forwarded headers and service messages (joined, pinned, payment)', async () => {
    await type(page, 'first words')
    await botMessage(page, 'echo: first words').waitFor()
    const chat = {id: userId, type: 'private', first_name: 'Rita'}
    const from = {id: userId, is_bot: false, first_name: 'Rita'}
    const date = Math.floor(Date.now() / 1000)
    const original = rig.emu.chatHistory(rig.token, userId)[0].message
    // what a user's app sends: a reply quoting part of a message, a forward, a service message
    rig.emu.injectUpdate(rig.token, {
      message: {
        message_id: 900,
        from,
        chat,
        date,
        text: 'my reply',
        reply_to_message: original,
        quote: {text: 'first', position: 0, is_manual: true},
      },
    })
    rig.emu.injectUpdate(rig.token, {
      message: {
        message_id: 901,
        from,
        chat,
        date,
        text: 'passed on',
        forward_origin: {type: 'hidden_user', sender_user_name: 'Old Friend', date},
      },
    })
    rig.emu.injectUpdate(rig.token, {
      message: {message_id: 902, from, chat, date, pinned_message: {message_id: 1, chat, date, text: 'first words'}},
    })
    rig.emu.injectUpdate(rig.token, {
      message: {
        message_id: 903,
        from,
        chat: {id: -77, type: 'group', title: 'G'},
        date,
        new_chat_members: [{id: 5, is_bot: false, first_name: 'Newbie'}],
      },
    })
    const reply = page.locator('.msg[data-message-id="900"]')
    await reply.waitFor()
    expect(await reply.locator('.reply .quote').textContent()).toBe('first')
    expect(await page.locator('.msg[data-message-id="901"] .fwd').textContent()).toBe('Forwarded from Old Friend')
    expect(await page.locator('.msg.service[data-message-id="902"]').textContent()).toBe('Rita pinned "first words"')
    // the group appears in the list; its service message shows there
    await page.click('#chats li[data-chat-id="-77"]')
    await page.locator('.msg.service', {hasText: 'Newbie joined the group'}).waitFor()
  })

  it('draws media: a photo from the emulator, a caption, a document to download, voice, location, venue, contact, dice', async () => {
    await type(page, 'photo')
    const photo = botMessage(page, 'red square')
    await photo.waitFor()
    expect(await photo.locator('.caption strong').textContent()).toBe('red')
    await page.waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>('.msg[data-from="bot"] img.photo')
      return img !== null && img.complete && img.naturalWidth === 2
    })
    await type(page, 'doc')
    const doc = botMessage(page, 'notes.txt')
    await doc.waitFor()
    const href = await doc.locator('a.download').getAttribute('href')
    const body = await page.evaluate((u) => fetch(u!).then((r) => r.text()), href)
    expect(body).toBe('hello file\n')
    await type(page, 'voice')
    await page.locator('.msg[data-from="bot"] audio.voice').waitFor()
    await type(page, 'places')
    await botMessage(page, 'value').waitFor()
    expect(await page.locator('.msg .location').textContent()).toBe('📍 51.5, -0.12')
    expect(await page.locator('.msg .venue .title').textContent()).toBe('📍 Louvre')
    expect(await page.locator('.msg .contact .phone').textContent()).toBe('+15550002222')
    const dice = page.locator('.msg .dice-box')
    const value = Number(await dice.getAttribute('data-value'))
    expect(value).toBeGreaterThanOrEqual(1)
    expect(value).toBeLessThanOrEqual(6)
  })

  it('votes in a poll and a quiz: counts and the quiz result with its explanation', async () => {
    await type(page, 'poll')
    const poll = botMessage(page, 'Best colour?')
    await poll.waitFor()
    await poll.locator('.option[data-index="1"] button').click()
    await poll.locator('.option[data-index="1"]', {hasText: '100% ✓ green'}).waitFor()
    expect(await poll.locator('.total').textContent()).toBe('1 vote')
    await type(page, 'quiz')
    const quiz = botMessage(page, '2+2?')
    await quiz.waitFor()
    await quiz.locator('.option[data-index="0"] button').click()
    await quiz.locator('.option.wrong[data-index="0"]').waitFor()
    expect(await quiz.locator('.option[data-index="1"]').getAttribute('class')).toContain('correct')
    expect(await quiz.locator('.explanation').textContent()).toBe('💡 It is four')
  })

  it('pays a Stars invoice and a provider invoice with shipping and a tip; receipts show', async () => {
    await type(page, 'stars')
    const stars = botMessage(page, 'Star pack')
    await stars.waitFor()
    expect(await stars.locator('.price').textContent()).toBe('⭐ 50')
    // an invoice's Pay button is drawn by the client when the bot's keyboard has none
    await stars.locator('button:has-text("Pay")').click()
    await page.waitForSelector('#pay[open]')
    await page.click('#pay-go')
    await page.waitForSelector('#pay-result[data-status="paid"]')
    await page.click('#pay-cancel')
    await page.locator('.msg.service', {hasText: 'You paid ⭐ 50'}).waitFor()
    await botMessage(page, 'thanks for 50 XTR').waitFor()
    await stars.locator('.receipt').waitFor()

    await type(page, 'shop')
    const shop = botMessage(page, 'T-shirt')
    await shop.waitFor()
    await shop.locator('button:has-text("Pay")').click()
    await page.waitForSelector('#pay[open]')
    await page.selectOption('#pay-tip', '500')
    await page.fill('#pay-shipping', 'courier')
    await page.click('#pay-go')
    await page.waitForSelector('#pay-result[data-status="paid"]')
    await page.click('#pay-cancel')
    // 15.00 + courier 9.00 + tip 5.00
    await botMessage(page, 'thanks for 2900 USD').waitFor()
  })

  it("presses a reply keyboard's buttons: text, contact, location, users, chat", async () => {
    await type(page, '/reply')
    await page.locator('#reply-keyboard button', {hasText: 'Plain'}).waitFor()
    await page.click('#reply-keyboard button:has-text("Plain")')
    await botMessage(page, 'echo: Plain').waitFor()
    await page.click('#reply-keyboard button:has-text("Contact")')
    await page.waitForSelector('#share[open]')
    await page.fill('#share-fields input[name="phone_number"]', '+15551234567')
    await page.click('#share-go')
    await botMessage(page, 'got contact +15551234567').waitFor()
    await page.click('#reply-keyboard button:has-text("Location")')
    await page.click('#share-go')
    await botMessage(page, 'got location 51.5074').waitFor()
    await page.click('#reply-keyboard button:has-text("Users")')
    await page.fill('#share-fields input[name="user_ids"]', '2222,3333')
    await page.click('#share-go')
    await botMessage(page, 'got users 2222,3333').waitFor()
    await page.click('#reply-keyboard button:has-text("Chat")')
    await page.fill('#share-fields input[name="shared_chat_id"]', '-1001234')
    await page.click('#share-go')
    await botMessage(page, 'got chat -1001234').waitFor()
    await page.evaluate(() => {
      ;(window as any).__apps = []
      window.addEventListener('bot-chat:open-web-app', (e) => (window as any).__apps.push((e as CustomEvent).detail))
    })
    await page.click('#reply-keyboard button:has-text("KB app")')
    expect(await page.evaluate(() => (window as any).__apps.map((a: any) => [a.url, a.source]))).toEqual([
      ['https://kb.example.com/', 'keyboard'],
    ])
  })

  it('uploads a photo (file picker) and a file (dropped); the bot gets the real bytes', async () => {
    await page.setInputFiles('#file', {name: 'red.png', mimeType: 'image/png', buffer: PNG})
    await botMessage(page, 'nice photo 2x2').waitFor()
    await page.locator('.msg[data-from="user"] img.photo').waitFor()
    const drop = await page.evaluateHandle(() => {
      const dt = new DataTransfer()
      dt.items.add(new File(['dropped bytes'], 'dropped.txt', {type: 'text/plain'}))
      return dt
    })
    await page.dispatchEvent('#main', 'drop', {dataTransfer: drop})
    await botMessage(page, 'got file dropped.txt').waitFor()
  })

  it('makes a group and a forum supergroup, switches who types; each message shows its sender', async () => {
    await page.click('#new-chat-box summary')
    await page.selectOption('#new-chat-type', 'forum')
    await page.fill('#new-chat-title', 'Forum')
    await page.click('#new-chat button')
    await page.waitForFunction(() => document.querySelector('#chat-title')!.textContent === 'Forum')
    expect(await page.locator('#topic-box').isVisible()).toBe(true)
    await page.fill('#topic', '42')
    await type(page, 'in a topic')
    const sent = await rig.emu.waitForBotMessage(rig.token, {predicate: (c) => c.params.text === 'echo: in a topic'})
    const chatId = Number(sent.params.chat_id)
    expect(chatId).toBeLessThan(-1000000000000)
    const stored = rig.emu.chatHistory(rig.token, chatId).map((v) => v.message)
    expect(stored[0]).toMatchObject({
      message_thread_id: 42,
      is_topic_message: true,
      chat: {type: 'supergroup', is_forum: true},
    })
    // a second user joins the conversation in the same chat
    await page.click('.users details summary')
    await page.fill('#new-user-name', 'Bob')
    await page.fill('#new-user-id', String(userId + 100000))
    await page.click('#new-user button')
    await page.waitForFunction(() =>
      document.querySelector<HTMLSelectElement>('#user-select')!.selectedOptions[0].textContent!.startsWith('Bob'),
    )
    await type(page, 'from bob')
    await botMessage(page, 'echo: from bob').waitFor()
    expect(await page.locator('.msg[data-from="user"]', {hasText: 'from bob'}).count()).toBe(1)
    // the chat list has the private chat and the forum
    const kinds = await page.locator('#chats li .kind').allTextContents()
    expect(kinds).toContain('supergroup · topics')
    expect(kinds).toContain('private chat')
  })

  it('takes the screenshot docs/chat.png', async () => {
    await type(page, 'fmt')
    await botMessage(page, 'bold').waitFor()
    await type(page, '/kb')
    await botMessage(page, 'Pick one').waitFor()
    await type(page, 'poll')
    await botMessage(page, 'Best colour?').locator('.option[data-index="2"] button').click()
    await page.locator('.option[data-index="2"]', {hasText: '✓ blue'}).waitFor()
    await type(page, 'photo')
    await botMessage(page, 'red square').waitFor()
    const file = new URL('../../docs/chat.png', import.meta.url)
    await page.screenshot({path: file.pathname})
    expect(readFileSync(file).subarray(1, 4).toString('latin1')).toBe('PNG')
  })
})

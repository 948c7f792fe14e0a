/**
 * The chat page in chromium against a real grammY bot on the emulator, for what the other chat tests do not draw:
 * video, audio and voice players, stickers as images, video notes, a rich message (Bot API 10.1 blocks), the
 * web_app menu button a bot sets with setChatMenuButton (the page's menu button opens the Mini App in the frame:
 * the `bot init` templates' own Mini App, whose server checks the initData the frame was launched with), and posting
 * in a channel as its administrator (the bot gets channel_post; its answer shows); a bot's reply quoting the user.
 */
import {readFileSync, mkdtempSync, rmSync} from 'node:fs'
import {createServer, type Server} from 'node:https'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import type {Page} from 'playwright-core'
import {describe, expect, it} from 'vitest'

import {serveWebApp} from '../../templates/_shared/src/web-app.js'
import {browserSkipReason} from '../support/browser.js'
import {selfSignedCert} from '../support/tls.js'
import {startGrammy} from './bots.js'
import {botMessage, PNG, type, useChatPage} from './helpers.js'

const skip = browserSkipReason()
if (skip) console.warn(`test/chat/chat-media.e2e.test.ts skipped: ${skip}`)

/** The bytes the page's link or player `src` serves (through the page's file route). */
async function bytesOf(page: Page, selector: string): Promise<string> {
  const src = await page.locator(selector).last().getAttribute('src')
  expect(src).toBeTruthy()
  return page.evaluate((u) => fetch(u).then((r) => r.text()), src!)
}

describe.skipIf(skip !== undefined)('the chat page: media players, stickers, rich messages, menu app, channels', () => {
  const chat = useChatPage({firstUserId: 9000, name: 'Mia', startBot: startGrammy})

  it('draws video, audio and voice players, a sticker as an image and a round video note, each with its file', async () => {
    const {page} = chat
    await type(page, 'video')
    const video = botMessage(page, 'a clip')
    await video.waitFor()
    expect(await video.locator('video.video').getAttribute('controls')).not.toBeNull()
    expect(await bytesOf(page, '.msg[data-from="bot"] video.video')).toBe('fake mp4 video')

    await type(page, 'audio')
    const audio = page.locator('.msg[data-from="bot"] .audio-box').last()
    await audio.waitFor()
    expect(await audio.locator('.audio-title').textContent()).toBe('Ann — Song')
    expect(await bytesOf(page, '.msg[data-from="bot"] .audio-box audio')).toBe('ID3 fake mp3')

    await type(page, 'voice')
    await page.locator('.msg[data-from="bot"] audio.voice').waitFor()
    expect(await bytesOf(page, '.msg[data-from="bot"] audio.voice')).toBe('OggS fake voice')

    await type(page, 'sticker')
    await page.waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>('.msg[data-from="bot"] img.sticker')
      return img !== null && img.complete && img.naturalWidth === 2
    })

    await type(page, 'round')
    await page.locator('.msg[data-from="bot"] video.video-note').waitFor()
    expect(await bytesOf(page, '.msg[data-from="bot"] video.video-note')).toBe('fake mp4 round')
    expect(
      await page.locator('.msg[data-from="bot"] video.video-note').evaluate((v) => getComputedStyle(v).borderRadius),
    ).toMatch(/%|px/)
  })

  it("draws the quote of a bot's reply made with reply_parameters.quote (Message.quote from the emulator)", async () => {
    const {page} = chat
    await type(page, 'quote')
    const reply = botMessage(page, 'answer with a quote')
    await reply.waitFor()
    expect(await reply.locator('.reply .quote').textContent()).toBe('quote')
  })

  it('draws a rich message: heading, styled text, list, quote, code, table, divider and a photo block', async () => {
    const {page, rig, userId} = chat
    await type(page, 'first')
    await botMessage(page, 'echo: first').waitFor()
    const me = (await fetch(`${rig.emu.apiRoot}/bot${rig.token}/getMe`).then((r) => r.json())).result
    // what a bot's sendRichMessage makes (core.telegram.org/bots/api#richmessage), as the bot's message in the chat
    const sentPhoto = (
      await fetch(`${rig.emu.apiRoot}/bot${rig.token}/sendPhoto`, {
        method: 'POST',
        body: (() => {
          const form = new FormData()
          form.set('chat_id', String(userId))
          form.set('photo', new Blob([PNG], {type: 'image/png'}), 'red.png')
          return form
        })(),
      }).then((r) => r.json())
    ).result
    rig.emu.injectUpdate(rig.token, {
      message: {
        message_id: 950,
        from: me,
        chat: {id: userId, type: 'private', first_name: 'Mia'},
        date: Math.floor(Date.now() / 1000),
        rich_message: {
          blocks: [
            {type: 'heading', text: 'Release notes', size: 1},
            {
              type: 'paragraph',
              text: [
                'Now ',
                {type: 'bold', text: 'faster'},
                ' and ',
                {type: 'url', text: 'documented', url: 'https://example.com/docs'},
              ],
            },
            {
              type: 'list',
              items: [
                {label: '•', blocks: [{type: 'paragraph', text: 'first point'}]},
                {label: '•', blocks: [{type: 'paragraph', text: {type: 'italic', text: 'second point'}}]},
              ],
            },
            {type: 'blockquote', blocks: [{type: 'paragraph', text: 'a quoted line'}], credit: 'Someone'},
            {type: 'pre', text: 'npm test', language: 'sh'},
            {type: 'divider'},
            {
              type: 'table',
              cells: [
                [
                  {text: 'name', is_header: true, align: 'left', valign: 'top'},
                  {text: 'value', is_header: true, align: 'left', valign: 'top'},
                ],
                [
                  {text: 'speed', align: 'left', valign: 'top'},
                  {text: '2×', align: 'left', valign: 'top'},
                ],
              ],
            },
            {type: 'photo', photo: sentPhoto.photo, caption: {text: 'a red square'}},
          ],
        },
      },
    })
    const m = page.locator('.msg[data-message-id="950"] .rich')
    await m.waitFor()
    expect(await m.locator('h2.rich-heading').textContent()).toBe('Release notes')
    expect(await m.locator('p.rich-text').first().textContent()).toBe('Now faster and documented')
    expect(await m.locator('p.rich-text strong').first().textContent()).toBe('faster')
    expect(await m.locator('a[data-rich="url"]').getAttribute('href')).toBe('https://example.com/docs')
    expect(await m.locator('ul.rich-list li').allTextContents()).toEqual(['first point', 'second point'])
    expect(await m.locator('ul.rich-list li em').textContent()).toBe('second point')
    expect(await m.locator('blockquote p').textContent()).toBe('a quoted line')
    expect(await m.locator('blockquote .rich-credit').textContent()).toBe('Someone')
    expect(await m.locator('pre code').textContent()).toBe('npm test')
    expect(await m.locator('pre .lang').textContent()).toBe('sh')
    expect(await m.locator('hr').count()).toBe(1)
    expect(await m.locator('table th').allTextContents()).toEqual(['name', 'value'])
    expect(await m.locator('table td').allTextContents()).toEqual(['speed', '2×'])
    expect(await m.locator('.rich-media .rich-caption').textContent()).toBe('a red square')
    await page.waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>('.msg[data-message-id="950"] .rich img.photo')
      return img !== null && img.complete && img.naturalWidth === 2
    })
  })

  it("opens the Mini App of the web_app menu button the bot set: the templates' app, whose server accepts its initData", async () => {
    const {page, rig} = chat
    const dir = mkdtempSync(join(tmpdir(), 'chat-menu-app-'))
    let server: Server | undefined
    try {
      // The templates' Mini App (templates/_shared: app/index.html and its /app/check) on https, as a host serves it.
      const {keyFile, certFile} = selfSignedCert(dir, {cn: '127.0.0.1', san: 'IP:127.0.0.1'})
      const checks: number[] = []
      server = createServer({key: readFileSync(keyFile), cert: readFileSync(certFile)}, (req, res) => {
        if (req.url === '/app/check') res.on('finish', () => checks.push(res.statusCode))
        if (!serveWebApp(req, res, rig.token)) res.writeHead(404).end()
      })
      await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/app/`

      await type(page, `menuapp ${url}`)
      await botMessage(page, 'menu set').waitFor()
      await page.waitForFunction(() => document.querySelector('#menu-button')!.textContent === 'Open app')
      await page.click('#menu-button')
      await page.waitForSelector('.bc-miniapp[data-state="ready"]', {timeout: 15_000})
      const frame = page.frameLocator('.bc-miniapp iframe')
      await expect.poll(() => frame.locator('#hello').textContent(), {timeout: 10_000}).toBe('Hello, Mia!')
      // the page sent Telegram.WebApp.initData to the app's server, which checked it with the bot's token
      await frame.locator('#status[data-result="verified"]').waitFor({timeout: 10_000})
      expect(checks).toEqual([200])
    } finally {
      await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)))
      rmSync(dir, {recursive: true, force: true})
    }
  })

  it('posts in a channel as its administrator: the bot gets channel_post, and its answer shows', async () => {
    const {page, rig} = chat
    await page.click('#new-chat-box summary')
    await page.selectOption('#new-chat-type', 'channel')
    await page.fill('#new-chat-title', 'News')
    await page.click('#new-chat button')
    await page.waitForFunction(() => document.querySelector('#chat-title')!.textContent === 'News')
    expect(await page.locator('#composer').isVisible()).toBe(true)
    await type(page, 'hello channel')
    await botMessage(page, 'channel echo: hello channel').waitFor()
    // the post itself shows too (drawn from the action's answer at once)
    await page
      .locator('.msg .text')
      .filter({hasText: /^hello channel$/})
      .waitFor()
    // the post as the bot got it: the channel's, with no from
    const channel = rig.emu.chatList(rig.token).find((c) => c.title === 'News')!
    const post = rig.emu.chatHistory(rig.token, channel.id as number)[0].message
    expect(post).toMatchObject({text: 'hello channel', chat: {type: 'channel'}, sender_chat: {id: channel.id}})
    expect(post.from).toBeUndefined()
  })
})

/**
 * The chat page (docs/chat.md) in Debian's chromium against the emulator, as `bot emulator` serves it:
 *
 * 1. Latency: the bot's sendMessage is answered → the message is drawn in the page (a MutationObserver notes the
 *    time). Both clocks are the machine's (performance.timeOrigin + now() in Node and in the page). 100 messages, one
 *    at a time; target p50 ≤ 50 ms.
 * 2. A chat of 5,000 messages (2,500 from the user, 2,500 answers of the bot) opens: from navigation to the chat
 *    drawn with its newest messages (the page draws the newest 100 and fetches older ones as the user scrolls up, as
 *    Telegram's clients do); target ≤ 1 s (median of 3 loads). The first load is then scrolled up to the first
 *    message, to show every message is there.
 *
 *   npm run build && npx tsx bench/chat-page.ts
 */
import {createChatPage} from '../src/chat/server.js'
import {BotApiEmulator} from '../src/emulator/index.js'
import {launchChromium} from '../test/support/browser.js'

const MESSAGES = 100
const HISTORY = 5000

const now = () => performance.timeOrigin + performance.now()
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]

const emu = await BotApiEmulator.start()
const {token} = emu.createBot({username: 'bench_chat_bot'})
const chat = await createChatPage({emulator: emu, token, base: '/'})
emu.servePage((req, res, path, search) => chat.handle(req, res, path, search))
const send = async (chatId: number, text: string): Promise<void> => {
  const res = await fetch(`${emu.apiRoot}/bot${token}/sendMessage`, {
    method: 'POST',
    headers: {'content-type': 'application/json'},
    body: JSON.stringify({chat_id: chatId, text}),
  })
  await res.arrayBuffer()
}
const browser = await launchChromium()
try {
  // ── 1. latency ───────────────────────────────────────────────────────
  const live = 1111
  emu.sendUserMessage(token, {text: 'hi', userId: live})
  const page = await browser.newPage()
  await page.goto(`${emu.apiRoot}/?user=${live}`)
  await page.waitForSelector('body[data-ready="true"]')
  await page.waitForSelector('#status[data-state="live"]')
  await page.evaluate(() => {
    const seen: Record<string, number> = {}
    ;(window as any).__seen = seen
    new MutationObserver((records) => {
      const at = performance.timeOrigin + performance.now()
      for (const r of records)
        for (const node of r.addedNodes) {
          const text = (node as HTMLElement).querySelector?.('.text')?.textContent
          if (text?.startsWith('bench ') && seen[text] === undefined) seen[text] = at
        }
    }).observe(document.querySelector('#messages')!, {childList: true})
  })
  const deltas: number[] = []
  for (let i = 0; i < MESSAGES; i++) {
    const text = `bench ${i}`
    await send(live, text)
    const answered = now()
    await page.waitForFunction((t) => (window as any).__seen[t] !== undefined, text, {polling: 'raf'})
    const seen = await page.evaluate((t) => (window as any).__seen[t] as number, text)
    deltas.push(seen - answered)
  }
  const p50 = pct(deltas, 50)
  console.log(
    `sendMessage answered → drawn in the page (${MESSAGES} messages): p50 ${p50.toFixed(1)} ms, p95 ${pct(deltas, 95).toFixed(1)} ms, max ${Math.max(...deltas).toFixed(1)} ms ${p50 <= 50 ? '✓' : '✗'} (target p50 ≤ 50 ms)`,
  )
  await page.close()

  // ── 2. a chat of 5,000 messages ──────────────────────────────────────
  const big = 2222
  for (let i = 0; i < HISTORY / 2; i++) {
    emu.sendUserMessage(token, {text: `question ${i}`, userId: big})
    await send(big, `answer ${i} with *some* text`)
  }
  const loads: number[] = []
  const opened: number[] = []
  for (let run = 0; run < 3; run++) {
    const p = await browser.newPage()
    await p.goto(`${emu.apiRoot}/?user=${big}`)
    await p.waitForSelector(`body[data-chat-loaded="${big}"]`, {timeout: 30_000})
    loads.push(Number(await p.evaluate(() => document.body.dataset.loadedAtMs)))
    opened.push(Number(await p.evaluate(() => document.body.dataset.openedMs)))
    // the newest message is drawn and in view; scrolling up brings the older ones, page by page, down to the first
    const last = p.locator('#messages .msg').last()
    if (!(await last.textContent())?.includes(`answer ${HISTORY / 2 - 1}`))
      throw new Error('the newest message is not drawn')
    if (run === 0) {
      const t0 = performance.now()
      while ((await p.locator('#messages .msg').count()) < HISTORY) {
        const before = await p.locator('#messages .msg').count()
        await p.evaluate(() => (document.querySelector('#messages')!.scrollTop = 0))
        await p.waitForFunction((n) => document.querySelectorAll('#messages .msg').length > n, before)
      }
      console.log(`  scrolled up through all ${HISTORY} messages in ${Math.round(performance.now() - t0)} ms`)
    }
    await p.close()
  }
  const median = pct(loads, 50)
  console.log(
    `a chat of ${HISTORY} messages opens (navigation → its newest messages drawn), 3 loads: ${loads.join(', ')} ms (of which fetching and drawing them: ${opened.join(', ')} ms); median ${median} ms ${median <= 1000 ? '✓' : '✗'} (target ≤ 1000 ms)`,
  )
} finally {
  await browser.close()
  chat.close()
  await emu.stop()
}

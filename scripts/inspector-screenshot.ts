/**
 * Takes docs/inspector.png: the inspector page in Debian's chromium with real data (webhook
 * deliveries from the emulator, the bot's real sendMessage calls, one failing, one replay).
 *
 *   npx tsx scripts/inspector-screenshot.ts [out.png] [--dark]
 */
import {resolve} from 'node:path'

import {startInspectorServer} from '../src/inspector/server.js'
import {launchChromium, startEchoSession} from '../test/support/browser.js'

const args = process.argv.slice(2)
const dark = args.includes('--dark')
const out = resolve(args.find((a) => !a.startsWith('--')) ?? 'docs/inspector.png')

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

const session = await startEchoSession()
const server = await startInspectorServer({history: session.history, actions: session.actions, key: 'screenshot', secrets: [session.token]})
const browser = await launchChromium()
try {
  const page = await browser.newPage({viewport: {width: 1440, height: 820}, colorScheme: dark ? 'dark' : 'light'})
  await page.goto(server.url)
  await page.waitForSelector('#status[data-state="live"]')
  const say = async (text: string, chatId: number, firstName: string) => {
    const count = session.handled()
    const {update_id: id} = session.emu.sendUserMessage(session.token, {text, chatId, userId: chatId, firstName})
    await until(() => session.handled() > count && session.history.find(id)?.answer != null, `update ${id}`)
    return id
  }
  await say('/start', 1111, 'Ann')
  await say('hello bot', 1111, 'Ann')
  await say('what can you do?', 2222, 'Bob')
  const { update_id: press } = session.emu.sendCallbackQuery(session.token, {data: 'menu:settings', chatId: 2222, userId: 2222})
  await until(() => session.history.find(press)?.answer != null, 'the button press')
  const failing = await say('fail', 1111, 'Ann')
  await say('see you', 2222, 'Bob')
  await session.actions.replay(failing)
  await page.waitForSelector(`#rows tr[data-update-id="${failing}"] .tag`)
  await page.locator(`#rows tr[data-update-id="${failing}"]`).first().click()
  await page.waitForSelector('#detail-calls .call-card')
  await page.screenshot({path: out})
  console.log(`wrote ${out}`)
} finally {
  await browser.close()
  await server.close()
  await session.close()
}

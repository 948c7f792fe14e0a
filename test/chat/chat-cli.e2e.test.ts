/**
 * Where the chat page is served, through the CLI: `bot emulator` at / of its own port (a `chat` start line, `chatUrl`
 * in --json, the page's API answering as the emulator's bot); `bot dev --offline` in the inspector at /chat behind
 * its key (the Ready line names it), and `:pay` in the terminal chat paying the newest invoice (a Telegraf shop).
 */
import type {ChildProcess} from 'node:child_process'
import {chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {fixture} from '../dev/helpers.js'
import {startOfflineSession} from '../inspector/offline-helpers.js'
import {parseJsonOutput, runCli, startCli, type RunningCli} from '../support/cli.js'
import {waitFor} from '../support/wait.js'

describe('the chat page from the CLI', () => {
  const running: RunningCli[] = []
  const children: ChildProcess[] = []
  afterEach(() => {
    for (const cli of running.splice(0)) cli.kill('SIGKILL')
    for (const child of children.splice(0))
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })

  it('bot emulator prints the chat page among its start lines, and chatUrl in --json', async () => {
    const text = startCli(['emulator', '--port', '0'])
    running.push(text)
    const line = await text.waitForOutput(/ {2}chat {4}(http:\/\/127\.0\.0\.1:\d+\/) /, {stream: 'stdout'})
    const url = /chat {4}(http:\/\/127\.0\.0\.1:\d+\/)/.exec(line)![1]
    const page = await fetch(url)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('<script type="module" src="/miniapp.js?key="></script>')
    // a page of another site may not use it (the emulator's own cross-site rule)
    const foreign = await fetch(`${url}api/config`, {headers: {'sec-fetch-site': 'cross-site'}})
    expect(foreign.status).toBe(403)

    const json = startCli(['emulator', '--port', '0', '--json'])
    running.push(json)
    await json.waitForOutput(/"chatUrl"/, {stream: 'stdout'})
    const start = parseJsonOutput<{chatUrl: string; apiRoot: string; token: string}>({
      stdout: json.stdout(),
      stderr: '',
    })
    expect(start.chatUrl).toBe(`${start.apiRoot}/`)
    const config = (await (await fetch(`${start.chatUrl}api/config`)).json()) as {me: {username: string}; token: string}
    expect(config.me.username).toBe('offline_dev_bot')
    expect(config.token).toBe(start.token)
  })

  it('bot dev --offline serves it at /chat behind the key, names it on the Ready line; :pay pays the newest invoice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bot-chat-cli-'))
    const record = join(dir, 'record.txt')
    writeFileSync(record, '')
    const result = await runCli(
      ['dev', '--offline', '--no-watch', '--mode', 'polling', '--', 'node', fixture('telegraf-shop.mjs')],
      {
        cwd: dir,
        input: '/buy\n:pay\n',
        env: {FIXTURE_RECORD: record, BOT_STATE_DIR: join(dir, 'state')},
        timeoutMs: 90_000,
      },
    )
    const all = result.stdout + result.stderr
    expect(all).toMatch(
      /Chat page: http:\/\/127\.0\.0\.1:\d+\/chat\?key=[0-9a-f]{32} Inspector: http:\/\/127\.0\.0\.1:\d+\/\?key=/,
    )
    expect(result.stdout).toContain('you › [pay Stars pack]')
    expect(result.stdout).toMatch(/\(paid "Stars pack": 25 XTR\)/)
    expect(readFileSync(record, 'utf8')).toMatch(/paid \S+ 25 XTR stars-pack/)
    expect(result.code).toBe(0)
  })

  it('bot dev --offline: /chat behind the key; :w opens it with a one-time code, as :o the inspector', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bot-chat-open-'))
    const browser = join(dir, 'browser.sh')
    const argvFile = join(dir, 'argv.txt')
    writeFileSync(browser, `#!/bin/sh\nprintf '%s\\n' "$@" >> '${argvFile}'\n`)
    chmodSync(browser, 0o755)
    const o = startOfflineSession(['--json'], children, {
      killAfterMs: 60_000,
      prefix: 'bot-chat-cli-',
      env: {BROWSER: browser},
    })
    const ready = await o.waitEvent('ready', (e) => e.type === 'ready')
    const url = ready.chatUrl as string
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/chat\?key=[0-9a-f]{32}$/)
    const bare = url.replace(/\?key=.*$/, '')
    expect((await fetch(bare)).status).toBe(401)
    const page = await fetch(url)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('src="/chat/app.js?key=')
    const key = new URL(url).searchParams.get('key')!
    const config = (await (await fetch(`${bare}/api/config`, {headers: {'x-bot-dev-key': key}})).json()) as {
      token?: string
      me: {username: string}
    }
    expect(config.me.username).toBe('offline_dev_bot')
    expect(config.token).toBeUndefined()
    // the inspector page links to it
    expect(await (await fetch(ready.inspectorUrl as string)).text()).toContain(
      `<a id="chat-link" class="chat-link" href="/chat?key=${key}">`,
    )
    // :w: a one-time code for /chat, exchanged for the cookie, back to /chat
    o.child.stdin!.write(':w\n')
    await waitFor(() => existsSync(argvFile) && readFileSync(argvFile, 'utf8').includes('code='), {
      what: () => `the browser to be started\nstdout: ${o.stdout()}\nstderr: ${o.stderr()}`,
    })
    const opened = readFileSync(argvFile, 'utf8').trim().split('\n').at(-1)!
    expect(opened).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/chat\?code=[0-9a-f]{32}$/)
    expect(opened).not.toContain(key)
    const first = await fetch(opened, {redirect: 'manual'})
    expect(first.status).toBe(303)
    expect(first.headers.get('location')).toBe('/chat')
    const cookie = first.headers.get('set-cookie')!.split(';')[0]
    expect((await fetch(bare, {headers: {cookie}})).status).toBe(200)
    o.child.stdin!.end()
    expect(await o.exited, o.stderr()).toBe(0)
  })
})

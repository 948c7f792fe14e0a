/**
 * `bot mcp` attached to a `bot dev` against a Bot API (the emulator stands in for Telegram; webhook mode through
 * the polling bridge, `--tunnel none`), driven by the MCP SDK's own Client over stdio: the user actions become the
 * synthetic updates `bot trigger` sends, the agent finds the broken button through the tools, and no tool result
 * carries a secret. Also: no session at all, and a bot command without --offline.
 */
import {mkdtempSync, readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {BotApiEmulator} from '../../src/emulator/index.js'
import {runCli, startCli, type RunningCli} from '../support/cli.js'
import {waitFor} from '../support/wait.js'
import {mcpProject, startMcp, type McpRun} from './helpers.js'

const RESTORE_SECRET = 'restore-secret-for-the-mcp-test-0123456789'

describe('bot mcp attached to an online `bot dev`', () => {
  const project = mcpProject()
  let emu: BotApiEmulator
  let token: string
  let dev: RunningCli
  let mcp: McpRun

  beforeAll(async () => {
    emu = await BotApiEmulator.start({timeScale: 0.01})
    token = emu.createBot({username: 'mcp_online_bot'}).token
    dev = startCli(['dev', '--api-root', emu.apiRoot, '--tunnel', 'none', '--no-watch'], {
      cwd: project.dir,
      timeoutMs: 120_000,
      env: {
        BOT_TOKEN: token,
        BOT_STATE_DIR: project.stateDir,
        FIXTURE_SECRETS: project.secretsFile,
        BOT_RESTORE_SECRET: RESTORE_SECRET,
      },
    })
    await dev.waitForOutput(/Ready/, {timeoutMs: 60_000})
    // A real user writes first: the synthetic updates then speak as them, in their chat.
    emu.sendUserMessage(token, {text: '/start', userId: 4242, firstName: 'Ada'})
    await waitFor(() => emu.sentMessages(token, {chatId: 4242}).length > 0, {what: "the bot's answer to /start"})
    mcp = await startMcp([], {cwd: project.dir, env: {BOT_TOKEN: token, BOT_STATE_DIR: project.stateDir}})
  }, 90_000)

  afterAll(async () => {
    await mcp?.close().catch(() => {})
    dev?.kill('SIGINT')
    await dev?.exited
    await emu?.stop()
  })

  it('finds the broken button through the tools: the failed call, its explanation, the stack', async () => {
    const chat = await mcp.call('read_chat')
    expect(chat.text).toContain('Chat 4242')
    expect(chat.text).toContain('[ Like ] [ Broken ]')

    const pressed = await mcp.call('press_button', {label: 'Broken'})
    expect(pressed.text).toContain('callback_query "broken"')
    expect(pressed.text).toContain('editMessageText 400 Bad Request: message is not modified')

    const calls = await mcp.call('list_calls', {failed_only: true, method: 'editMessageText'})
    expect(calls.text).toContain('✗ 400 Bad Request: message is not modified')
    expect(calls.text).toMatch(/why: editMessageText asked for the text and keyboard the message already has/)

    await waitFor(
      async () => {
        const o = await mcp.call('bot_output', {limit: 100})
        return /handler failed: GrammyError/.test(o.text) && /\bat .+:\d+/.test(o.text)
      },
      {what: 'the stack trace in bot_output'},
    )

    const liked = await mcp.call('press_button', {label: 'like'})
    expect(liked.text).toContain('You liked it')
  })

  it('sends messages and the other faked updates, lists, triggers, replays, restarts', async () => {
    const sent = await mcp.call('send_message', {text: 'hello from mcp'})
    expect(sent.text).toContain('echo: hello from mcp')
    expect(emu.sentMessages(token, {chatId: 4242}).some((c) => c.params.text === 'echo: hello from mcp')).toBe(true)

    const reacted = await mcp.call('react', {reaction: ['🔥']})
    expect(reacted.text).toContain('Nice reaction 🔥')

    const photo = await mcp.call('send_file', {path: 'cat.png'})
    expect(photo.text).toContain('Got a photo 2x2')

    const notHere = await mcp.call('choose_inline_result', {query_id: '1', result_id: 'a1'})
    expect(notHere.isError).toBe(true)
    expect(notHere.text).toContain('needs an offline session')
    expect(notHere.text).toContain('Fix:')

    const fault = await mcp.call('inject_fault', {method: 'sendMessage', error_code: 429})
    expect(fault.isError).toBe(true)
    expect(fault.text).toContain('runs against Telegram')

    const script = await mcp.call('run_chat_script', {text: 'steps:\n  - user: hi\n  - bot: hi\n'})
    expect(script.isError).toBe(true)
    expect(script.text).toContain('plays against the emulator')

    const updates = await mcp.call('list_updates')
    expect(updates.text).toContain('(trigger)')
    const id = Number(/#(\d+) /.exec(updates.text)?.[1])
    expect((await mcp.call('get_update', {update_id: id})).text).toContain(`"updateId": ${id}`)

    expect((await mcp.call('trigger', {type: 'message', set: {text: '/poll'}})).text).toContain('Tea or coffee?')
    expect((await mcp.call('replay', {})).text).toContain('replay of #')
    expect((await mcp.call('restart_bot')).text).toMatch(/✓ The bot restarted/)
    expect((await mcp.call('send_message', {text: 'again'})).text).toContain('echo: again')

    const status = await mcp.client.readResource({uri: 'bot://session/status'})
    const text = (status.contents[0] as {text: string}).text
    expect(text).toContain('Online session')
    expect(text).toContain('webhook mode')
  })

  it('shows no secret in any tool result', async () => {
    const secrets = JSON.parse(readFileSync(project.secretsFile, 'utf8')) as {
      token: string
      secret: string
      path: string
    }
    const inspectorKey = /[?&]key=([0-9a-f]{16,})/.exec(dev.stdout() + dev.stderr())?.[1]
    expect(inspectorKey).toBeDefined()
    const scanned = [token, token.split(':')[1], secrets.secret, secrets.path, inspectorKey!, RESTORE_SECRET]
    expect(scanned.every((s) => s.length >= 8)).toBe(true)
    mcp.results.push((await mcp.call('bot_output', {limit: 500})).text)
    mcp.results.push((await mcp.call('list_calls', {limit: 1000})).text)
    mcp.results.push((await mcp.call('list_updates', {limit: 1000})).text)
    const all = mcp.results.join('\n')
    expect(all).toContain('starting with token')
    for (const secret of scanned) expect(all.includes(secret), 'a secret in a tool result').toBe(false)
    expect(mcp.transportErrors).toEqual([])
  })
})

describe('bot mcp without a session', () => {
  it('answers every tool with one line saying how to start one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bot-mcp-none-'))
    const mcp = await startMcp([], {cwd: dir, env: {BOT_STATE_DIR: join(dir, 'state')}})
    try {
      for (const [name, args] of [
        ['send_message', {text: 'hi'}],
        ['list_calls', {}],
        ['bot_output', {}],
      ] as const) {
        const r = await mcp.call(name, args)
        expect(r.isError).toBe(true)
        expect(r.text.split('\n')).toHaveLength(1)
        expect(r.text).toContain('bot dev --offline')
        expect(r.text).toContain('bot mcp --offline')
      }
      expect(mcp.transportErrors).toEqual([])
    } finally {
      await mcp.close()
    }
  })

  it('refuses a bot command without --offline (exit 2, one line)', async () => {
    const r = await runCli(['mcp', '--', 'node', 'bot.js'])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toContain('only goes with --offline')
  })
})

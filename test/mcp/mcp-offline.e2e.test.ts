/**
 * `bot mcp --offline` driven by the MCP SDK's own Client over stdio: it starts `bot dev --offline` with a real
 * grammY bot (test/fixtures/bots/mcp-bot.mjs) in the background, and every tool is called against it. One test
 * plays an agent that finds a bug only through the tools; every tool result is scanned for the session's secrets.
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {isPidAlive} from '../../src/session-store/processes.js'
import {waitFor} from '../support/wait.js'
import {mcpProject, startMcp, type McpRun} from './helpers.js'

const project = mcpProject()
// Written before the session starts (its watcher would restart the bot for a new file).
writeFileSync(
  join(project.dir, 'start.chat.yml'),
  'steps:\n  - user: /start\n  - bot: {text: "Hi! Pick one", buttons: [[Like, Broken]]}\n  - press: Like\n  - bot: {edit: You liked it}\n',
)
let mcp: McpRun
let devPid: number | undefined

/** The number after `bot #` in the newest line that has `text`. */
function messageIdOf(text: string, needle: string): number {
  const line = text
    .split('\n')
    .reverse()
    .find((l) => l.includes(needle))
  const id = /bot #(\d+)/.exec(line ?? '')?.[1]
  if (!id) throw new Error(`no message id for "${needle}" in:\n${text}`)
  return Number(id)
}

beforeAll(async () => {
  mcp = await startMcp(['--offline'], {
    cwd: project.dir,
    env: {BOT_STATE_DIR: project.stateDir, FIXTURE_SECRETS: project.secretsFile},
  })
}, 60_000)

afterAll(async () => {
  await mcp?.close().catch(() => {})
})

describe('bot mcp --offline', () => {
  it('lists every tool by its exact name, and the docs and status resources', async () => {
    const {tools} = await mcp.client.listTools()
    const names = tools.map((t) => t.name)
    for (const name of [
      'send_message',
      'press_button',
      'send_file',
      'pay_invoice',
      'vote_poll',
      'inline_query',
      'choose_inline_result',
      'react',
      'block_bot',
      'join_chat',
      'read_chat',
      'list_updates',
      'get_update',
      'list_calls',
      'trigger',
      'replay',
      'restart_bot',
      'bot_output',
      'inject_fault',
      'run_chat_script',
    ])
      expect(names).toContain(name)
    expect(names).not.toContain('send_media')
    const press = tools.find((t) => t.name === 'press_button')!
    expect(Object.keys(press.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['label', 'data', 'message_id', 'chat_id']),
    )
    const {resources} = await mcp.client.listResources()
    const uris = resources.map((r) => r.uri)
    expect(uris).toContain('bot://session/status')
    expect(uris).toContain('bot://docs/trigger.md')
    const doc = await mcp.client.readResource({uri: 'bot://docs/emulator.md'})
    expect((doc.contents[0] as {text: string}).text).toContain('# ')
  })

  it('plays an agent that finds the broken button only through the tools', async () => {
    const start = await mcp.call('send_message', {text: '/start'})
    expect(start.isError).toBe(false)
    expect(start.text).toMatch(/bot #\d+ › Hi! Pick one/)
    expect(start.text).toContain('[ Like ]')

    const chat = await mcp.call('read_chat')
    expect(chat.text).toContain('you')
    expect(chat.text).toContain('/start')
    expect(chat.text).toContain('[ Broken ]')

    const pressed = await mcp.call('press_button', {label: 'Broken'})
    expect(pressed.isError).toBe(false)
    expect(pressed.text).toContain('editMessageText 400 Bad Request: message is not modified')

    const calls = await mcp.call('list_calls', {failed_only: true})
    expect(calls.text).toContain('editMessageText ✗ 400 Bad Request: message is not modified')
    expect(calls.text).toMatch(/why: .+/)

    const output = await waitFor(
      async () => {
        const o = await mcp.call('bot_output', {limit: 100})
        return /handler failed: GrammyError: Call to 'editMessageText' failed!/.test(o.text) &&
          /\bat .+\.m?js:\d+/.test(o.text)
          ? o.text
          : undefined
      },
      {what: "the bot's stack trace in bot_output"},
    )
    expect(output).toContain('message is not modified')

    // The working button, pressed by its callback_data, edits the message.
    const liked = await mcp.call('press_button', {data: 'like'})
    expect(liked.text).toContain('You liked it')
    expect(liked.text).toContain('(notification) Thanks!')
  })

  it('runs the other user actions of the table', async () => {
    const photo = await mcp.call('send_file', {path: 'cat.png', caption: 'a cat'})
    expect(photo.text).toContain('Got a photo 2x2')
    const doc = await mcp.call('send_file', {path: 'package.json'})
    expect(doc.text).toContain('Got package.json')

    await mcp.call('send_message', {text: '/poll'})
    const vote = await mcp.call('vote_poll', {option_ids: [1]})
    expect(vote.text).toContain('You voted 1')

    await mcp.call('send_message', {text: '/buy'})
    const paid = await mcp.call('pay_invoice', {})
    expect(paid.isError).toBe(false)
    expect(paid.text).toContain('"status": "paid"')

    const inline = await mcp.call('inline_query', {query: 'cats'})
    expect(inline.text).toContain('inline_query')
    const queryId = /"id": "(\d+)"/.exec(inline.text)?.[1]
    expect(queryId).toBeDefined()
    const chosen = await mcp.call('choose_inline_result', {query_id: queryId, result_id: 'a1'})
    expect(chosen.isError).toBe(false)

    const reacted = await mcp.call('react', {reaction: ['🔥']})
    expect(reacted.text).toContain('Nice reaction 🔥')

    // Every other action of the table is reachable: it runs, or answers the emulator's reason with a fix.
    const tools = (await mcp.client.listTools()).tools.map((t) => t.name)
    const inputs: Record<string, Record<string, unknown>> = {
      renew_subscription: {charge_id: 'none'},
      buy_paid_media: {},
      set_member_status: {chat_id: -100123, user_id: 42, status: 'member'},
      join_chat: {chat_id: -100123},
      leave_chat: {chat_id: -100123},
      request_join: {chat_id: -100123},
      set_bot_status: {chat_id: -100123, status: 'administrator'},
      block_bot: {chat_id: 1111},
      unblock_bot: {chat_id: 1111},
      connect_business: {},
      edit_business_connection: {connection_id: 'x'},
      send_business_message: {connection_id: 'x', text: 'hi'},
      edit_business_message: {connection_id: 'x', message_id: 1, text: 'hi'},
      delete_business_messages: {connection_id: 'x', message_ids: [1]},
      boost_chat: {chat_id: -100123},
      remove_chat_boost: {chat_id: -100123, boost_id: 'x'},
      send_web_app_data: {data: '{}'},
      open_web_app_query: {},
      launch_web_app: {},
      summon_guest: {chat_id: -100123, text: 'hi'},
      widget_query: {data: 'tap'},
      shared_widget_query: {},
      update_subscription: {state: 'canceled'},
      stop_generation: {draft_id: 1},
    }
    for (const [name, args] of Object.entries(inputs)) {
      if (!tools.includes(name)) continue
      const r = await mcp.call(name, args)
      expect(r.text.length, name).toBeGreaterThan(0)
      // A refusal is the emulator's reason or the schema's, never a crash of the server.
      if (r.isError) expect(r.text, name).not.toMatch(/^Failed: /)
    }
  })

  it('lists and reads updates, triggers, replays, injects a fault, restarts the bot', async () => {
    const updates = await mcp.call('list_updates', {limit: 5})
    const id = Number(/#(\d+) /.exec(updates.text)?.[1])
    expect(id).toBeGreaterThan(0)
    const one = await mcp.call('get_update', {update_id: id})
    expect(one.text).toContain(`"updateId": ${id}`)
    const missing = await mcp.call('get_update', {update_id: 999_999_999})
    expect(missing.isError).toBe(true)
    expect(missing.text).toContain('Fix:')

    const triggered = await mcp.call('trigger', {type: 'message', set: {text: 'from trigger'}})
    expect(triggered.text).toContain('echo: from trigger')
    const edited = await mcp.call('trigger', {type: 'edited-message', set: {text: 'changed'}})
    expect(edited.isError).toBe(false)
    const badType = await mcp.call('trigger', {type: 'nonsense'})
    expect(badType.isError).toBe(true)
    expect(badType.text).toContain('Fix:')

    const replayed = await mcp.call('replay', {})
    expect(replayed.text).toContain('replay of #')

    const fault = await mcp.call('inject_fault', {method: 'sendMessage', error_code: 429, retry_after: 3})
    expect(fault.text).toContain('429 Too Many Requests: retry after 3')
    const flooded = await mcp.call('send_message', {text: 'hello'})
    expect(flooded.text).toContain('sendMessage 429 Too Many Requests: retry after 3')
    const badFault = await mcp.call('inject_fault', {method: 'send message', error_code: 429})
    expect(badFault.isError).toBe(true)

    const restarted = await mcp.call('restart_bot')
    expect(restarted.text).toMatch(/✓ The bot restarted \(pid \d+\)/)
    const after = await mcp.call('send_message', {text: 'after restart'})
    expect(after.text).toContain('echo: after restart')

    const status = await mcp.client.readResource({uri: 'bot://session/status'})
    const text = (status.contents[0] as {text: string}).text
    expect(text).toContain('Offline session')
    expect(text).toContain('"restarts": 1')
    devPid = Number(/"pid": (\d+)/.exec(text)?.[1])
    expect(devPid).toBeGreaterThan(0)

    // Schema errors are tool errors too.
    const bad = await mcp.call('send_message', {txt: 'typo'})
    expect(bad.isError).toBe(true)
    const both = await mcp.call('press_button', {label: 'Like', data: 'like'})
    expect(both.isError).toBe(true)
    expect(both.text).toContain('exactly one of label and data')
  })

  it('plays chat scripts and reports them as `bot test` does', async () => {
    const passed = await mcp.call('run_chat_script', {path: 'start.chat.yml'})
    expect(passed.isError).toBe(false)
    expect(passed.text).toMatch(/^✓ start\.chat\.yml {2}4 steps {2}\d+ ms$/)

    const failed = await mcp.call('run_chat_script', {text: 'steps:\n  - user: hello\n  - bot: goodbye\n'})
    expect(failed.isError).toBe(false)
    expect(failed.text).toMatch(/^✗ <text> {2}2 steps {2}\d+ ms\n {2}<text>:3 {2}bot: /)
    expect(failed.text).toContain('echo: hello')
    // The bot's output while it ran, as `bot test` shows it.
    expect(failed.text).toContain("the bot's output while it ran")

    const unreadable = await mcp.call('run_chat_script', {text: 'steps: 3\n'})
    expect(unreadable.isError).toBe(true)
    expect(unreadable.text).toMatch(/<text>:1:\d+: .+\nFix: .+/)
    const neither = await mcp.call('run_chat_script', {})
    expect(neither.isError).toBe(true)
    expect(neither.text).toContain('exactly one of path and text')
  })

  it('shows no secret in any tool result, and wrote nothing but the protocol to stdout', async () => {
    const secrets = JSON.parse(readFileSync(project.secretsFile, 'utf8')) as {
      token: string
      secret: string
      path: string
    }
    const inspectorKey = /[?&]key=([0-9a-f]{16,})/.exec(mcp.stderr())?.[1]
    expect(inspectorKey).toBeDefined()
    const scanned = [secrets.token, secrets.token.split(':')[1], secrets.secret, secrets.path, inspectorKey!].filter(
      (s) => s.length >= 8,
    )
    expect(scanned.length).toBeGreaterThanOrEqual(4)
    const all = mcp.results.join('\n')
    for (const secret of scanned) expect(all.includes(secret), `a secret in a tool result`).toBe(false)
    // The bot printed them: bot_output shows the line with them blanked.
    const output = await mcp.call('bot_output', {limit: 500})
    expect(output.text).toContain('starting with token')
    for (const secret of scanned) expect(output.text.includes(secret)).toBe(false)
    expect(mcp.transportErrors).toEqual([])
  })

  it('stops the `bot dev --offline` it started when the client goes away', async () => {
    expect(devPid).toBeGreaterThan(0)
    await mcp.close()
    await waitFor(() => !isPidAlive(devPid!), {what: 'the background bot dev to exit'})
  })
})

describe('bot mcp --offline on SIGTERM', () => {
  it('stops its `bot dev --offline` and exits', async () => {
    const other = mcpProject()
    const run = await startMcp(['--offline'], {cwd: other.dir, env: {BOT_STATE_DIR: other.stateDir}})
    try {
      const status = await run.client.readResource({uri: 'bot://session/status'})
      const pid = Number(/"pid": (\d+)/.exec((status.contents[0] as {text: string}).text)?.[1])
      expect(pid).toBeGreaterThan(0)
      expect(run.pid).toBeGreaterThan(0)
      process.kill(run.pid!, 'SIGTERM')
      await waitFor(() => !isPidAlive(pid) && !isPidAlive(run.pid!), {what: 'bot mcp and its bot dev to exit'})
      expect(run.stderr()).toContain('bot dev --offline ended')
    } finally {
      await run.close().catch(() => {})
    }
  })
})

/**
 * `bot trigger TYPE` against a real `bot dev --offline` session: each trigger is the emulator user's
 * action (its state stays right: the bot's approveChatJoinRequest, refundStarPayment and business
 * replies work against it), observed in what the real grammY bot (test/fixtures/bots/trigger-bot.mjs)
 * did; `payment` runs the emulator's whole flow, paid and refused. Issue 23 item 7, offline.
 */
import type {ChildProcess} from 'node:child_process'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {DEFAULT_PHOTO} from '../../src/control/image.js'
import type {TriggerResult} from '../../src/control/protocol.js'
import {recordLines, startOfflineSession, type OfflineSession} from '../inspector/offline-helpers.js'
import {parseJsonOutput} from '../support/cli.js'
import {waitFor} from '../support/wait.js'

const ALLOWED = [
  'message',
  'edited_message',
  'callback_query',
  'inline_query',
  'poll_answer',
  'message_reaction',
  'chat_join_request',
  'chat_member',
  'my_chat_member',
  'business_connection',
  'business_message',
  'pre_checkout_query',
  'subscription',
  'widget_query',
  'shared_widget_query',
  'stopped_message_generation',
].join(',')

describe('bot trigger TYPE in an offline session (grammY bot, webhook over loopback)', () => {
  const running: ChildProcess[] = []
  let s: OfflineSession
  const lines = () => recordLines(s.record)
  const waitLine = (pattern: RegExp, what: string) =>
    waitFor(() => lines().find((l) => pattern.test(l)), {
      what: () => `${what}\n${lines().join('\n')}\n${s.stderr()}`,
      timeout: 15_000,
    })
  const trigger = async (args: string[], code = 0) => {
    const r = await s.control(['trigger', ...args])
    expect(r.code, `bot trigger ${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(code)
    return r
  }

  beforeAll(async () => {
    s = startOfflineSession(['--json', '--allowed-updates', ALLOWED], running, {
      prefix: 'trig-offline-',
      bot: 'trigger-bot.mjs',
      killAfterMs: 170_000,
    })
    await s.waitEvent('ready', (e) => e.type === 'ready')
  }, 60_000)

  afterAll(async () => {
    s.child.stdin!.end()
    expect(await s.exited).toBe(0)
  }, 30_000)

  it('message and callback default to you; callback finds the button without --message-id', async () => {
    await trigger(['message', '/ask'])
    const r = await trigger(['callback', 'like:no', '--json'])
    const entry = parseJsonOutput<TriggerResult>(r)
    expect((entry.update as any).callback_query).toMatchObject({from: {id: 1111}, data: 'like:no'})
    const pressed = (entry.update as any).callback_query.message.message_id
    await waitLine(new RegExp(`^callback like:no ${pressed}$`), 'the press')
  })

  it('photo, reaction, edited-message, inline, poll-answer, web-app-data', async () => {
    await trigger(['photo'])
    await waitLine(new RegExp(`^photo 2x2 200 ${DEFAULT_PHOTO.length}$`), 'the photo downloaded through the api proxy')
    await trigger(['reaction', '❤'])
    await waitLine(/^reaction ❤ \d+$/, 'the reaction (the emulator honours allowed_updates)')
    await trigger(['message', 'first words'])
    await trigger(['edited-message', 'better words'])
    await waitLine(/^edited \d+ better words$/, 'the edit')
    await trigger(['inline', 'tea'])
    await waitLine(/^inline tea answered$/, 'the inline query')
    await trigger(['poll-answer'])
    await waitLine(/^poll \S+ 0$/, 'the vote')
    await trigger(['web-app-data', 'order-7'])
    await waitLine(/^web-app order-7$/, 'the Mini App data')
  }, 90_000)

  it('subscription, widget-query, stopped-generation (Bot API 10.2-10.4): the bot answers the widget query', async () => {
    await trigger(['subscription', 'failed'])
    await waitLine(/^subscription failed bot-trigger-subscription$/, 'the subscription update')
    await trigger(['widget-query', 'ping'])
    await waitLine(/^widget ping answered$/, 'the widget query answered (the emulator knew its id)')
    await trigger(['shared-widget-query', 'vote', '--set', 'widget_id=w9'])
    await waitLine(/^shared widget w9 vote answered$/, 'the shared widget query answered (the emulator knew its id)')
    await trigger(['stopped-generation', '7'])
    await waitLine(/^stopped 7$/, 'the stopped generation')
    expect(lines()).not.toContainEqual(expect.stringMatching(/^error /))
  })

  it('join-request and member joined: the emulator keeps the request, so the approval works', async () => {
    await trigger(['join-request', '--chat', '-1009876543210'])
    await waitLine(/^join-request -1009876543210 approved$/, 'the approval')
    expect(lines()).not.toContainEqual(expect.stringMatching(/^error /))
    const r = await trigger(['member', 'joined', '--chat', '-1005555555555', '--user', '77', '--json'])
    const result = parseJsonOutput<TriggerResult>(r)
    expect(result.flow?.entries.map((e) => e.type)).toEqual(['chat_member', 'message'])
    expect((result.flow!.entries[1].update as any).message.new_chat_members).toEqual([
      expect.objectContaining({id: 77}),
    ])
    await waitLine(/^member member$/, 'the chat_member update')
    await trigger(['member', 'blocked'])
    await waitLine(/^my-member kicked$/, 'the block')
    await trigger(['member', 'unblocked'])
    await waitLine(/^my-member member$/, 'the unblock')
  }, 90_000)

  it('business-message: a connection is made first, and the bot can answer through it', async () => {
    const r = await trigger(['business-message', 'Is it open?'])
    expect(r.stdout).toMatch(/^✓ update #\d+ business_connection delivered/m)
    expect(r.stdout).toMatch(/^✓ update #\d+ business_message "Is it open\?" delivered/m)
    expect(r.stdout).not.toContain('↳')
    await waitLine(/^business Is it open\?$/, 'the business message')
    // The second one uses the same connection (the session saw it).
    const again = await trigger(['business-message', 'Hello?'])
    expect(again.stdout).not.toContain('business_connection')
  })

  it("payment pays the bot's invoice through the emulator; a refund then works; a refused one exits 1", async () => {
    await trigger(['message', '/buy'])
    await waitLine(/^invoice premium$/, 'the invoice')
    const r = await trigger(['payment', '--json'])
    const result = parseJsonOutput<TriggerResult>(r)
    expect(result.flow).toMatchObject({kind: 'payment', status: 'paid', ok: true})
    expect(result.flow!.entries.map((e) => e.type)).toEqual(['pre_checkout_query', 'message'])
    const charge = result.flow!.chargeId!
    await waitLine(new RegExp(`^paid ${charge} 5 XTR premium$`), 'the payment')
    await trigger(['message', '/refund'])
    await waitLine(new RegExp(`^refund ${charge} ok$`), 'the refund (the emulator knows the charge)')
    await trigger(['message', '/buy refuse'])
    await waitLine(/^invoice refuse$/, 'the second invoice')
    const refused = await trigger(['payment'], 1)
    expect(refused.stdout.trimEnd().split('\n').at(-1)).toBe(
      '✗ payment of 5 XTR refused by the bot (answerPreCheckoutQuery ok: false): "Sold out"',
    )
    // Values of its own (no such invoice in the chat): an invoice link made for the bot, paid.
    const own = await trigger(['payment', '--set', 'total_amount=12', '--set', 'invoice_payload=gift', '--json'])
    expect(parseJsonOutput<TriggerResult>(own).flow).toMatchObject({status: 'paid'})
    await waitLine(/^paid stx\S+ 12 XTR gift$/, 'the payment of the link')
  }, 90_000)
})

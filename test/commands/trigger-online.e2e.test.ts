/**
 * `bot trigger` against a real webhook-mode `bot dev` session (the emulator as the api root, the
 * loopback localtunnel server), a real grammY bot (test/fixtures/bots/trigger-bot.mjs), and the
 * real `bot trigger` processes:
 * - issue 21 item 6: before any real update `bot trigger message` refuses (no made-up chat); then it
 *   speaks as the last real user in the last real chat;
 * - issue 21 item 7: `bot trigger callback DATA` presses the newest message with that button; the
 *   bot's answerCallbackQuery is answered by the api proxy (the emulator never sees it); the calls
 *   carry their result (the message_id a send returned);
 * - issue 23 item 7: the fixture types, each observed in what the bot did; `payment` with the
 *   proxy answering answerPreCheckoutQuery locally, then a refund of the made-up charge.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {DEFAULT_PHOTO} from '../../src/control/image.js'
import type {TriggerResult} from '../../src/control/protocol.js'
import {parseJsonOutput, runCli} from '../support/cli.js'
import {waitFor} from '../support/wait.js'
import {assertNoToken, devWorld, startDev, type DevWorld, type RunningCli} from '../dev/helpers.js'

describe('bot trigger against a webhook-mode session (grammY bot)', () => {
  let world: DevWorld
  let dev: RunningCli
  const trigger = (args: string[]) =>
    runCli(['trigger', ...args], {
      cwd: world.dir,
      env: {BOT_TOKEN: world.token, BOT_STATE_DIR: world.stateDir},
      timeoutMs: 90_000,
    })
  const lines = () => world.recordedLines()
  const waitLine = (pattern: RegExp, what: string) =>
    waitFor(() => lines().find((l) => pattern.test(l)), {what: () => `${what}\n${lines().join('\n')}`, timeout: 15_000})

  beforeAll(async () => {
    world = await devWorld()
    dev = startDev(world, {bot: 'trigger-bot.mjs', args: ['--no-watch', '--json'], timeoutMs: 240_000})
    await dev.waitForOutput(/"type":"ready"/, {timeoutMs: 45_000})
  }, 60_000)

  afterAll(async () => {
    dev?.kill('SIGINT')
    if (dev) assertNoToken(await dev.exited, world.token)
    await world?.close()
  }, 30_000)

  it('refuses a message before the session has seen a chat: exit 1, one line and the fix, nothing delivered', async () => {
    const r = await trigger(['message', 'hi'])
    expect(r.code).toBe(1)
    expect(r.stderr).toBe(
      '✗ This session has not seen a chat yet, so `bot trigger` does not know whom to speak as.\n' +
        '  Send the bot a message from Telegram first (triggers then speak as that user in that chat), or pass --chat ID (and --user ID).\n',
    )
    expect(lines()).toEqual([])
    const callback = await trigger(['callback', 'like:yes'])
    expect(callback.code).toBe(1)
    expect(callback.stderr).toContain('has not seen a chat yet')
  })

  it('then speaks as the last real user, in their chat', async () => {
    world.emu.sendUserMessage(world.token, {text: '/ask', userId: 4242, firstName: 'Ada', username: 'ada'})
    await waitFor(() => world.emu.sentMessages(world.token, {chatId: 4242}).some((c) => c.method === 'sendMessage'), {
      what: 'the keyboard of /ask',
    })
    const r = await trigger(['message', 'hello there', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const entry = parseJsonOutput<TriggerResult>(r)
    expect((entry.update as any).message).toMatchObject({
      from: {id: 4242, first_name: 'Ada', username: 'ada'},
      chat: {id: 4242, type: 'private', first_name: 'Ada'},
      text: 'hello there',
    })
    await waitLine(/^text 4242 Ada hello there$/, 'the bot handling the trigger')
    // The reply went to Ada's chat (a chat the emulator knows), and its result is in the entry.
    const reply = entry.calls.find((c) => c.method === 'sendMessage')!
    expect(reply).toMatchObject({ok: true, result: {chat: {id: 4242, type: 'private'}}})
    expect(typeof (reply.result as any).message_id).toBe('number')
  })

  it('callback without --message-id presses the newest message with that button; answerCallbackQuery is answered by the api proxy', async () => {
    const keyboard = world.emu
      .sentMessages(world.token, {chatId: 4242})
      .find((c) => c.method === 'sendMessage' && (c.result as any)?.reply_markup) as {result: any}
    const r = await trigger(['callback', 'like:yes', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const entry = parseJsonOutput<TriggerResult>(r)
    expect((entry.update as any).callback_query).toMatchObject({
      from: {id: 4242, first_name: 'Ada'},
      data: 'like:yes',
      message: {
        message_id: keyboard.result.message_id,
        text: 'Do you like it?',
        reply_markup: keyboard.result.reply_markup,
      },
    })
    expect(entry.calls.map((c) => [c.method, c.ok, c.answeredLocally ?? false])).toEqual([
      ['answerCallbackQuery', true, true],
      ['editMessageText', true, false],
    ])
    expect(entry.calls[1].result).toMatchObject({message_id: keyboard.result.message_id})
    await waitLine(new RegExp(`^callback like:yes ${keyboard.result.message_id}$`), 'the whole handler ran')
    // Telegram (the emulator) never heard of the made-up query.
    expect(world.emu.calls(world.token).filter((c) => c.method === 'answerCallbackQuery')).toEqual([])
    // The edit took the keyboard away: no button is left to press.
    const none = await trigger(['callback', 'like:no'])
    expect(none.code).toBe(1)
    expect(none.stderr).toContain('No message of the bot in chat 4242 has a button with callback_data "like:no"')
  })

  it('photo: the bot getFile()s and downloads the image through the api proxy', async () => {
    const file = join(world.dir, 'tiny.png')
    writeFileSync(file, DEFAULT_PHOTO)
    const r = await trigger(['photo', file, '--set', 'caption=look'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^✓ update #\d+ message "look" delivered → 200/)
    await waitLine(new RegExp(`^photo 2x2 200 ${DEFAULT_PHOTO.length} look$`), 'the bot downloading the photo')
  })

  it('edited-message, inline, reaction, poll-answer, member, join-request, web-app-data reach the bot', async () => {
    const run = async (args: string[]) => {
      const r = await trigger(args)
      expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(0)
      return r
    }
    await run(['edited-message'])
    await waitLine(/^edited \d+ hello there \(edited\)$/, 'the edit')
    await run(['inline', 'pizza'])
    await waitLine(/^inline pizza answered$/, 'the inline query answered')
    expect(world.emu.calls(world.token).filter((c) => c.method === 'answerInlineQuery')).toEqual([])
    await run(['reaction', '🔥'])
    await waitLine(/^reaction 🔥 \d+$/, 'the reaction')
    await run(['poll-answer', '1'])
    await waitLine(/^poll 5123456789012345678 1$/, 'the vote')
    await run(['member', 'joined', '--chat', '-1001234567890'])
    await waitLine(/^member member$/, 'the join')
    await run(['member', 'blocked'])
    await waitLine(/^my-member kicked$/, 'the block')
    await run(['join-request', '--chat', '-1001234567890'])
    await waitLine(/^join-request -1001234567890 approved$/, 'the approval (answered by the api proxy)')
    await run(['web-app-data', '{"order":1}'])
    await waitLine(/^web-app \{"order":1\}$/, 'the Mini App data')
  }, 120_000)

  it('payment: pre-checkout answered locally, successful_payment, then a refund of the made-up charge', async () => {
    world.emu.sendUserMessage(world.token, {text: '/buy', userId: 4242, firstName: 'Ada', username: 'ada'})
    await waitLine(/^invoice premium$/, 'the invoice')
    const r = await trigger(['payment', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const result = parseJsonOutput<TriggerResult>(r)
    expect(result.flow).toMatchObject({kind: 'payment', status: 'paid', ok: true})
    expect(result.flow!.entries.map((e) => e.type)).toEqual(['pre_checkout_query', 'message'])
    const query = (result.flow!.entries[0].update as any).pre_checkout_query
    expect(query).toMatchObject({from: {id: 4242}, currency: 'XTR', total_amount: 5, invoice_payload: 'premium'})
    expect(result.flow!.entries[0].calls).toEqual([
      expect.objectContaining({method: 'answerPreCheckoutQuery', ok: true, answeredLocally: true}),
    ])
    const charge = result.flow!.chargeId!
    expect(charge).toMatch(/^stx/)
    expect((result.update as any).message.successful_payment).toMatchObject({
      currency: 'XTR',
      total_amount: 5,
      invoice_payload: 'premium',
      telegram_payment_charge_id: charge,
      provider_payment_charge_id: '',
    })
    await waitLine(new RegExp(`^paid ${charge} 5 XTR premium$`), 'the payment handled')
    expect(world.emu.calls(world.token).some((c) => c.method === 'answerPreCheckoutQuery')).toBe(false)
    // The text form: one line per update, then the outcome.
    const text = await trigger(['payment'])
    expect(text.code, text.stderr).toBe(0)
    const out = text.stdout.trimEnd().split('\n')
    expect(out[0]).toMatch(/^✓ update #\d+ pre_checkout_query delivered → 200 in \d+ ms$/)
    expect(out[1]).toMatch(/^✓ update #\d+ message delivered → 200 in \d+ ms$/)
    expect(out[2]).toMatch(
      /^✓ payment of 5 XTR paid: the bot accepted the pre-checkout query, successful_payment delivered \(charge stx\S+\)$/,
    )
    // /refund refunds the last (made-up) charge: the api proxy answers it, not Telegram.
    world.emu.sendUserMessage(world.token, {text: '/refund', userId: 4242, firstName: 'Ada'})
    await waitLine(/^refund stx\S+ ok$/, 'the refund')
    expect(world.emu.calls(world.token).some((c) => c.method === 'refundStarPayment')).toBe(false)
    // The inspector shows each purchase as one thread: the /buy that sent the invoice,
    // the pre-checkout query (answered locally), the payment; the second purchase then its refund.
    const ready = JSON.parse(
      dev
        .stdout()
        .split('\n')
        .find((l) => l.includes('"type":"ready"'))!,
    ) as {inspectorUrl: string}
    const inspector = new URL(ready.inspectorUrl)
    const thread = async (id: string) => {
      const res = await fetch(`${inspector.origin}/api/threads/${id}${inspector.search}`)
      return ((await res.json()) as {entries: Array<{type: string; thread: {step: string}; tags: string[]}>}).entries
    }
    const first = result.flow!.entries[0] as unknown as {thread: {id: string}}
    await waitFor(async () => (await thread(first.thread.id)).length === 3, {what: 'the first purchase thread'})
    expect((await thread(first.thread.id)).map((e) => [e.type, e.thread.step])).toEqual([
      ['message', 'invoice'],
      ['pre_checkout_query', 'pre_checkout'],
      ['message', 'payment'],
    ])
    const secondId = (
      JSON.parse(
        await fetch(`${inspector.origin}/api/updates${inspector.search}&tag=payment`).then((r) => r.text()),
      ) as Array<{thread?: {id: string; step: string}}>
    ).find((e) => e.thread?.step === 'refund')!.thread!.id
    await waitFor(async () => (await thread(secondId)).length === 3, {what: 'the second purchase and its refund'})
    expect((await thread(secondId)).map((e) => e.thread.step)).toEqual(['pre_checkout', 'payment', 'refund'])
  }, 90_000)

  it('payment refused by the bot: exit 1 with its error_message', async () => {
    const r = await trigger(['payment', '--set', 'invoice_payload=refuse'])
    expect(r.code).toBe(1)
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe(
      '✗ payment of 5 XTR refused by the bot (answerPreCheckoutQuery ok: false): "Sold out"',
    )
    await waitLine(/^pre-checkout refuse refused$/, 'the refusal')
    expect(lines().filter((l) => l.startsWith('paid '))).toHaveLength(2)
  })
})

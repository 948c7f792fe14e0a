/** The pure readings of the facts: integer/boolean parameters, allowed_updates, webhook URLs and addresses, commands. */
import {describe, expect, it} from 'vitest'
import {toBool, toInt} from '../../src/emulator/http/params.js'
import {
  allowedUpdatesList,
  commandEntities,
  parseAllowedUpdates,
  webhookQueueOf,
} from '../../src/emulator/state/updates.js'
import {isReservedIpv4, parseWebhookUrl} from '../../src/emulator/methods/webhook-config.js'

describe('parameter readings', () => {
  // td::to_integer<int32> (tdutils/td/utils/misc.h): nothing is skipped before the digits, and it wraps (two's complement)
  it('toInt: empty → default, leading digits, clamped, wrapping as td::to_integer', () => {
    expect(toInt(undefined, 100, 1, 100)).toBe(100)
    expect(toInt('', 100, 1, 100)).toBe(100)
    expect(toInt('12abc', 100, 1, 100)).toBe(12)
    expect(toInt('abc', 100, 1, 100)).toBe(1) // 0, clamped
    expect(toInt('-7', 0, -50, 50)).toBe(-7)
    expect(toInt(' -7', 0, -50, 50)).toBe(0)
    expect(toInt('99999999999999999999', 0, -(2 ** 31), 2 ** 31 - 1)).toBe(1661992959)
  })

  it('toBool: true, yes, 1 in any case with spaces', () => {
    expect(['true', 'YES', ' 1 ', 'True'].map(toBool)).toEqual([true, true, true, true])
    expect(['false', 'no', '0', '', 'on', undefined].map(toBool)).toEqual([false, false, false, false, false, false])
  })
})

describe('allowed_updates', () => {
  it('keeps the setting for missing or invalid values; [] or unknown names mean the default', () => {
    expect(parseAllowedUpdates(undefined)).toBeUndefined()
    expect(parseAllowedUpdates('{')).toBeUndefined()
    expect(parseAllowedUpdates('"message"')).toBeUndefined()
    expect(parseAllowedUpdates('["message", 1]')).toBeUndefined()
    expect(allowedUpdatesList(parseAllowedUpdates('[]')!)).toBeUndefined()
    expect(allowedUpdatesList(parseAllowedUpdates('["nope"]')!)).toBeUndefined()
    expect(allowedUpdatesList(parseAllowedUpdates('["Chat_Member","message"]')!)).toEqual(['message', 'chat_member'])
  })
})

describe('webhook target', () => {
  it('parses URLs with https as the default scheme; only http and https', () => {
    expect(parseWebhookUrl('example.org/hook')?.href).toBe('https://example.org/hook')
    expect(parseWebhookUrl('http://127.0.0.1:3000/x')?.port).toBe('3000')
    expect(parseWebhookUrl('ftp://example.org')).toBeUndefined()
    expect(parseWebhookUrl('https://')).toBeUndefined()
  })

  it('knows the reserved IPv4 ranges', () => {
    for (const ip of [
      '0.0.0.0',
      '10.2.3.4',
      '100.64.0.1',
      '127.0.0.1',
      '169.254.1.1',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '198.18.0.1',
      '224.0.0.1',
      '255.255.255.255',
    ])
      expect(isReservedIpv4(ip), ip).toBe(true)
    for (const ip of ['149.154.167.220', '91.108.4.1', '172.32.0.1', '8.8.8.8', '100.128.0.1'])
      expect(isReservedIpv4(ip), ip).toBe(false)
  })
})

describe('updates: their webhook queue and shape', () => {
  it('queues messages by chat, callback queries by user, anything else alone', () => {
    expect(webhookQueueOf({update_id: 1, message: {chat: {id: -5}, from: {id: 9}}})).toBe('chat:-5')
    expect(webhookQueueOf({update_id: 1, callback_query: {from: {id: 9}, message: {chat: {id: 1}}}})).toBe('user:9')
    expect(webhookQueueOf({update_id: 1, poll: {id: 'p1'}})).toBe('poll:p1')
    expect(webhookQueueOf({update_id: 1, something_new: {}})).not.toBe(
      webhookQueueOf({update_id: 2, something_new: {}}),
    )
  })

  it('marks /commands (with an optional @bot) at the start or after whitespace', () => {
    expect(commandEntities('/start')).toEqual([{offset: 0, length: 6, type: 'bot_command'}])
    expect(commandEntities('hi /help@my_bot x')).toEqual([{offset: 3, length: 12, type: 'bot_command'}])
    expect(commandEntities('a/b and http://x/y')).toEqual([])
    expect(commandEntities('😀 /go')).toEqual([{offset: 3, length: 3, type: 'bot_command'}]) // UTF-16 offsets
  })
})

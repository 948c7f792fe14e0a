/** Pure parts behind the webhook commands: validation rules, error explanations, summaries. */
import {describe, expect, it} from 'vitest'

import {explainApiError} from '../../src/telegram/explain.js'
import {BotApiError} from '../../src/telegram/index.js'
import {explainDeliveryError, formatAge} from '../../src/webhook/explain-error.js'
import {summarizeWebhookInfo} from '../../src/webhook/service.js'
import {
  isReservedIPv4,
  validateAllowedUpdates,
  validateMaxConnections,
  validateSecretToken,
  validateWebhook,
  validateWebhookUrl,
} from '../../src/webhook/validate.js'

const cloud = {cloud: true}
const local = {cloud: false}

describe('validateWebhookUrl', () => {
  it.each([
    'https://bot.example.com/hook',
    'https://bot.example.com:8443/x?y=1',
    'https://bot.example.com:88/',
    'https://bot.example.com:80/',
    'https://203.0.113.7/hook',
  ])('accepts %s for the cloud', (url) => expect(validateWebhookUrl(url, cloud)).toBe(new URL(url).href))

  it.each([
    ['http://bot.example.com/hook', /is http; Telegram delivers webhooks over HTTPS only/],
    ['https://bot.example.com:8080/hook', /port 8080/],
    ['https://10.1.2.3/hook', /local address/],
    ['https://[2001:db8::1]/hook', /IPv6/],
    ['https://bot.example.com/hook#frag', /#fragment/],
    ['bot.example.com/hook', /not a valid absolute URL/],
  ])('rejects %s for the cloud', (url, message) => {
    expect(() => validateWebhookUrl(url, cloud)).toThrow(message)
  })

  it('allows http, any port and local hosts with a local Bot API server', () => {
    expect(validateWebhookUrl('http://127.0.0.1:3000/hook', local)).toBe('http://127.0.0.1:3000/hook')
    expect(() => validateWebhookUrl('ftp://127.0.0.1/hook', local)).toThrow(/ftp:/)
  })

  it('rejections are UsageErrors (exit 2) with a fix', () => {
    try {
      validateWebhookUrl('http://x.example/h', cloud)
      expect.unreachable()
    } catch (error) {
      expect((error as {exitCode: number}).exitCode).toBe(2)
      expect((error as {fix?: string}).fix).toMatch(/https/)
    }
  })
})

describe('other setWebhook parameters', () => {
  it('secret token: 1-256 of A-Za-z0-9_-', () => {
    expect(validateSecretToken('a')).toBe('a')
    expect(validateSecretToken('A-z_9'.repeat(51) + 'x')).toHaveLength(256)
    expect(() => validateSecretToken('x'.repeat(257))).toThrow(/257 characters/)
    expect(() => validateSecretToken('')).toThrow(/empty/)
    expect(() => validateSecretToken('a+b=c')).toThrow(/contains "\+", "="/)
  })

  it('max connections: 1-100 on the cloud, 1-100000 locally, whole numbers only', () => {
    expect(validateMaxConnections('40', cloud)).toBe(40)
    expect(validateMaxConnections(100, cloud)).toBe(100)
    expect(() => validateMaxConnections(101, cloud)).toThrow(/from 1 to 100 /)
    expect(validateMaxConnections('100000', local)).toBe(100000)
    expect(() => validateMaxConnections('2.5', local)).toThrow(/whole number/)
    expect(() => validateMaxConnections('-1', local)).toThrow(/"-1"/)
  })

  it('allowed updates: known names, trimmed, de-duplicated; "" is the default set', () => {
    expect(validateAllowedUpdates(' message , callback_query,message')).toEqual(['message', 'callback_query'])
    expect(validateAllowedUpdates('')).toEqual([])
    expect(() => validateAllowedUpdates('message,edited_mesage')).toThrow(/"edited_mesage"/)
  })

  it('reserved IPv4 ranges', () => {
    for (const ip of [
      '0.0.0.0',
      '10.0.0.1',
      '127.0.0.1',
      '169.254.1.1',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.0.1',
      '100.64.0.1',
      '224.0.0.1',
    ])
      expect(isReservedIPv4(ip), ip).toBe(true)
    for (const ip of ['8.8.8.8', '172.32.0.1', '149.154.167.220', '203.0.113.7'])
      expect(isReservedIPv4(ip), ip).toBe(false)
  })

  it('validateWebhook keeps only what was given', () => {
    expect(validateWebhook({url: 'https://bot.example.com/h'}, cloud)).toEqual({
      url: 'https://bot.example.com/h',
      dropPendingUpdates: false,
    })
  })
})

describe('explainDeliveryError', () => {
  it.each([
    ['Wrong response from the webhook: 500 Internal Server Error', 'http-5xx', /crashed or threw/],
    ['Wrong response from the webhook: 502 Bad Gateway', 'http-proxy', /proxy/],
    ['Wrong response from the webhook: 401 Unauthorized', 'http-auth', /X-Telegram-Bot-Api-Secret-Token/],
    ['Wrong response from the webhook: 403 Forbidden', 'http-auth', /secret/],
    ['Wrong response from the webhook: 404 Not Found', 'http-path', /path/],
    ['Wrong response from the webhook: 301 Moved Permanently', 'http-3xx', /redirect/],
    ['Wrong response from the webhook: 302 Found', 'http-3xx', /does not follow redirects/],
    ['Wrong response from the webhook: 429 Too Many Requests', 'http-rate-limited', /rate-limits/],
    ['Wrong response from the webhook: 418', 'http-4xx', /refused/],
    ['Connection refused', 'connection-refused', /nothing accepts connections/],
    ['Connection timed out', 'connection-timeout', /firewall/],
    ['Read timeout expired', 'read-timeout', /60 seconds/],
    ['SSL error {error:0A000086:SSL routines::certificate verify failed}', 'tls', /TLS handshake failed/],
    ['Failed to resolve host: Name or service not known', 'dns', /resolve/],
    ['Something new from Telegram', 'unknown', /could not deliver/],
  ])('%s → %s', (message, id, meaning) => {
    const e = explainDeliveryError(message)
    expect(e.id).toBe(id)
    expect(e.meaning).toMatch(meaning)
    expect(e.fix.length).toBeGreaterThan(10)
  })

  it('formatAge', () => {
    expect(formatAge(2)).toBe('just now')
    expect(formatAge(42)).toBe('42 s ago')
    expect(formatAge(200)).toBe('3 min ago')
    expect(formatAge(7200)).toBe('2 h ago')
    expect(formatAge(86_400)).toBe('1 day ago')
    expect(formatAge(3 * 86_400)).toBe('3 days ago')
  })
})

describe('summarizeWebhookInfo', () => {
  it('long polling', () => {
    expect(summarizeWebhookInfo({url: '', has_custom_certificate: false, pending_update_count: 3})).toMatchObject({
      mode: 'polling',
      url: null,
      pendingUpdateCount: 3,
      allowedUpdates: null,
      lastError: null,
    })
  })

  it('a webhook with an error, aged against now', () => {
    const now = 1_700_000_000_000
    const s = summarizeWebhookInfo(
      {
        url: 'https://x.example/h',
        has_custom_certificate: true,
        pending_update_count: 9,
        last_error_date: now / 1000 - 180,
        last_error_message: 'Wrong response from the webhook: 500 Internal Server Error',
        max_connections: 40,
        ip_address: '203.0.113.7',
        allowed_updates: ['message'],
      },
      now,
    )
    expect(s).toMatchObject({
      mode: 'webhook',
      maxConnections: 40,
      ipAddress: '203.0.113.7',
      hasCustomCertificate: true,
      allowedUpdates: ['message'],
    })
    expect(s.lastError).toMatchObject({ageSeconds: 180, age: '3 min ago', explanation: {id: 'http-5xx'}})
  })
})

describe('explainApiError', () => {
  const api = (code: number, description: string, method = 'getMe') =>
    new BotApiError({kind: 'api', method, code, description})
  const root = 'https://api.telegram.org'

  it('401 → @BotFather', () => expect(explainApiError(api(401, 'Unauthorized'), root).fix).toMatch(/@BotFather/))
  it('404 → malformed token or api root', () =>
    expect(explainApiError(api(404, 'Not Found'), root).fix).toMatch(/malformed/))
  it('404 method not found → check the api root', () =>
    expect(explainApiError(api(404, 'Not Found: method not found'), 'http://127.0.0.1:1').fix).toMatch(/--api-root/))
  it('409 webhook active → bot webhook delete', () =>
    expect(
      explainApiError(
        api(
          409,
          "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
        ),
        root,
      ).fix,
    ).toMatch(/bot webhook delete/))
  it('409 other poller → bot doctor', () =>
    expect(
      explainApiError(
        api(409, 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running'),
        root,
      ).fix,
    ).toMatch(/bot doctor/))
  it('429 → wait', () => {
    const e = new BotApiError({
      kind: 'api',
      method: 'setWebhook',
      code: 429,
      description: 'Too Many Requests: retry after 7',
      retryAfter: 7,
    })
    expect(explainApiError(e, root)).toEqual({
      message: 'Telegram asks to slow down (429, retry after 7s).',
      fix: 'Wait 7 seconds and try again.',
    })
  })
  it('400 bad webhook → a fix per reason', () => {
    expect(
      explainApiError(
        api(400, 'Bad Request: bad webhook: Failed to resolve host: Name or service not known', 'setWebhook'),
        root,
      ).fix,
    ).toMatch(/DNS/)
    expect(
      explainApiError(api(400, 'Bad Request: bad webhook: IP address 127.0.0.1 is reserved', 'setWebhook'), root).fix,
    ).toMatch(/public IPv4/)
  })
  it('5xx → Telegram trouble', () => expect(explainApiError(api(502, 'Bad Gateway'), root).fix).toMatch(/try again/))
  it('network, default root → internet and proxy', () => {
    const e = new BotApiError({
      kind: 'network',
      method: 'getMe',
      description: 'cannot resolve the host name api.telegram.org (ENOTFOUND)',
      causeCode: 'ENOTFOUND',
    })
    const x = explainApiError(e, root)
    expect(x.message).toBe(
      'Cannot reach the Bot API at https://api.telegram.org: cannot resolve the host name api.telegram.org (ENOTFOUND).',
    )
    expect(x.fix).toMatch(/internet connection/)
  })
})

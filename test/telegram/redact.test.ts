import {describe, expect, it} from 'vitest'

import {botIdOf, inspectToken, redact, redactor, REDACTED} from '../../src/telegram/index.js'
import {redactionPattern} from '../../src/telegram/redact.js'

const TOKEN = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw'
const SECRET = TOKEN.split(':')[1]

describe('redact', () => {
  it('replaces the whole token, its secret part and URL-encoded forms', () => {
    const text = `url /bot${TOKEN}/getMe, secret ${SECRET}, encoded ${encodeURIComponent(TOKEN)}`
    const out = redact(text, TOKEN)
    expect(out).toBe(`url /bot${REDACTED}/getMe, secret ${REDACTED}, encoded ${REDACTED}`)
  })

  it('keeps the bot id readable when only the secret appears', () => {
    expect(redact(`bot 123456789 uses ${SECRET}`, TOKEN)).toBe(`bot 123456789 uses ${REDACTED}`)
  })

  it('handles several tokens and ignores empty ones', () => {
    const other = '987654321:BBHdqTcvCH1vGWJxfSeofSAs0K5PALDxyz'
    expect(redact(`${TOKEN} ${other}`, undefined, '', TOKEN, other)).toBe(`${REDACTED} ${REDACTED}`)
    expect(redactor(TOKEN)(`x${TOKEN}x`)).toBe(`x${REDACTED}x`)
  })

  it('does not redact tiny strings that would mangle output', () => {
    expect(redact('a:b appears in text', 'a:b')).toBe('a:b appears in text')
  })
})

describe('inspectToken', () => {
  it('accepts the BotFather shape and reads the id', () => {
    expect(inspectToken(TOKEN)).toEqual({valid: true, botId: 123456789})
    expect(botIdOf(TOKEN)).toBe(123456789)
  })

  it.each([
    [' ' + TOKEN, /whitespace/],
    [`"${TOKEN}"`, /quotes/],
    [`bot${TOKEN}`, /starts with "bot"/],
    ['123456789AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw', /no ":"/],
    ['abc:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw', /not a bot id/],
    ['123:short', /30\+ characters/],
  ])('rejects %j', (token, problem) => {
    const shape = inspectToken(token)
    expect(shape.valid).toBe(false)
    expect(shape.problem).toMatch(problem)
    expect(shape.problem).not.toContain(SECRET)
  })
})

describe('redactionPattern', () => {
  it('replaces, in one pass, what redact replaces for every token, and what the extra expressions match', () => {
    const a = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw'
    const b = 'webhook_secret_value'
    const text = `x ${a} y ${encodeURIComponent(a)} z ${a.split(':')[1]} w ${b} ${encodeURIComponent('/webhook/' + b)} other 98765:NOT_A_TOKEN_OF_OURS_BUT_SHAPED_LIKE_ONE_XX`
    const re = redactionPattern([a, undefined, b], /\b\d{5,16}:[A-Za-z0-9_-]{30,}/g)
    expect(text.replace(re, REDACTED)).toBe(redact(text, a, b).replace(/\b\d{5,16}:[A-Za-z0-9_-]{30,}/g, REDACTED))
    expect(text.replace(re, REDACTED)).not.toContain('AAHdqTcv')
    expect(text.replace(redactionPattern([]), REDACTED)).toBe(text)
  })
})

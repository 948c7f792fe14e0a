/** Update previews: tokens redacted before the cut, terminal controls and bidi escaped, cut by whole characters. */
import {describe, expect, it} from 'vitest'

import {describeUpdate, PREVIEW_MAX, safePreview} from '../../src/dev/relay/relay.js'
import {sanitizeForTerminal} from '../../src/lib/terminal.js'

const TOKEN = '7012345678:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0'
const message = (text: string) =>
  JSON.stringify({update_id: 1, message: {message_id: 1, date: 0, chat: {id: 9, type: 'private'}, text}})
const UNSAFE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/

describe('update preview: redact, then cut', () => {
  it('never shows part of a token that the cut would have made unrecognisable', () => {
    const {preview} = describeUpdate(message(`my token is ${TOKEN} keep it safe`))
    expect(preview).toBe('my token is <token> keep it safe')
    const cut = describeUpdate(message(`my token is ${TOKEN} and then a long tail of words after it`)).preview!
    expect(cut).toHaveLength(PREVIEW_MAX)
    expect(cut.startsWith('my token is <token> and then')).toBe(true)
    expect(cut).not.toContain('AAHdq')
    // A token placed so that the old cut kept its first 16 secret characters.
    const edge = describeUpdate(message(`${'x'.repeat(12)} ${TOKEN}`)).preview!
    expect(edge).not.toMatch(/\d{5,}:/)
    expect(edge).toContain('<token>')
  })

  it('redacts given secrets too (e.g. the secret part alone)', () => {
    const secret = TOKEN.split(':')[1]
    expect(describeUpdate(message(`secret ${secret}`), [TOKEN]).preview).toBe('secret <token>')
  })

  it('cuts by whole characters: no half emoji, no half escape', () => {
    const emoji = safePreview('😀'.repeat(30))
    expect(emoji.endsWith('…')).toBe(true)
    expect([...emoji.slice(0, -1)].every((c) => c === '😀')).toBe(true)
    const escapes = safePreview('\u009b'.repeat(20))
    expect(escapes).toMatch(/^(\\u009b)+…$/)
    expect(escapes.length).toBeLessThanOrEqual(PREVIEW_MAX)
  })
})

describe('update preview: terminal controls', () => {
  it('escapes C0, C1 and bidi controls in the preview and in the update type', () => {
    const text = 'a\u009b31mb \u001b[2J c\u202eevil\u202c \u2066iso\u2069 \u0007bell \u0085nel'
    const {preview} = describeUpdate(message(text))
    expect(preview).not.toMatch(UNSAFE)
    expect(preview).toContain('a\\u009b31mb')
    expect(preview).toContain('\\u202eevil')
    const forged = describeUpdate(JSON.stringify({update_id: 2, ['\u001b]0;x\u0007']: {text: 'y'}}))
    expect(forged.updateType).toBe('\\u001b]0;x\\u0007')
  })

  it('sanitizeForTerminal can keep colour sequences (a bot log in colour) and nothing else', () => {
    const coloured = '\u001b[32minfo\u001b[0m \u001b[1;31mboom\u001b[0m'
    expect(sanitizeForTerminal(coloured, {keepColors: true})).toBe(coloured)
    // Cursor moves, title changes, C1 CSI and bidi overrides are still shown, not acted on.
    expect(sanitizeForTerminal('\u001b[2J\u001b]0;pwned\u0007\u009b1m\u202e', {keepColors: true})).toBe(
      '\\u001b[2J\\u001b]0;pwned\\u0007\\u009b1m\\u202e',
    )
    expect(sanitizeForTerminal('\u001b[32mx', {})).toBe('\\u001b[32mx')
  })

  it('sanitizeForTerminal leaves ordinary text alone and can keep newlines', () => {
    expect(sanitizeForTerminal('Привет, 世界 👋 tab\there')).toBe('Привет, 世界 👋 tab\there')
    expect(sanitizeForTerminal('a\nb\rc')).toBe('a\\u000ab\\u000dc')
    expect(sanitizeForTerminal('a\nb\u009b', {keepNewlines: true})).toBe('a\nb\\u009b')
    expect(sanitizeForTerminal('\u200f\u061c\u2028\u007f')).toBe('\\u200f\\u061c\\u2028\\u007f')
  })
})

import {randomBytes} from 'node:crypto'

import {describe, expect, it} from 'vitest'

import {maskPath, maskPathAndQuery, maskUrl} from '../../src/lib/mask-url.js'

describe('maskUrl', () => {
  it('keeps the origin and the first segment of a `bot dev` URL, and at most 4 characters of its random part', () => {
    const random = randomBytes(12).toString('base64url')
    const masked = maskUrl(`https://x.trycloudflare.com/webhook/${random}`)
    expect(masked).toBe(`https://x.trycloudflare.com/webhook/${random.slice(0, 4)}…`)
    expect(masked).not.toContain(random.slice(0, 5))
  })

  it('masks query strings, fragments and credentials', () => {
    expect(maskUrl('https://bot.example.com/tg/hook?secret=abcdef#frag')).toBe('https://bot.example.com/tg/hook?…#…')
    expect(maskUrl('https://user:pass@bot.example.com:8443/a/b/c')).toBe('https://…@bot.example.com:8443/a/b/c')
    expect(maskUrl('https://bot.example.com/a/bcdefgh/ij')).toBe('https://bot.example.com/a/bcde…')
  })

  it('keeps a short lone segment (a word) and masks a long one (a secret)', () => {
    expect(maskUrl('http://127.0.0.1:8080/hook')).toBe('http://127.0.0.1:8080/hook')
    expect(maskUrl('https://bot.example.com/')).toBe('https://bot.example.com/')
    expect(maskUrl('https://bot.example.com/8f3a9c0d1e2f3a4b5c6d')).toBe('https://bot.example.com/8f3a…')
  })

  it('text that does not parse keeps only its host', () => {
    expect(maskUrl('not a url/with/a secret')).toBe('not a url/with/a se…')
    expect(maskUrl('https://[bad/webhook/abcdefgh')).toBe('https://[bad/webhook/abcd…')
    expect(maskUrl('https://a:b@[bad/webhook/abcdefgh?x')).toBe('https://…@[bad/webhook/abcd…?…')
  })
})

describe('maskPath / maskPathAndQuery', () => {
  it('apply the same rule to a bare path', () => {
    expect(maskPath('/webhook/AbCdEfGhIjKlMnOp')).toBe('/webhook/AbCd…')
    expect(maskPath('/tg/hook')).toBe('/tg/hook')
    expect(maskPathAndQuery('/webhook/AbCdEfGh?token=x')).toBe('/webhook/AbCd…?…')
    expect(maskPathAndQuery('/')).toBe('/')
  })
})

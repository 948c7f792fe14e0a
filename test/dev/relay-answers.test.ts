/** The relay's answer cache (src/dev/relay/answers.ts): what it keeps, for how long, and who waits. */
import {describe, expect, it} from 'vitest'

import {AnswerCache, Attempt} from '../../src/dev/relay/answers.js'

const answer = (text: string, status = 200) => ({status, text})

function keep(cache: AnswerCache, id: number, a = answer(`a${id}`)) {
  const attempt = new Attempt()
  cache.track(id, attempt)
  cache.settle(id, attempt, a)
}

describe('AnswerCache', () => {
  it('keeps the newest `limit` 2xx answers, the oldest going first', () => {
    const cache = new AnswerCache(3)
    for (const id of [1, 2, 3, 4, 5]) keep(cache, id)
    expect([1, 2, 3, 4, 5].map((id) => cache.lookup(id))).toEqual([
      undefined,
      undefined,
      answer('a3'),
      answer('a4'),
      answer('a5'),
    ])
    // Thousands more: still the newest three, in O(1) each.
    for (let id = 6; id < 20_000; id++) keep(cache, id)
    expect(cache.lookup(19_996)).toBeUndefined()
    expect([19_997, 19_998, 19_999].map((id) => cache.lookup(id))).toEqual([
      answer('a19997'),
      answer('a19998'),
      answer('a19999'),
    ])
  })

  it('bounds the bytes kept, and an answer kept again counts as new', () => {
    const cache = new AnswerCache(100, 40)
    keep(cache, 1, answer('x'.repeat(10)))
    keep(cache, 2, answer('y'.repeat(10)))
    keep(cache, 1, answer('z'.repeat(10))) // 1 again: now newer than 2
    keep(cache, 3, answer('w'.repeat(10)))
    keep(cache, 4, answer('v'.repeat(10))) // 40 bytes would be 4 × 10: within; one more evicts the oldest (2)
    keep(cache, 5, answer('u'.repeat(10)))
    expect(cache.lookup(2)).toBeUndefined()
    expect(cache.lookup(1)).toEqual(answer('z'.repeat(10)))
    expect(cache.lookup(5)).toEqual(answer('u'.repeat(10)))
  })

  it('does not keep failures or answers over a quarter of the bytes; waiters hear any outcome once', () => {
    const cache = new AnswerCache(10, 40)
    keep(cache, 1, answer('boom', 500))
    keep(cache, 2, answer('x'.repeat(11)))
    expect(cache.lookup(1)).toBeUndefined()
    expect(cache.lookup(2)).toBeUndefined()
    const attempt = new Attempt()
    cache.track(3, attempt)
    expect(cache.lookup(3)).toBe(attempt)
    const heard: unknown[] = []
    attempt.wait((a) => heard.push(a))
    attempt.wait(() => {
      throw new Error('a waiter bug')
    })
    attempt.wait((a) => heard.push(a))
    cache.settle(3, attempt, undefined)
    expect(heard).toEqual([undefined, undefined])
    expect(cache.lookup(3)).toBeUndefined()
  })
})

import {describe, expect, it} from 'vitest'

import {restartOrder} from '../../src/cli/dev-options.js'
import {UsageError} from '../../src/lib/errors.js'

describe('BOT_DEV_RESTART', () => {
  it('is the restart order, or the default when unset or empty', () => {
    expect(restartOrder({})).toBeUndefined()
    expect(restartOrder({BOT_DEV_RESTART: ''})).toBeUndefined()
    expect(restartOrder({BOT_DEV_RESTART: 'stop-first'})).toBe('stop-first')
    expect(restartOrder({BOT_DEV_RESTART: 'start-first'})).toBe('start-first')
  })

  it('anything else is a usage error naming the values', () => {
    expect(() => restartOrder({BOT_DEV_RESTART: 'stop-then-start'})).toThrow(UsageError)
    expect(() => restartOrder({BOT_DEV_RESTART: 'stop-then-start'})).toThrow(
      'BOT_DEV_RESTART is "stop-then-start", which is not a restart order.',
    )
  })
})

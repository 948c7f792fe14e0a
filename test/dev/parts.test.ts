/**
 * Which parts a `bot dev` session runs, in start order, for each set of options
 * (src/dev/parts.ts). The runner stops them in reverse: the webhook part just before the delivery
 * is what cleans the webhook after the delivery stopped and before the bot stops; the web-app part, after the
 * delivery, puts the menu button back first (and repairs nothing itself when --web-app is not given).
 */
import {describe, expect, it} from 'vitest'

import type {DevSessionOptions} from '../../src/dev/options.js'
import {setupSessionParts} from '../../src/dev/parts.js'

type Choice = Pick<
  DevSessionOptions,
  'mode' | 'bridge' | 'forwardTo' | 'apiProxy' | 'inspect' | 'checkPollers' | 'watch'
>

const HEAD = ['token', 'claim', 'webhook-check', 'recording', 'api-proxy', 'inspector', 'control-port']

const TABLE: Array<[string, Choice, string[]]> = [
  [
    'webhook mode through a tunnel, watching files, looking for another poller',
    {mode: 'webhook', watch: true, checkPollers: true},
    [...HEAD, 'poller-check', 'relay', 'bot', 'webhook', 'delivery', 'web-app', 'watch'],
  ],
  [
    'webhook mode through the bridge (--tunnel none)',
    {mode: 'webhook', bridge: true},
    [...HEAD, 'relay', 'bot', 'webhook', 'delivery', 'web-app'],
  ],
  [
    'polling mode: the webhook cleared before the bot starts, restored after it stopped',
    {mode: 'polling', watch: true, checkPollers: true},
    [...HEAD, 'webhook', 'delivery', 'bot', 'web-app', 'watch'],
  ],
  [
    '--forward-to: no bot process and nothing to watch',
    {mode: 'webhook', watch: true, forwardTo: {url: 'http://127.0.0.1:9'}},
    [...HEAD, 'relay', 'forward', 'webhook', 'delivery', 'web-app'],
  ],
  [
    '--no-api-proxy --no-inspect',
    {mode: 'polling', apiProxy: false, inspect: false},
    ['token', 'claim', 'webhook-check', 'recording', 'control-port', 'webhook', 'delivery', 'bot', 'web-app'],
  ],
]

describe('setupSessionParts', () => {
  it.each(TABLE)('%s', (_, choice, names) => {
    expect(setupSessionParts(choice as DevSessionOptions).map((part) => part.name)).toEqual(names)
  })
})

/**
 * `bot webhook set` validation as a real process against the DEFAULT api root
 * (api.telegram.org): every bad value must exit 2 with one line naming the value and the
 * rule, before anything touches the network. A preloaded guard makes any socket connect
 * fail loudly, and a control test proves the guard does catch a real call.
 */
import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {runCli} from '../support/cli.js'

const TOKEN = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw'
const MARK = 'NETWORK-ATTEMPT'
const guard = [
  `import net from 'node:net'`,
  `net.Socket.prototype.connect = function () { process.stderr.write('${MARK}\\n'); throw new Error('network disabled in this test') }`,
].join(';')
const NO_NETWORK = ['--import', `data:text/javascript,${encodeURIComponent(guard)}`]

function set(args: string[], env: Record<string, string> = {}) {
  return runCli(['webhook', 'set', ...args], {env: {BOT_TOKEN: TOKEN, ...env}, nodeArgs: NO_NETWORK})
}

const dir = mkdtempSync(join(tmpdir(), 'bot-webhook-validation-'))
const bigCert = join(dir, 'big.pem')
writeFileSync(bigCert, Buffer.alloc(3 * 1024 * 1024 + 1, 65))
const emptyCert = join(dir, 'empty.pem')
writeFileSync(emptyCert, '')

const cases: Array<[string, string[], RegExp]> = [
  ['a URL that does not parse', ['not a url'], /URL "not a url" is not a valid absolute URL/],
  [
    'an http URL',
    ['http://bot.example.com/hook'],
    /URL "http:\/\/bot\.example\.com\/hook" is http; Telegram delivers webhooks over HTTPS only/,
  ],
  [
    'a port Telegram does not use',
    ['https://bot.example.com:3000/hook'],
    /uses port 3000; Telegram delivers webhooks only to ports 443, 80, 88 or 8443/,
  ],
  ['a loopback address', ['https://127.0.0.1/hook'], /points at 127\.0\.0\.1, a local address Telegram cannot reach/],
  ['localhost', ['https://localhost:8443/hook'], /points at localhost/],
  ['a non-web scheme', ['ftp://bot.example.com/hook'], /uses ftp:; a webhook URL must be https/],
  [
    'a secret with a bad character',
    ['https://bot.example.com/h', '--secret-token', 'abc$def'],
    /--secret-token contains "\$"; it must be 1-256 characters of A-Z, a-z, 0-9, _ and -/,
  ],
  [
    'a secret that is too long',
    ['https://bot.example.com/h', '--secret-token', 'a'.repeat(257)],
    /--secret-token is 257 characters long; it must be 1-256/,
  ],
  ['an empty secret', ['https://bot.example.com/h', '--secret-token', ''], /--secret-token is empty/],
  [
    'max connections 0',
    ['https://bot.example.com/h', '--max-connections', '0'],
    /--max-connections "0" is not allowed; it must be a whole number from 1 to 100/,
  ],
  [
    'max connections 101',
    ['https://bot.example.com/h', '--max-connections', '101'],
    /--max-connections "101" is not allowed; it must be a whole number from 1 to 100/,
  ],
  [
    'max connections not a number',
    ['https://bot.example.com/h', '--max-connections', '12x'],
    /--max-connections "12x" is not allowed/,
  ],
  [
    'an unknown update type',
    ['https://bot.example.com/h', '--allowed-updates', 'message,callbak_query'],
    /--allowed-updates "callbak_query" is not an update type[\s\S]*Did you mean "callback_query"\?/,
  ],
  [
    'a missing certificate',
    ['https://bot.example.com/h', '--certificate', join(dir, 'nope.pem')],
    /--certificate .*nope\.pem cannot be read \(no such file\)/,
  ],
  [
    'a certificate over 3 MiB',
    ['https://bot.example.com/h', '--certificate', bigCert],
    /--certificate .*big\.pem is 3145729 bytes; the Bot API accepts at most 3 MiB/,
  ],
  [
    'an empty certificate',
    ['https://bot.example.com/h', '--certificate', emptyCert],
    /--certificate .*empty\.pem is empty/,
  ],
  ['a directory as certificate', ['https://bot.example.com/h', '--certificate', dir], /is not a file/],
  [
    'a private IP address',
    ['https://bot.example.com/h', '--ip-address', '192.168.1.10'],
    /--ip-address 192\.168\.1\.10 is a private or reserved address/,
  ],
  [
    'an IP that is not IPv4',
    ['https://bot.example.com/h', '--ip-address', '2001:db8::1'],
    /--ip-address "2001:db8::1" is not an IPv4 address/,
  ],
]

describe('bot webhook set: validation before any call (default api root, network guarded)', () => {
  it.each(cases)('rejects %s with exit 2 and no network', async (_name, args, message) => {
    const r = await set(args)
    expect(r.stderr).not.toContain(MARK)
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    const first = r.stderr.split('\n')[0]
    expect(first.startsWith('✗ ')).toBe(true)
    expect(r.stderr).toMatch(message)
    expect(r.stderr.trim().split('\n')).toHaveLength(2) // the line and its fix
  })

  it('never echoes a rejected secret token', async () => {
    const secret = 'my-secret-with-a-dot.in-it'
    const r = await set(['https://bot.example.com/h', '--secret-token', secret])
    expect(r.code).toBe(2)
    expect(r.stderr + r.stdout).not.toContain(secret)
  })

  it('takes the secret from WEBHOOK_SECRET and validates it too', async () => {
    const r = await set(['https://bot.example.com/h'], {WEBHOOK_SECRET: 'bad secret'})
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/--secret-token contains " "/)
  })

  it('reports a validation error as JSON on stdout with --json', async () => {
    const r = await set(['http://bot.example.com/h', '--json'])
    expect(r.code).toBe(2)
    expect(r.stderr).not.toContain(MARK)
    const out = JSON.parse(r.stdout) as {ok: boolean; error: {code: string; message: string; fix: string}}
    expect(out.ok).toBe(false)
    expect(out.error.code).toBe('usage')
    expect(out.error.message).toMatch(/is http/)
    expect(out.error.fix).toMatch(/https/)
  })

  it('refuses without a token, exit 2, no network', async () => {
    const r = await runCli(['webhook', 'set', 'https://bot.example.com/h'], {nodeArgs: NO_NETWORK})
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/No bot token: pass --token or set BOT_TOKEN/)
    expect(r.stderr).not.toContain(MARK)
  })

  it('rejects a missing URL argument with exit 2', async () => {
    const r = await set([])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/Missing 1 required arg|url/i)
    expect(r.stderr).not.toContain(MARK)
  })

  it('control: a valid URL does try the network (so the guard above is real)', async () => {
    const r = await set(['https://bot.example.com/h'])
    expect(r.stderr).toContain(MARK)
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/Cannot reach the Bot API at https:\/\/api\.telegram\.org/)
  })
})

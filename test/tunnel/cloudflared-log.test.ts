/**
 * The cloudflared log reader, fed cloudflared's real lines (cloudflare/cloudflared
 * cmd/cloudflared/tunnel/quick_tunnel.go).
 */
import {describe, expect, it} from 'vitest'

import {
  CloudflaredLog,
  classifyFailure,
  MAX_LINE,
  redactPaths,
  TAIL_LINES,
  type CloudflaredEvent,
} from '../../src/tunnel/cloudflared-log.js'

const T = '2026-11-23T10:00:00Z'
const BANNER = [
  `${T} INF +--------------------------------------------------------------------------------------------+`,
  `${T} INF |  Your quick Tunnel has been created! Visit it at (it may take some time to be reachable):  |`,
  `${T} INF |  https://quiet-fox-words-here.trycloudflare.com                                            |`,
  `${T} INF +--------------------------------------------------------------------------------------------+`,
]
const START = [
  `${T} INF Thank you for trying Cloudflare Tunnel. Doing so, without a Cloudflare account, is a quick way to experiment and try it out. However, be aware that these account-less Tunnels have no uptime guarantee. If you intend to use Tunnels in production you should use a pre-created named tunnel by following: https://developers.cloudflare.com/cloudflare-one/connections/connect-apps`,
  `${T} INF Requesting new quick Tunnel on trycloudflare.com...`,
]
const REGISTERED = `${T} INF Registered tunnel connection connIndex=0 connection=1b6e7d5a-3c3e-4a8e-9d55-4b0e9c3f2a11 event=0 ip=198.41.200.13 location=fra08 protocol=quic`

function read(text: string | string[], chunk = 0): CloudflaredEvent[] {
  const events: CloudflaredEvent[] = []
  const log = new CloudflaredLog((e) => events.push(e))
  const all = Array.isArray(text) ? text.join('\n') + '\n' : text
  if (chunk > 0) for (let i = 0; i < all.length; i += chunk) log.push(all.slice(i, i + chunk))
  else log.push(all)
  log.end()
  return events
}

describe('CloudflaredLog', () => {
  it('finds the URL in the banner and then Registered, also when the output comes in tiny pieces', () => {
    const lines = [...START, ...BANNER, `${T} INF Initial protocol quic`, REGISTERED]
    const expected = [{type: 'url', url: 'https://quiet-fox-words-here.trycloudflare.com'}, {type: 'registered'}]
    expect(read(lines)).toEqual(expected)
    expect(read(lines, 7)).toEqual(expected)
    expect(read(lines.join('\r\n') + '\r\n')).toEqual(expected)
  })

  it('accepts any http(s) URL in the box (the stand-in prints a loopback one), but only after the banner', () => {
    const box = (url: string) => [
      `${T} INF |  Your quick Tunnel has been created! Visit it at (it may take some time to be reachable):  |`,
      `${T} INF |  ${url}  |`,
    ]
    expect(read(box('http://127.0.0.1:41234'))).toEqual([{type: 'url', url: 'http://127.0.0.1:41234'}])
    expect(read([`${T} INF |  https://elsewhere.example.com  |`, REGISTERED])).toEqual([])
    expect(read(box('ftp://x.example.com'))).toEqual([])
  })

  it('knows the older "Connection <uuid> registered" line', () => {
    expect(
      read([
        ...BANNER,
        `${T} INF Connection 1b6e7d5a-3c3e-4a8e-9d55-4b0e9c3f2a11 registered connIndex=0 ip=198.41.200.13 location=AMS`,
      ]),
    ).toContainEqual({type: 'registered'})
  })

  it('classifies the known failure lines', () => {
    expect(
      classifyFailure(
        `${T} ERR Error unmarshaling QuickTunnel response: error code: 1015 error="invalid character 'e' looking for beginning of value" status_code="429 Too Many Requests"`,
      )?.kind,
    ).toBe('rate-limited')
    expect(
      classifyFailure(
        'failed to request quick Tunnel: Post "https://api.trycloudflare.com/tunnel": dial tcp: lookup api.trycloudflare.com on 127.0.0.11:53: no such host',
      )?.kind,
    ).toBe('network')
    expect(
      classifyFailure('failed to request quick Tunnel: Post "https://api.trycloudflare.com/tunnel": EOF')?.kind,
    ).toBe('request')
    expect(
      classifyFailure(
        `${T} ERR Error unmarshaling QuickTunnel response: error code: 1101 error="invalid character 'e'" status_code="500 Internal Server Error"`,
      ),
    ).toEqual({
      kind: 'request',
      reason: 'trycloudflare.com answered the quick tunnel request with an error (HTTP 500 Internal Server Error)',
    })
    expect(classifyFailure(`${T} ERR initial tunnel connection failed error="…"`)?.kind).toBe('edge')
    expect(classifyFailure(REGISTERED)).toBeUndefined()
    expect(classifyFailure(`${T} ERR Failed to dial a quic connection error="timeout" connIndex=0`)).toBeUndefined()
  })

  it('cuts over-long lines and keeps only the last lines, URL paths blanked', () => {
    const events: CloudflaredEvent[] = []
    const log = new CloudflaredLog((e) => events.push(e))
    log.push('x'.repeat(MAX_LINE * 50)) // no line end: cut at once, the rest skipped
    log.push('y'.repeat(1000) + '\n')
    expect(log.lastLines()).toEqual(['x'.repeat(MAX_LINE)])
    for (let i = 0; i < TAIL_LINES + 5; i++) log.push(`${T} INF line ${i}\n`)
    log.push(
      `${T} ERR Request failed error="Unable to reach the origin service" connIndex=0 dest=https://q.trycloudflare.com/webhook/SECRETPATH?x=1 event=0 type=http\n`,
    )
    const tail = log.lastLines()
    expect(tail).toHaveLength(TAIL_LINES)
    expect(tail.at(-1)).toBe(
      'ERR Request failed error="Unable to reach the origin service" connIndex=0 dest=https://q.trycloudflare.com/… event=0 type=http',
    )
    expect(tail.join('\n')).not.toContain('SECRETPATH')
    expect(log.lastError()).toBe(tail.at(-1))
  })

  it('redactPaths keeps origins and blanks paths, queries and path fields', () => {
    expect(redactPaths('dest=https://a.b/c/d?e path=/webhook/x url="http://h:1/p"')).toBe(
      'dest=https://a.b/… path=… url=…',
    )
    expect(redactPaths('see https://a.b and http://127.0.0.1:8080')).toBe('see https://a.b and http://127.0.0.1:8080')
  })
})

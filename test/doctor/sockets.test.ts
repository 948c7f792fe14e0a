/**
 * The doctor's view of a process's TCP connections (Linux /proc), on real loopback sockets of this
 * process, and the matching of a connection with the api root (or its proxy).
 */
import {once} from 'node:events'
import {connect, createServer, type AddressInfo, type Server, type Socket} from 'node:net'

import {afterEach, describe, expect, it} from 'vitest'

import {apiEndpoints} from '../../src/doctor/api-endpoints.js'
import {connectionsOf, normalizeIp} from '../../src/session-store/proc-net.js'

const open: Array<Server | Socket> = []
afterEach(() => {
  for (const s of open.splice(0)) 'destroy' in s ? s.destroy() : s.close()
})

async function connected(host: string): Promise<{port: number; client: Socket} | undefined> {
  const server = createServer((s) => open.push(s))
  open.push(server)
  try {
    server.listen(0, host)
    await once(server, 'listening')
  } catch {
    return undefined // no such interface (IPv6 disabled)
  }
  const {port} = server.address() as AddressInfo
  const client = connect(port, host)
  open.push(client)
  await once(client, 'connect')
  return {port, client}
}

describe.runIf(process.platform === 'linux')('connectionsOf', () => {
  it("lists this process's connection to a loopback server and its listening port; the api root matches it", async () => {
    const c = await connected('127.0.0.1')
    const mine = await connectionsOf(process.pid)
    expect(mine?.remote).toContainEqual({address: '127.0.0.1', port: c!.port})
    expect(mine?.listening).toContain(c!.port)
    const api = await apiEndpoints(`http://127.0.0.1:${c!.port}`, {})
    expect(api?.shown).toBe(`127.0.0.1:${c!.port}`)
    expect(mine!.remote.some((e) => api!.matches(e))).toBe(true)
    // Another port of the same host is not the Bot API; localhost is the same loopback server.
    expect(api!.matches({address: '127.0.0.1', port: c!.port + 1})).toBe(false)
    expect(
      (await apiEndpoints(`http://localhost:${c!.port}`, {}))!.matches({address: '127.0.0.1', port: c!.port}),
    ).toBe(true)
  })

  it('reads IPv6 connections (tcp6) too, when the machine has ::1', async () => {
    const c = await connected('::1')
    if (!c) return
    const mine = await connectionsOf(process.pid)
    expect(mine?.remote).toContainEqual({address: normalizeIp('::1'), port: c.port})
  })

  it('a process that does not exist has no readable connections', async () => {
    expect(await connectionsOf(2 ** 22 + 12345)).toBeUndefined()
  })
})

describe('apiEndpoints and normalizeIp', () => {
  it('through a proxy, a connection to the proxy is the Bot API', async () => {
    const api = await apiEndpoints('https://api.telegram.org', {HTTPS_PROXY: 'http://user:pw@127.0.0.1:3128'})
    expect(api?.shown).toBe('the proxy 127.0.0.1:3128')
    expect(api!.matches({address: '127.0.0.1', port: 3128})).toBe(true)
    expect(api!.matches({address: '127.0.0.1', port: 443})).toBe(false)
  })

  it('writes IPv4-mapped IPv6 as IPv4 and IPv6 in full', () => {
    expect(normalizeIp('::ffff:127.0.0.1')).toBe('127.0.0.1')
    expect(normalizeIp('0000:0000:0000:0000:0000:ffff:7f00:0001')).toBe('127.0.0.1')
    expect(normalizeIp('[2001:db8::1]')).toBe('2001:0db8:0000:0000:0000:0000:0000:0001')
  })
})

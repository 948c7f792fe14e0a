/**
 * Two libraries are used below their public surface, so each is pinned to one exact version and
 * this test fails the day the installed copy is another one:
 *
 * - @n8n/localtunnel: src/tunnel/localtunnel-client.ts requires `lib/Tunnel.js`, subclasses it
 *   (`_init`, `_getInfo`), reads `tunnelCluster` and patches `tunnelCluster.open` (keepHostHeader).
 *   The files it relies on are checked byte for byte (sha256), and the internals used are checked
 *   by shape and by one real cluster socket on loopback.
 * - @oclif/core: the help fast path (src/cli/fast) prints oclif 4's help layout byte for byte
 *   (test/lib/fast-start.e2e.test.ts compares the two for every command).
 */
import {createHash} from 'node:crypto'
import {readFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import net from 'node:net'
import {dirname, join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {keepHostHeader, loadClientClass, type ClientInfo} from '../../src/tunnel/localtunnel-client.js'

const require = createRequire(import.meta.url)
const ours = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  dependencies: Record<string, string>
}

function installed(name: string): {version: string; dir: string} {
  const file = require.resolve(`${name}/package.json`)
  return {version: (JSON.parse(readFileSync(file, 'utf8')) as {version: string}).version, dir: dirname(file)}
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex')

const opened: Array<{close(): void}> = []
afterEach(() => {
  for (const o of opened.splice(0)) o.close()
})

describe('@n8n/localtunnel (internals used: lib/Tunnel.js, TunnelCluster)', () => {
  const PIN = '3.0.0'
  /** The files as published in 3.0.0; a new version, a patch or a local edit changes them. */
  const FILES: Record<string, string> = {
    'lib/Tunnel.js': 'ec5f2172a2be75073fefb27b1ad7d11ca75b7aacdb0b1ec6b4b0440809089a80',
    'lib/TunnelCluster.js': '5ff6ee06a19020ed9146ce83bbb80bc035d22b357dbe50d54ce10da1fc6c4e92',
    'lib/HeaderHostTransformer.js': 'd421489d1a0c3829b9e7ffd7e8ccd7884ea05c2433bb75303abbdb6bf8d82620',
  }

  it('is pinned to one exact version, and that version is the one installed', () => {
    expect(ours.dependencies['@n8n/localtunnel']).toBe(PIN)
    expect(installed('@n8n/localtunnel').version).toBe(PIN)
  })

  it('has the very files this tool was written against', () => {
    const {dir} = installed('@n8n/localtunnel')
    for (const [file, hash] of Object.entries(FILES))
      expect({file, hash: sha256(join(dir, file))}).toEqual({file, hash})
  })

  it('has the internals the provider uses, shaped as it expects', async () => {
    const Client = loadClientClass()
    for (const m of ['_init', '_getInfo', '_establish', 'open', 'close'])
      expect(typeof (Client.prototype as unknown as Record<string, unknown>)[m]).toBe('function')

    // A loopback "tunnel server port" that counts the cluster's sockets.
    let connected = 0
    const server = net.createServer((s) => {
      connected++
      s.on('error', () => {})
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    opened.push({close: () => server.close()})
    const port = (server.address() as net.AddressInfo).port

    const client = new Client({host: 'http://127.0.0.1:1', port: 9, local_port: 9})
    client.on('error', () => {})
    opened.push({close: () => client.close()})
    const info = client._getInfo({id: 'pin', port, max_conn_count: 1, url: 'http://pin.example', ip: '127.0.0.1'})
    expect(info).toMatchObject({max_conn: 1, remote_ip: '127.0.0.1', remote_port: port})
    const socketArrives = () =>
      new Promise<void>((resolve, reject) => {
        const deadline = setTimeout(() => reject(new Error('no socket reached the server')), 20_000) // a hang only
        server.once('connection', () => {
          clearTimeout(deadline)
          resolve()
        })
      })
    const first = socketArrives()
    ;(client as unknown as {_establish(i: ClientInfo): void})._establish(info)
    await first
    // keepHostHeader's assumption: the cluster keeps the very info object as its options.
    const cluster = client.tunnelCluster!
    expect(cluster.opts).toBe(info)
    expect(typeof cluster.open).toBe('function')
    keepHostHeader(client, info, '127.0.0.1')
    expect(info.local_host).toBeUndefined()
    expect(cluster.open.name).toBe('openWithLocalHost')
    // One more socket through the patched open reaches the server, as the library's own did.
    const second = socketArrives()
    cluster.open()
    await second
    expect(connected).toBe(2)
    expect(info.local_host).toBeUndefined()
  })
})

describe('@oclif/core (its help layout reproduced by src/cli/fast)', () => {
  it('is pinned to one exact version, and that version is the one installed', () => {
    const pin = ours.dependencies['@oclif/core']
    expect(pin).toMatch(/^\d+\.\d+\.\d+$/)
    expect(installed('@oclif/core').version).toBe(pin)
  })
})

/**
 * The quick look at the bot's own listening socket (src/dev/bot/own-listener.ts): real sockets of
 * this process, read from /proc (Linux); a port nobody listens on, another process group, and a
 * connection to the port (its rows name the port too, not listening) find nothing.
 */
import {createConnection, createServer, type Server, type Socket} from 'node:net'

import {afterEach, describe, expect, it} from 'vitest'

import {listeningInodes, ownListener} from '../../src/dev/bot/own-listener.js'
import {freePort} from '../../src/lib/free-port.js'

const closers: Array<() => void> = []
afterEach(() => {
  for (const close of closers.splice(0)) close()
})

function listen(host?: string): Promise<{server: Server; port: number}> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => socket.resume())
    server.once('error', reject)
    server.listen(0, ...(host ? [host] : []), () => {
      closers.push(() => server.close())
      resolve({server, port: (server.address() as {port: number}).port})
    })
  })
}

function connect(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({host: '127.0.0.1', port}, () => resolve(socket))
    socket.once('error', reject)
    closers.push(() => socket.destroy())
  })
}

describe.runIf(process.platform === 'linux')('the bot’s own listening socket, from the rows of its port', () => {
  it('a server of this process on 127.0.0.1 and on :: (both families) is found, with its pid', async () => {
    for (const host of ['127.0.0.1', undefined]) {
      const {port} = await listen(host)
      expect(listeningInodes(port).size).toBe(1)
      expect(ownListener(port, process.pid)).toEqual([process.pid])
    }
  })

  it('nothing for a port nobody listens on, or for a process group that does not hold the socket', async () => {
    const free = await freePort()
    expect(listeningInodes(free).size).toBe(0)
    expect(ownListener(free, process.pid)).toEqual([])
    const {port} = await listen('127.0.0.1')
    // pid 1 is no process of this test's: its descriptors (when readable at all) hold no such socket.
    expect(ownListener(port, 1)).toEqual([])
    expect(ownListener(port, -1)).toEqual([])
  })

  it('connections to the port (rows naming it as the remote or the local end, not listening) are not listeners', async () => {
    const {port} = await listen('127.0.0.1')
    await connect(port)
    await connect(port)
    expect(listeningInodes(port).size).toBe(1)
    expect(ownListener(port, process.pid)).toEqual([process.pid])
  })
})

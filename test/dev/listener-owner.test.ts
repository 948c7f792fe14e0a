/**
 * Who holds a port's listening socket (src/session-store/proc-net.ts listenerOwner, read from the port's rows of
 * /proc/net/tcp6 and tcp only): real sockets of this process (Linux). A port nobody listens on finds nothing, another
 * process group finds this process as a foreign owner, and connections to the port (their rows name the port too,
 * not listening) are no listeners.
 */
import {createConnection, createServer, type Server, type Socket} from 'node:net'

import {afterEach, describe, expect, it} from 'vitest'

import {listenerOwner, listeningInodes} from '../../src/session-store/proc-net.js'
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

describe.runIf(process.platform === 'linux')('the owner of a listening socket, from the rows of its port', () => {
  it('a server of this process on 127.0.0.1 and on :: (both families) is found, with its pid', async () => {
    for (const host of ['127.0.0.1', undefined]) {
      const {port} = await listen(host)
      expect(listeningInodes(port).size).toBe(1)
      expect(listenerOwner(port, process.pid)).toEqual({owner: 'ours', pids: [process.pid]})
    }
  })

  it('nothing for a port nobody listens on; for a process group that does not hold the socket, this process as foreign', async () => {
    const free = await freePort()
    expect(listeningInodes(free).size).toBe(0)
    expect(listenerOwner(free, process.pid)).toEqual({owner: 'unknown', pids: []})
    const {port} = await listen('127.0.0.1')
    // Group 1 is not this test's: the socket is found held by this process, outside that group.
    expect(listenerOwner(port, 1)).toEqual({owner: 'foreign', pids: [process.pid]})
    expect(listenerOwner(port, -1)).toEqual({owner: 'unknown', pids: []})
  })

  it('connections to the port (rows naming it as the remote or the local end, not listening) are not listeners', async () => {
    const {port} = await listen('127.0.0.1')
    await connect(port)
    await connect(port)
    expect(listeningInodes(port).size).toBe(1)
    expect(listenerOwner(port, process.pid)).toEqual({owner: 'ours', pids: [process.pid]})
  })
})

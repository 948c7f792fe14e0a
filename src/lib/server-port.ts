/** The port of a listening server: server.address() is an AddressInfo while it listens on TCP, a string on a pipe. */
import type {AddressInfo} from 'node:net'

interface Listening {
  address(): AddressInfo | string | null
}

/** The TCP port the server listens on, or undefined when it does not (closed, or a pipe). */
export function portOf(server: Listening): number | undefined {
  const address = server.address()
  return typeof address === 'object' && address !== null ? address.port : undefined
}

/** The TCP port of a server that has just started listening on one. */
export function listeningPort(server: Listening): number {
  const port = portOf(server)
  if (port === undefined) throw new Error('the server is not listening on a TCP port')
  return port
}

/**
 * loopback provider: no tunnel, the relay's own address (offline mode: the emulator delivers
 * webhooks over loopback). Opens nothing, never 'down'.
 */
import {type Tunnel, type TunnelOpenOptions, type TunnelProvider} from './types.js'
import {TunnelError} from './errors.js'
import {isLoopbackHost} from './public-url.js'

class LoopbackTunnel implements Tunnel {
  readonly provider = 'loopback'
  constructor(readonly url: string) {}
  on(_event: 'down', _cb: (err?: Error) => void): void {
    // Nothing can go down.
  }
  async close(): Promise<void> {}
}

export class LoopbackProvider implements TunnelProvider {
  readonly name = 'loopback'

  async open(options: TunnelOpenOptions): Promise<Tunnel> {
    const {port} = options
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      throw new TunnelError(`local port ${port} is not a TCP port (1–65535)`, {code: 'tunnel_invalid'})
    }
    let host = options.localHost ?? '127.0.0.1'
    if (!isLoopbackHost(host)) {
      throw new TunnelError(`loopback tunnel: "${host}" is not a loopback address`, {code: 'tunnel_invalid'})
    }
    if (host.includes(':') && !host.startsWith('[')) host = `[${host}]`
    return new LoopbackTunnel(`http://${host}:${port}`)
  }
}

/** url = http://127.0.0.1:<port> (offline mode, no tunnel). */
export function loopbackProvider(): LoopbackProvider {
  return new LoopbackProvider()
}

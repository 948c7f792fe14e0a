import {FixableError} from '../lib/errors.js'
import {tunnelProxyHint} from '../lib/proxy.js'

export type TunnelErrorCode =
  | 'tunnel_unreachable' // the tunnel server did not answer before the deadline
  | 'tunnel_refused' // the tunnel server answered with an error (bad subdomain, full, …)
  | 'tunnel_protocol' // the server answered something that is not localtunnel's protocol
  | 'tunnel_connect' // the server answered but its tunnel port could not be reached
  | 'tunnel_aborted' // the caller aborted the start-up
  | 'tunnel_invalid' // bad input (URL, port, subdomain)
  | 'tunnel_missing' // the tunnel program (cloudflared) is not installed or cannot run
  | 'tunnel_exited' // the tunnel program ended (during start-up or after)

/** A tunnel problem, with one line saying what happened and a fix saying what to try. */
export class TunnelError extends FixableError {
  readonly reason: TunnelErrorCode

  constructor(
    message: string,
    options: {fix?: string; code?: TunnelErrorCode; exitCode?: number; cause?: unknown} = {},
  ) {
    const reason = options.code ?? 'tunnel_unreachable'
    super(message, {
      fix: tunnelProxyHint(reason, options.fix),
      exitCode: options.exitCode ?? (reason === 'tunnel_invalid' ? 2 : 1),
      code: reason,
    })
    this.name = 'TunnelError'
    this.reason = reason
    if (options.cause !== undefined) (this as {cause?: unknown}).cause = options.cause
  }
}

export function isTunnelError(err: unknown): err is TunnelError {
  return err instanceof TunnelError
}

/** What to try when localtunnel cannot be used. */
export const TUNNEL_FIX =
  'try a self-hosted localtunnel server with --tunnel-host URL, use a URL you already have ' +
  '(cloudflared, ngrok, a reverse proxy) with --public-url URL, or run without a tunnel with --mode polling'

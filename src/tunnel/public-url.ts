/**
 * public-url provider: a URL the user already has (a reverse proxy, cloudflared, ngrok…) that
 * forwards to the relay's port. It opens nothing, so it is never 'down'.
 */
import {type Tunnel, type TunnelOpenOptions, type TunnelProvider} from './types.js'
import {TunnelError} from './errors.js'

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]', '::1'])

export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase()
  return LOOPBACK_HOSTS.has(h) || h.endsWith('.localhost') || /^127(?:\.\d{1,3}){3}$/.test(h)
}

/**
 * Checks a user-supplied public base URL: it parses, it is https (http only on loopback, for a local
 * Bot API server or the emulator), it has no query, fragment or credentials (a path is appended to it).
 * Returns it without a trailing slash.
 */
export function validatePublicUrl(url: string): string {
  const fix = 'give the https URL that forwards to this machine, e.g. --public-url https://mybot.example.com'
  let parsed: URL
  try {
    parsed = new URL(url.trim())
  } catch {
    throw new TunnelError(`public URL "${url}" is not a URL`, {code: 'tunnel_invalid', fix})
  }
  if (parsed.protocol === 'http:') {
    if (!isLoopbackHost(parsed.hostname)) {
      throw new TunnelError(
        `public URL "${url}" must use https (Telegram only delivers webhooks over https); http is accepted only for loopback`,
        {
          code: 'tunnel_invalid',
          fix,
        },
      )
    }
  } else if (parsed.protocol !== 'https:') {
    throw new TunnelError(`public URL "${url}" must be an https:// URL`, {code: 'tunnel_invalid', fix})
  }
  if (parsed.username || parsed.password) {
    throw new TunnelError('public URL must not contain a user name or password', {code: 'tunnel_invalid', fix})
  }
  if (parsed.search || parsed.hash) {
    throw new TunnelError(
      `public URL "${url}" must not have a query or a fragment (the webhook path is appended to it)`,
      {
        code: 'tunnel_invalid',
        fix,
      },
    )
  }
  return `${parsed.origin}${parsed.pathname}`.replace(/\/+$/, '')
}

class PublicUrlTunnel implements Tunnel {
  readonly provider = 'public-url'
  constructor(readonly url: string) {}
  on(_event: 'down', _cb: (err?: Error) => void): void {
    // Nothing is opened, so nothing can go down.
  }
  async close(): Promise<void> {}
}

export class PublicUrlProvider implements TunnelProvider {
  readonly name = 'public-url'
  readonly url: string

  constructor(url: string) {
    this.url = validatePublicUrl(url)
  }

  async open(options: TunnelOpenOptions): Promise<Tunnel> {
    if (options.signal?.aborted) throw new TunnelError('opening the tunnel was cancelled', {code: 'tunnel_aborted'})
    return new PublicUrlTunnel(this.url)
  }
}

/** The user's own URL; validated now (throws a TunnelError), opens nothing. */
export function publicUrlProvider(url: string): PublicUrlProvider {
  return new PublicUrlProvider(url)
}

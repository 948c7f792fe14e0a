/**
 * Tunnel providers: one file per provider, one factory each, and a table so more can be added.
 * No oclif imports, no printing.
 */
import {localtunnelProvider, type LocaltunnelProviderOptions} from './localtunnel.js'
import {publicUrlProvider} from './public-url.js'
import {loopbackProvider} from './loopback.js'
import type {TunnelProvider} from './types.js'
import {TunnelError} from './errors.js'

export type {Tunnel, TunnelOpenOptions, TunnelProvider} from './types.js'
export {DEFAULT_TUNNEL_TIMEOUT_MS} from './types.js'
export {TunnelError, isTunnelError, TUNNEL_FIX, type TunnelErrorCode} from './errors.js'
export {
  localtunnelProvider,
  LocaltunnelProvider,
  LocaltunnelTunnel,
  DEFAULT_LOCALTUNNEL_HOST,
  validateSubdomain,
  validateTunnelHost,
  type LocaltunnelProviderOptions,
} from './localtunnel.js'
export {publicUrlProvider, PublicUrlProvider, validatePublicUrl, isLoopbackHost} from './public-url.js'
export {loopbackProvider, LoopbackProvider} from './loopback.js'
export {probeTunnel, type ProbeOptions, type ProbeResult} from './probe.js'

/** Options every provider factory may read (each takes what it needs). */
export interface ProviderConfig {
  /** localtunnel: server URL. */
  host?: string
  /** localtunnel: requested subdomain. */
  subdomain?: string
  /** localtunnel: see LocaltunnelProviderOptions. */
  downAfterMs?: number
  /** public-url: the user's URL. */
  url?: string
}

/** The provider table: name → factory. Add a provider by adding a file and a line here. */
export const PROVIDERS: Readonly<Record<string, (config: ProviderConfig) => TunnelProvider>> = Object.freeze({
  localtunnel: (c: ProviderConfig) =>
    localtunnelProvider({host: c.host, subdomain: c.subdomain, downAfterMs: c.downAfterMs} satisfies LocaltunnelProviderOptions),
  'public-url': (c: ProviderConfig) => {
    if (!c.url) throw new TunnelError('the public-url provider needs a URL', {code: 'tunnel_invalid', fix: 'pass --public-url https://…'})
    return publicUrlProvider(c.url)
  },
  loopback: () => loopbackProvider(),
})

export function createProvider(name: string, config: ProviderConfig = {}): TunnelProvider {
  const factory = PROVIDERS[name]
  if (!factory) {
    throw new TunnelError(`unknown tunnel provider "${name}" (known: ${Object.keys(PROVIDERS).join(', ')})`, {code: 'tunnel_invalid'})
  }
  return factory(config)
}

/**
 * Tunnel providers: one file per provider, one factory each, and a table so more can be added.
 * No oclif imports, no printing.
 */
import {localtunnelProvider, type LocaltunnelProviderOptions} from './localtunnel.js'
import {publicUrlProvider} from './public-url.js'
import {loopbackProvider} from './loopback.js'
import {cloudflaredProvider, CLOUDFLARED_ENV} from './cloudflared.js'
import {findExecutable} from './which.js'
import type {TunnelProvider} from './types.js'
import {TunnelError} from './errors.js'

export type {Tunnel, TunnelProvider} from './types.js'
export {TunnelError} from './errors.js'
export {localtunnelProvider, LocaltunnelTunnel, type LocaltunnelProviderOptions} from './localtunnel.js'
export {publicUrlProvider, validatePublicUrl} from './public-url.js'
export {loopbackProvider} from './loopback.js'
export {probeTunnel, proveReachable} from './probe.js'
export {cloudflaredProvider, CloudflaredTunnel, CLOUDFLARED_ENV} from './cloudflared.js'
export {findExecutable} from './which.js'

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
  /** cloudflared: where BOT_CLOUDFLARED and PATH are read (default process.env). */
  env?: NodeJS.ProcessEnv
}

/** The provider table: name → factory. Add a provider by adding a file and a line here. */
export const PROVIDERS: Readonly<Record<string, (config: ProviderConfig) => TunnelProvider>> = Object.freeze({
  localtunnel: (c: ProviderConfig) =>
    localtunnelProvider({
      host: c.host,
      subdomain: c.subdomain,
      downAfterMs: c.downAfterMs,
    } satisfies LocaltunnelProviderOptions),
  'public-url': (c: ProviderConfig) => {
    if (!c.url)
      throw new TunnelError('the public-url provider needs a URL', {
        code: 'tunnel_invalid',
        fix: 'give the public https URL that forwards to the relay',
      })
    return publicUrlProvider(c.url)
  },
  loopback: () => loopbackProvider(),
  cloudflared: (c: ProviderConfig) => cloudflaredProvider({env: c.env}),
})

export function createProvider(name: string, config: ProviderConfig = {}): TunnelProvider {
  const factory = PROVIDERS[name]
  if (!factory) {
    throw new TunnelError(`unknown tunnel provider "${name}" (known: ${Object.keys(PROVIDERS).join(', ')})`, {
      code: 'tunnel_invalid',
    })
  }
  return factory(config)
}

/** The tunnel choices (`bot dev --tunnel`, BOT_TUNNEL). */
export const TUNNEL_CHOICES = ['auto', 'cloudflared', 'localtunnel', 'none'] as const
export type TunnelChoice = (typeof TUNNEL_CHOICES)[number]

/** True when cloudflared can be used: BOT_CLOUDFLARED is set, or `cloudflared` is on PATH. */
export function cloudflaredAvailable(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env[CLOUDFLARED_ENV]) || findExecutable('cloudflared', env) !== undefined
}

/**
 * Which provider a tunnel choice means: auto = cloudflared when BOT_CLOUDFLARED is set or
 * cloudflared is on PATH, else localtunnel. An unknown value is bad input (exit 2) naming the choices.
 */
export function resolveTunnelChoice(
  name: string,
  env: NodeJS.ProcessEnv = process.env,
): 'cloudflared' | 'localtunnel' | 'none' {
  const choice = name.trim().toLowerCase()
  if (choice === 'auto') return cloudflaredAvailable(env) ? 'cloudflared' : 'localtunnel'
  if (choice === 'cloudflared' || choice === 'localtunnel' || choice === 'none') return choice
  throw new TunnelError(`"${name}" is not a tunnel provider`, {
    code: 'tunnel_invalid',
    fix: `use one of ${TUNNEL_CHOICES.join(', ')}`,
  })
}

/**
 * The provider for a tunnel choice (see resolveTunnelChoice), built with `config`; `auto` with a
 * localtunnel host or subdomain in `config` means localtunnel. Null for `none` (the bridge: no
 * public URL; the session decides).
 */
export function chooseTunnelProvider(
  name: TunnelChoice | string,
  env: NodeJS.ProcessEnv = process.env,
  config: ProviderConfig = {},
): TunnelProvider | null {
  const asksForLocaltunnel = name.trim().toLowerCase() === 'auto' && Boolean(config.host || config.subdomain)
  const choice = asksForLocaltunnel ? 'localtunnel' : resolveTunnelChoice(name, env)
  if (choice === 'none') return null
  return createProvider(choice, {...config, env})
}

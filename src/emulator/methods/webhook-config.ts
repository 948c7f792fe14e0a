/**
 * setWebhook, deleteWebhook and getWebhookInfo (Client.cpp process_set_webhook_query, do_set_webhook,
 * process_get_webhook_info_query).
 */
import {lookup} from 'node:dns/promises'
import type * as Tg from '@grammyjs/types'
import {isIP} from 'node:net'
import type {BotState, WebhookSettings} from '../state/bot.js'
import type {Answer, CallContext, Core} from './core.js'
import {
  ApiError,
  CONFLICT_OTHER_SET_WEBHOOK,
  CONFLICT_SET_WEBHOOK,
  badRequest,
  tooManyRequests,
  errorCode,
} from '../errors.js'
import {toBool, toInt, type Params} from '../http/params.js'
import {allowedUpdatesList, parseAllowedUpdates} from '../state/updates.js'
import {isPrivateAddress} from '../media/input.js'

const CLOUD_PORTS = new Set([443, 80, 88, 8443])
const MAX_CERTIFICATE = 3 << 20

/** setWebhook and deleteWebhook share one handler: deleteWebhook is setWebhook with an empty url. */
export async function setWebhook(bot: BotState, params: Params, core: Core, ctx: CallContext): Promise<Answer> {
  const isSet = ctx.method === 'setwebhook'
  const url = isSet ? (params.get('url') ?? '') : ''
  const now = Date.now()
  if (url !== '') {
    if (now - bot.lastSetWebhookAt < core.scale(1000)) throw tooManyRequests(1)
    bot.lastSetWebhookAt = now
  }
  if (isSet) {
    const allowed = parseAllowedUpdates(params.get('allowed_updates'))
    if (allowed) bot.allowed = allowed
  }
  const drop = toBool(params.get('drop_pending_updates'))
  const maxConnections = toInt(params.get('max_connections'), core.local ? 100 : 40, 1, core.local ? 100000 : 100)
  const secret = isSet ? (params.get('secret_token') ?? '') : ''
  const ipAddress = isSet ? (params.get('ip_address') ?? '') : ''
  const certificate = isSet ? params.file('certificate') : undefined
  const current = bot.webhook

  const unchanged =
    !drop &&
    (url === ''
      ? current === undefined
      : current !== undefined &&
        current.url === url &&
        !certificate &&
        !current.hasCustomCertificate &&
        current.maxConnections === maxConnections &&
        (current.secretToken ?? '') === secret &&
        current.fixedIp === (ipAddress !== '') &&
        (current.ipAddress ?? '') === ipAddress)
  if (unchanged)
    return {result: true, description: url === '' ? 'Webhook is already deleted' : 'Webhook is already set'}

  if (url !== '') bot.poll?.fail(CONFLICT_SET_WEBHOOK)
  const existed = current !== undefined
  if (current) {
    core.closeWebhook(bot)
    bot.webhook = undefined
    bot.lastErrorDate = undefined
    bot.lastErrorMessage = undefined
  }
  if (drop) bot.clearQueue()
  if (url === '') return {result: true, description: existed ? 'Webhook was deleted' : 'Webhook is already deleted'}

  const parsed = parseWebhookUrl(url)
  if (!parsed) throw badRequest('invalid webhook URL specified')
  if (secret.length > 256) throw badRequest('secret token is too long')
  if (!/^[A-Za-z0-9_-]*$/.test(secret)) throw badRequest('secret token contains unallowed characters')
  if (certificate && certificate.size > MAX_CERTIFICATE)
    throw badRequest(`certificate size is too big (${certificate.size} bytes)`)

  // While the address is checked, a newer setWebhook replaces this one (which then gets a 409).
  const attempt = {}
  bot.pendingSetWebhook = attempt
  let resolvedIp: string
  try {
    resolvedIp = await checkTarget(parsed, ipAddress, core, bot.privateUrls)
  } finally {
    if (bot.pendingSetWebhook === attempt) bot.pendingSetWebhook = undefined
  }
  if (bot.pendingSetWebhook !== undefined || bot.webhook !== undefined)
    throw await core.conflict(bot, CONFLICT_OTHER_SET_WEBHOOK)
  const settings: WebhookSettings = {
    url,
    maxConnections,
    hasCustomCertificate: certificate !== undefined,
    fixedIp: ipAddress !== '',
    resolvedIp,
    ...(secret ? {secretToken: secret} : {}),
    ...(ipAddress ? {ipAddress} : {}),
    ...(certificate ? {certificate: certificate.data} : {}),
  }
  bot.webhook = settings
  core.openWebhook(bot)
  return {result: true, description: 'Webhook was set'}
}

/** The URL as the server reads it: https when no scheme is given; only http and https. */
export function parseWebhookUrl(url: string): URL | undefined {
  const withScheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(url) ? url : `https://${url}`
  try {
    const parsed = new URL(withScheme)
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return undefined
    if (parsed.hostname === '') return undefined
    return parsed
  } catch {
    return undefined
  }
}

const badWebhook = (reason: string): ApiError => badRequest(`bad webhook: ${reason}`)

/** The webhook worker's start-up checks: port and scheme (cloud), then the address (fixed or resolved). */
async function checkTarget(url: URL, ipAddress: string, core: Core, privateUrls = true): Promise<string> {
  const local = core.local
  if (!local) {
    const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80
    if (!CLOUD_PORTS.has(port)) throw badWebhook('Webhook can be set up only on ports 80, 88, 443 or 8443')
    if (url.protocol !== 'https:') throw badWebhook('An HTTPS URL must be provided for webhook')
  }
  let ip: string
  if (ipAddress !== '') {
    if (isIP(ipAddress) === 0) throw badWebhook('Invalid IP address specified')
    ip = ipAddress
  } else {
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1')
    ip = isIP(host) !== 0 ? host : await resolve(host, local, core.hosts)
  }
  if (!local) {
    if (isIP(ip) === 6) throw badWebhook('IPv6-only addresses are not allowed')
    if (isReservedIpv4(ip)) throw badWebhook(`IP address ${ip} is reserved`)
  }
  // Listening beyond loopback (EmulatorOptions.allowPrivateUrls off): no webhook to this host's loopback
  // or private network, which callers on the network could otherwise make the emulator post to.
  if (!privateUrls && (isReservedIpv4(ip) || isPrivateAddress(ip))) throw badWebhook(`IP address ${ip} is reserved`)
  return ip
}

async function resolve(host: string, local: boolean, hosts: ReadonlyMap<string, string>): Promise<string> {
  // Local mode never asks DNS (tests stay hermetic): localhost names are loopback, the names given as
  // EmulatorOptions.hosts are theirs, any other name is unknown.
  if (local) {
    const name = host.toLowerCase().replace(/\.$/, '')
    if (name === 'localhost' || name.endsWith('.localhost')) return '127.0.0.1'
    const known = hosts.get(name)
    if (known) return known
    throw badWebhook('Failed to resolve host: Name or service not known')
  }
  try {
    const all = await lookup(host, {all: true})
    const v4 = all.find((a) => a.family === 4)
    if (v4) return v4.address
    if (!local) throw badWebhook('IPv6-only addresses are not allowed')
    return all[0].address
  } catch (err) {
    if (err instanceof ApiError) throw err
    const code = errorCode(err)
    const reason =
      code === 'EAI_AGAIN'
        ? 'Temporary failure in name resolution'
        : code === 'ENODATA'
          ? 'No address associated with hostname'
          : 'Name or service not known'
    throw badWebhook(`Failed to resolve host: ${reason}`)
  }
}

const RESERVED_V4: Array<[string, number]> = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
]

const v4ToInt = (ip: string): number => ip.split('.').reduce((acc, part) => acc * 256 + Number(part), 0)

export function isReservedIpv4(ip: string): boolean {
  if (isIP(ip) !== 4) return false
  const n = v4ToInt(ip)
  return RESERVED_V4.some(
    ([base, bits]) => Math.floor(n / 2 ** (32 - bits)) === Math.floor(v4ToInt(base) / 2 ** (32 - bits)),
  )
}

/** WebhookInfo (core.telegram.org/bots/api#webhookinfo); allowed_updates as the bot named them. */
export type WebhookInfo = Omit<Tg.WebhookInfo, 'allowed_updates'> & {allowed_updates?: string[]}

/** The WebhookInfo object, fields in the server's order and presence rules (Client.cpp JsonWebhookInfo). */
export function webhookInfo(bot: BotState): WebhookInfo {
  const w = bot.webhook
  const info: WebhookInfo = {
    url: w?.url ?? '',
    has_custom_certificate: w?.hasCustomCertificate ?? false,
    pending_update_count: (bot.dropExpired(), bot.queue.size),
  }
  if (bot.lastErrorDate !== undefined) {
    info.last_error_date = bot.lastErrorDate
    info.last_error_message = bot.lastErrorMessage ?? ''
  }
  if (w) {
    info.max_connections = w.maxConnections
    info.ip_address = w.resolvedIp ?? '<unknown>'
  }
  const allowed = allowedUpdatesList(bot.allowed)
  if (allowed) info.allowed_updates = allowed
  return info
}

export function getWebhookInfo(bot: BotState): Answer {
  return {result: webhookInfo(bot)}
}

import {isCloudApiRoot} from './client.js'
import {BotApiError} from './errors.js'
import {proxyFix, proxyFor} from '../lib/proxy.js'

export interface Explanation {
  message: string
  fix?: string
}

/** One clear line and a fix for a Bot API failure. Never includes the token. */
export function explainApiError(error: BotApiError, apiRoot: string): Explanation {
  const isDefaultRoot = isCloudApiRoot(apiRoot)
  const proxy = proxyFor(apiRoot)
  switch (error.kind) {
    case 'network':
      if (proxy)
        return {message: `Cannot reach the Bot API at ${apiRoot}: ${error.description}.`, fix: proxyFix(proxy, apiRoot)}
      return {
        message: `Cannot reach the Bot API at ${apiRoot}: ${error.description}.`,
        fix: isDefaultRoot
          ? 'Check your internet connection, proxy (HTTPS_PROXY) and firewall; `bot doctor` checks reachability.'
          : `Check that a Bot API server is running at ${apiRoot}, or unset BOT_API_ROOT to use api.telegram.org.`,
      }
    case 'timeout':
      return {
        message: `The Bot API at ${apiRoot} did not answer in time (${error.method}${proxy ? `, through the proxy ${proxy.hostPort}` : ''}).`,
        fix: proxy ? proxyFix(proxy, apiRoot) : 'Try again; if it persists, run `bot doctor`.',
      }
    case 'aborted':
      return {message: `${error.method} was cancelled.`}
    case 'http':
      if (error.isRedirect)
        return {
          message: `The Bot API at ${apiRoot} redirects (HTTP ${error.code}); bot does not follow redirects with the token.`,
          fix: `Set --api-root / BOT_API_ROOT to the Bot API server's own address (e.g. https://api.telegram.org, or http://127.0.0.1:8081 for a local server), not a URL that forwards elsewhere.`,
        }
      return {
        message: `${error.description}.`,
        fix: isDefaultRoot
          ? 'Telegram is having trouble (a 5xx from its front end); try again in a minute.'
          : `Check that ${apiRoot} is a Bot API server (BOT_API_ROOT / --api-root).`,
      }
    case 'api':
      break
  }
  const d = error.description
  switch (error.code) {
    case 401:
      return {
        message: `Telegram rejected the token (401 ${d}).`,
        fix: 'The token is wrong or was revoked. Get the current one from @BotFather (/mybots → API Token) and put it in .env as BOT_TOKEN.',
      }
    case 404:
      return {
        message: `The Bot API answered 404 ${d} for ${error.method}.`,
        fix: d.includes('method not found')
          ? `This server does not know ${error.method}; check --api-root.`
          : 'The token is malformed (it looks like 123456789:AA…, with no "bot" prefix) or --api-root/BOT_API_ROOT is not a Bot API server.',
      }
    case 409:
      if (error.isWebhookActiveConflict)
        return {
          message: `409 ${d}.`,
          fix: 'A webhook is set, so long polling is refused. Run `bot webhook delete` (pending updates are kept).',
        }
      return {
        message: `409 ${d}.`,
        fix: 'Another process polls with the same token. Run `bot doctor` to find it, and stop it.',
      }
    case 429:
      return {
        message: `Telegram asks to slow down (429${error.retryAfter ? `, retry after ${error.retryAfter}s` : ''}).`,
        fix: error.retryAfter ? `Wait ${error.retryAfter} seconds and try again.` : 'Wait a little and try again.',
      }
    case 400:
      return {message: `${error.method} failed: 400 ${d}.`, fix: badRequestFix(d)}
    default:
      if (error.code >= 500)
        return {
          message: `${error.method} failed: the Bot API server answered ${error.code} ${d}.`,
          fix: isDefaultRoot
            ? 'Telegram is having trouble; try again in a minute.'
            : `Check the Bot API server at ${apiRoot}.`,
        }
      return {message: `${error.method} failed: ${error.code} ${d}.`}
  }
}

/** Fixes for the 400 answers this tool can provoke (mostly setWebhook's "bad webhook: …"). */
function badRequestFix(description: string): string | undefined {
  if (/HTTPS URL must be provided/i.test(description))
    return 'Use an https:// URL; plain http works only with a local Bot API server.'
  if (/ports 80, 88, 443 or 8443/i.test(description)) return 'Serve the webhook on port 443, 80, 88 or 8443.'
  if (/is reserved|IPv6-only/i.test(description))
    return 'Use a host that resolves to a public IPv4 address (a tunnel or your server).'
  if (/Failed to resolve host/i.test(description)) return "Check the host name's DNS A record, or pass --ip-address."
  if (/SSL|certificate/i.test(description))
    return 'Check the certificate file (PEM, public part only) and that it matches the host.'
  if (/secret token/i.test(description)) return 'Use 1-256 characters of A-Z, a-z, 0-9, _ and -.'
  if (/invalid webhook URL/i.test(description)) return 'Pass a full URL such as https://example.com/webhook.'
  return undefined
}

import {BotApiError} from '../telegram/errors.js'

export interface Explanation {
  message: string
  fix?: string
}

/** One clear line and a fix for a Bot API failure. Never includes the token. */
export function explainApiError(error: BotApiError, apiRoot: string): Explanation {
  const isDefaultRoot = /^https:\/\/api\.telegram\.org\/?$/.test(apiRoot)
  switch (error.kind) {
    case 'network':
      return {
        message: `Cannot reach the Bot API at ${apiRoot} (${error.causeCode ?? 'network error'}).`,
        fix: isDefaultRoot
          ? 'Check your internet connection, proxy (HTTPS_PROXY) and firewall; `bot doctor` checks reachability.'
          : `Check that a Bot API server is running at ${apiRoot}, or unset BOT_API_ROOT to use api.telegram.org.`,
      }
    case 'timeout':
      return {message: `The Bot API at ${apiRoot} did not answer in time (${error.method}).`, fix: 'Try again; if it persists, run `bot doctor`.'}
    case 'aborted':
      return {message: `${error.method} was cancelled.`}
    case 'http':
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
        return {message: `409 ${d}.`, fix: 'A webhook is set, so long polling is refused. Run `bot webhook delete` (pending updates are kept).'}
      return {
        message: `409 ${d}.`,
        fix: 'Another process polls with the same token. Run `bot doctor` to find it, and stop it.',
      }
    case 429:
      return {
        message: `Telegram asks to slow down (429${error.retryAfter ? `, retry after ${error.retryAfter}s` : ''}).`,
        fix: error.retryAfter ? `Wait ${error.retryAfter} seconds and try again.` : 'Wait a little and try again.',
      }
    default:
      return {message: `${error.method} failed: ${error.code} ${d}.`}
  }
}

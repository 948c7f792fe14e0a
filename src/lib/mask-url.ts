/**
 * Webhook URLs as we print them. A webhook's path is often a secret (`bot dev` uses a random
 * /webhook/<random> path: half of what a forger needs, the secret header being the other half),
 * and a query string may carry one too. One rule, for every place that shows a webhook URL:
 *
 * - the origin is kept (scheme, host, port); credentials become `…@`;
 * - the first path segment is kept when more path follows it, or when it is short (≤ 12 characters:
 *   a word like /hook, /telegram); a lone longer segment is treated as the secret part;
 * - of the secret part (everything after the first segment) at most 4 characters are kept, then `…`;
 * - a query string becomes `?…` and a fragment `#…`.
 *
 * `https://x.trycloudflare.com/webhook/Zq3v9K…` from `https://x.trycloudflare.com/webhook/Zq3v9Kx…`.
 */

const KEPT_CHARS = 4
const SHORT_SEGMENT = 12

function hint(secret: string): string {
  return secret.length <= KEPT_CHARS ? secret : `${secret.slice(0, KEPT_CHARS)}…`
}

/** A URL's path (no query), masked by the rule above. */
export function maskPath(path: string): string {
  if (!path.startsWith('/')) return hint(path)
  const slash = path.indexOf('/', 1)
  if (slash === -1) {
    const only = path.slice(1)
    return `/${only.length <= SHORT_SEGMENT ? only : hint(only)}`
  }
  return `${path.slice(0, slash + 1)}${hint(path.slice(slash + 1))}`
}

/** A path that may carry a query string and a fragment (what a server sees as req.url). */
export function maskPathAndQuery(pathAndQuery: string): string {
  const cut = pathAndQuery.search(/[?#]/)
  if (cut === -1) return maskPath(pathAndQuery)
  const tail = pathAndQuery.slice(cut)
  const query = tail.startsWith('?') ? '?…' : ''
  const fragment = tail.includes('#') ? '#…' : ''
  return maskPath(pathAndQuery.slice(0, cut)) + query + fragment
}

/** `url` with its secret parts masked; text that is no URL keeps only what precedes its path. */
export function maskUrl(url: string): string {
  let u: URL
  try {
    u = new URL(url)
  } catch {
    const m = /^([a-z][a-z\d+.-]*:\/\/)?([^/?#]*)([/?#].*)?$/is.exec(url)
    if (!m) return '…'
    const host = m[2].includes('@') ? `…@${m[2].slice(m[2].lastIndexOf('@') + 1)}` : m[2]
    return `${m[1] ?? ''}${host}${m[3] ? maskPathAndQuery(m[3]) : ''}`
  }
  if (!u.host) return `${u.protocol}…`
  const credentials = u.username || u.password ? '…@' : ''
  return `${u.protocol}//${credentials}${u.host}${maskPath(u.pathname)}${u.search ? '?…' : ''}${u.hash ? '#…' : ''}`
}

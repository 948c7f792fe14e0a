/**
 * Token redaction. A bot token is `<bot id>:<secret>`; the secret part alone is
 * enough to steal a bot, so both the whole token and the secret are replaced,
 * in plain and URL-encoded form.
 */
export const REDACTED = '<token>'

/** Anything shaped like a bot token (`<id>:<30+ base64url chars>`). */
export const TOKEN_SHAPE = /\b\d{5,16}:[A-Za-z0-9_-]{30,}/g

function variants(token: string): string[] {
  const out = new Set<string>()
  const add = (s: string) => {
    if (s.length >= 8) out.add(s)
  }
  add(token)
  add(encodeURIComponent(token))
  const colon = token.indexOf(':')
  if (colon > 0) {
    const secret = token.slice(colon + 1)
    add(secret)
    add(encodeURIComponent(secret))
  }
  // Longest first so the whole token is replaced before its secret part.
  return [...out].sort((a, b) => b.length - a.length)
}

/** Replace every occurrence of any of the tokens (and their secret parts) in `text`. */
export function redact(text: string, ...tokens: Array<string | undefined>): string {
  let result = text
  for (const token of tokens) {
    if (!token) continue
    for (const v of variants(token)) result = result.split(v).join(REDACTED)
  }
  return result
}

/**
 * One expression that matches every form `redact` replaces, of all the tokens (longest first), and
 * whatever the `extra` expressions match: for text redacted often, in a single pass.
 */
export function redactionPattern(tokens: Array<string | undefined>, ...extra: RegExp[]): RegExp {
  const forms = new Set<string>()
  for (const token of tokens) if (token) for (const v of variants(token)) forms.add(v)
  const escaped = [...forms].sort((a, b) => b.length - a.length).map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
  const alternatives = [...escaped, ...extra.map((e) => e.source)]
  // Nothing to find: an expression that never matches (an empty one would match everywhere).
  return new RegExp(alternatives.length > 0 ? alternatives.join('|') : '(?!)', 'g')
}

/** A redactor bound to a set of tokens, for passing around to loggers. */
export function redactor(...tokens: Array<string | undefined>): (text: string) => string {
  return (text) => redact(text, ...tokens)
}

/** Redact the given tokens (whole, secret part, URL-encoded) and anything token-shaped. */
export function redactSecrets(text: string, secrets: Array<string | undefined>): string {
  return redact(text, ...secrets).replace(TOKEN_SHAPE, REDACTED)
}

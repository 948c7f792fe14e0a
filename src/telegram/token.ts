/** Token format helpers. Nothing here ever returns the secret part of a token. */

/** The shape Telegram issues: a positive bot id, a colon, a 35-character base64url secret. */
const STRICT = /^[1-9]\d{0,15}:[A-Za-z0-9_-]{30,}$/

export interface TokenShape {
  /** True when the token has the shape BotFather issues. */
  valid: boolean
  /** The numeric bot id (the part before the colon), when present. */
  botId?: number
  /** Why the shape is wrong, in words a user can act on. */
  problem?: string
}

export function inspectToken(token: string): TokenShape {
  const trimmed = token.trim()
  if (trimmed !== token) return {valid: false, problem: 'it has leading or trailing whitespace'}
  if (/^["'].*["']$/.test(token)) return {valid: false, problem: 'it is wrapped in quotes'}
  if (token.toLowerCase().startsWith('bot') && token.includes(':'))
    return {valid: false, problem: 'it starts with "bot" (pass the token alone, without the "bot" prefix of the URL)'}
  const colon = token.indexOf(':')
  if (colon < 0) return {valid: false, problem: 'it has no ":" between the bot id and the secret'}
  const idPart = token.slice(0, colon)
  if (!/^[1-9]\d*$/.test(idPart)) return {valid: false, problem: 'the part before ":" is not a bot id (digits)'}
  const botId = Number(idPart)
  if (!STRICT.test(token))
    return {valid: false, botId, problem: 'the part after ":" is not 30+ characters of A-Z a-z 0-9 _ -'}
  return {valid: true, botId}
}

/** The numeric id of the bot a token belongs to, or undefined when it cannot be read. */
export function botIdOf(token: string): number | undefined {
  const m = /^(\d+):/.exec(token)
  return m ? Number(m[1]) : undefined
}

/**
 * The one check every command runs before a request carries a token: undefined when the token
 * has the shape BotFather issues, else the one-line message (naming where the value came from,
 * never the value) and the fix. `where` is e.g. "--token" or "BOT_TOKEN in .env".
 */
export function checkTokenShape(token: string, where: string): {message: string; fix: string} | undefined {
  const shape = inspectToken(token)
  if (shape.valid) return undefined
  return {
    message: `The bot token (${where}) is malformed: ${shape.problem}.`,
    fix: 'Copy the token again from @BotFather (/mybots → your bot → API Token): it looks like 123456789:AA… (digits, ":", 30+ of A-Z a-z 0-9 _ -) with nothing around it. Nothing was sent.',
  }
}

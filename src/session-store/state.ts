/**
 * Dev session state: one small JSON file per bot (keyed by bot id, never the token), mode 0600,
 * written atomically. It records what a running `bot dev` changed so that a run killed with
 * SIGKILL can be repaired by the next `bot dev` and reported by `bot doctor`.
 *
 * Also holds the per-bot webhook secret (`<id>.secret`, 0600) so the secret_token stays the
 * same across runs.
 */
import {randomBytes} from 'node:crypto'
import {chmodSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync} from 'node:fs'
import {homedir} from 'node:os'
import {join} from 'node:path'

export interface WebhookRecord {
  url: string
  maxConnections?: number
  allowedUpdates?: string[]
}

export interface ReplacedWebhook extends WebhookRecord {
  hasCustomCertificate?: boolean
  ipAddress?: string
  /** A --restore-secret was given for it: kept next to the state (restore-secret-<id>, 0600), never in this file. */
  withSecret?: boolean
}

export interface SessionState {
  version: 1
  botId: number
  botUsername?: string
  pid: number
  startedAt: string
  cwd: string
  mode: 'webhook' | 'polling'
  apiRoot: string
  /** What we set (no secret). */
  webhook?: WebhookRecord
  /** The webhook that was there before (a production webhook replaced with --force), restored on exit. */
  replaced?: ReplacedWebhook
  /** Process group of the bot child, and the marker put in its environment, so an orphan can be found. */
  bot?: {pid: number; marker: string}
  /** The tunnel program (cloudflared: its process group) and the marker in its environment (BOT_DEV_TUNNEL), while it runs. */
  tunnel?: {pid: number; marker: string}
}

/** $BOT_STATE_DIR, else $XDG_STATE_HOME/bot, else ~/.local/state/bot. */
export function stateDir(): string {
  if (process.env.BOT_STATE_DIR) return process.env.BOT_STATE_DIR
  if (process.env.XDG_STATE_HOME) return join(process.env.XDG_STATE_HOME, 'bot')
  return join(homedir(), '.local', 'state', 'bot')
}

function ensureDir(dir: string): void {
  mkdirSync(dir, {recursive: true, mode: 0o700})
}

export function statePath(botId: number, dir = stateDir()): string {
  return join(dir, `session-${botId}.json`)
}

function parseState(text: string): SessionState | undefined {
  try {
    const value = JSON.parse(text) as SessionState
    if (value && value.version === 1 && typeof value.botId === 'number' && typeof value.pid === 'number') return value
  } catch {
    // A torn or foreign file is treated as absent.
  }
  return undefined
}

export function readState(botId: number, dir = stateDir()): SessionState | undefined {
  try {
    return parseState(readFileSync(statePath(botId, dir), 'utf8'))
  } catch {
    return undefined
  }
}

export function listStates(dir = stateDir()): SessionState[] {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return []
  }
  const out: SessionState[] = []
  for (const name of names) {
    if (!/^session-\d+\.json$/.test(name)) continue
    try {
      const s = parseState(readFileSync(join(dir, name), 'utf8'))
      if (s) out.push(s)
    } catch {
      // vanished between readdir and read
    }
  }
  return out
}

function tempFile(dir: string, text: string): string {
  const tmp = join(dir, `.tmp-${process.pid}-${randomBytes(4).toString('hex')}`)
  writeFileSync(tmp, text, {mode: 0o600})
  chmodSync(tmp, 0o600) // in case the umask widened nothing but the file existed
  return tmp
}

/** Replace the state file atomically (write a temp file, rename over). */
export function writeState(state: SessionState, dir = stateDir()): void {
  ensureDir(dir)
  const tmp = tempFile(dir, JSON.stringify(state, null, 2) + '\n')
  renameSync(tmp, statePath(state.botId, dir))
}

/**
 * Create the state file only if none exists (atomic: link fails with EEXIST). Returns false when
 * another file is already there, so two `bot dev` starting at once cannot both claim a bot.
 */
export function claimState(state: SessionState, dir = stateDir()): boolean {
  ensureDir(dir)
  const tmp = tempFile(dir, JSON.stringify(state, null, 2) + '\n')
  try {
    linkSync(tmp, statePath(state.botId, dir))
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  } finally {
    try {
      unlinkSync(tmp)
    } catch {
      // already gone
    }
  }
}

export function removeState(botId: number, dir = stateDir()): void {
  try {
    unlinkSync(statePath(botId, dir))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
}

/** Telegram's rule for secret_token: 1-256 characters of A-Z a-z 0-9 _ -. */
export const SECRET_RE = /^[A-Za-z0-9_-]{1,256}$/

/** Where the per-bot webhook secret is kept. */
export function secretPath(botId: number, dir = stateDir()): string {
  return join(dir, `secret-${botId}`)
}

/** The per-bot webhook secret, created on first use and kept (0600) so it is stable across runs. */
export function loadOrCreateSecret(botId: number, dir = stateDir()): string {
  const path = secretPath(botId, dir)
  try {
    const existing = readFileSync(path, 'utf8').trim()
    if (SECRET_RE.test(existing)) return existing
  } catch {
    // not created yet
  }
  ensureDir(dir)
  const secret = randomBytes(32).toString('base64url')
  const tmp = tempFile(dir, secret + '\n')
  renameSync(tmp, path)
  return secret
}

function restoreSecretPath(botId: number, dir: string): string {
  return join(dir, `restore-secret-${botId}`)
}

/** Keep the --restore-secret of a replaced webhook (0600) so a crash repair can restore it whole. */
export function saveRestoreSecret(botId: number, secret: string, dir = stateDir()): void {
  ensureDir(dir)
  renameSync(tempFile(dir, secret + '\n'), restoreSecretPath(botId, dir))
}

export function readRestoreSecret(botId: number, dir = stateDir()): string | undefined {
  try {
    const value = readFileSync(restoreSecretPath(botId, dir), 'utf8').trim()
    return SECRET_RE.test(value) ? value : undefined
  } catch {
    return undefined
  }
}

export function removeRestoreSecret(botId: number, dir = stateDir()): void {
  try {
    unlinkSync(restoreSecretPath(botId, dir))
  } catch {
    // not there
  }
}

/**
 * Dev session state: one small JSON file per bot (keyed by bot id, never the token), mode 0600,
 * written atomically. It records what a running `bot dev` changed so that a run killed with
 * SIGKILL can be repaired by the next `bot dev` and reported by `bot doctor`.
 *
 * Also holds the per-bot webhook secret (`secret-<id>`, 0600) so the secret_token stays the
 * same across runs. Every file goes through private-files.ts: the folder must be the user's own and
 * writable by nobody else, nothing is read through a symlink, temp files have random names and are
 * created exclusively, and a secret is used only from a 0600 file of the user's.
 */
import {randomBytes} from 'node:crypto'
import {linkSync, readdirSync, unlinkSync} from 'node:fs'
import {homedir} from 'node:os'
import {join} from 'node:path'

import {anchored, createTempFile, ensureStateFolder, readPrivateFile, writePrivateFile} from './private-files.js'
import {codeOf} from '../lib/errors.js'

export {stateFolderProblem, UnsafeStateFolder} from './private-files.js'

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

/** The bot's default menu button a session set (`bot dev --web-app`), and the one it replaced, put back on exit. */
export interface MenuButtonRecord {
  /** The app's URL the session's web_app button opens. */
  url: string
  /** The button there before (getChatMenuButton without chat_id), as the Bot API gave it. */
  previous: Record<string, unknown>
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
  /**
   * The other bot processes of the session still running (a restart starts the new bot while the
   * old one still runs): each stopped too when the session died. Absent in older files.
   */
  others?: Array<{pid: number; marker: string}>
  /** The tunnel program (cloudflared: its process group) and the marker in its environment (BOT_DEV_TUNNEL), while it runs. */
  tunnel?: {pid: number; marker: string}
  /** The default menu button set for --web-app (and the one it replaced), while it may be set. */
  menuButton?: MenuButtonRecord
}

/** $BOT_STATE_DIR, else $XDG_STATE_HOME/bot, else ~/.local/state/bot. */
export function stateDir(): string {
  if (process.env.BOT_STATE_DIR) return process.env.BOT_STATE_DIR
  if (process.env.XDG_STATE_HOME) return join(process.env.XDG_STATE_HOME, 'bot')
  return join(homedir(), '.local', 'state', 'bot')
}

/** The folder, created 0700 when missing; throws UnsafeStateFolder when another user owns or can write it. */
function ensureDir(dir: string): void {
  ensureStateFolder(dir)
}

export function statePath(botId: number, dir = stateDir()): string {
  return join(dir, `session-${botId}.json`)
}

/** A state file's JSON is trusted as ours when it names its version, bot and process (the session that wrote it). */
function isSessionState(value: unknown): value is SessionState {
  if (typeof value !== 'object' || value === null) return false
  const s: Partial<Record<keyof SessionState, unknown>> = value
  return s.version === 1 && typeof s.botId === 'number' && typeof s.pid === 'number'
}

function parseState(text: string): SessionState | undefined {
  try {
    const value: unknown = JSON.parse(text)
    if (isSessionState(value)) return value
  } catch {
    // A torn or foreign file is treated as absent.
  }
  return undefined
}

export function readState(botId: number, dir = stateDir()): SessionState | undefined {
  const text = readPrivateFile(statePath(botId, dir), {max: 1024 * 1024})
  return text === undefined ? undefined : parseState(text)
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
    const text = readPrivateFile(join(dir, name), {max: 1024 * 1024}) // undefined: vanished, or not ours
    const s = text === undefined ? undefined : parseState(text)
    if (s) out.push(s)
  }
  return out
}

/** Replace the state file atomically (write a temp file, rename over). */
export function writeState(state: SessionState, dir = stateDir()): void {
  ensureDir(dir)
  writePrivateFile(dir, statePath(state.botId, dir), JSON.stringify(state, null, 2) + '\n')
}

/**
 * Create the state file only if none exists (atomic: link fails with EEXIST). Returns false when
 * another file is already there, so two `bot dev` starting at once cannot both claim a bot.
 */
export function claimState(state: SessionState, dir = stateDir()): boolean {
  ensureDir(dir)
  const tmp = createTempFile(dir, JSON.stringify(state, null, 2) + '\n')
  try {
    linkSync(tmp, anchored(statePath(state.botId, dir)))
    return true
  } catch (error) {
    if (codeOf(error) === 'EEXIST') return false
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
    unlinkSync(anchored(statePath(botId, dir)))
  } catch (error) {
    if (codeOf(error) !== 'ENOENT') throw error
  }
}

/** Telegram's rule for secret_token: 1-256 characters of A-Z a-z 0-9 _ -. */
export const SECRET_RE = /^[A-Za-z0-9_-]{1,256}$/

/** Where the per-bot webhook secret is kept. */
export function secretPath(botId: number, dir = stateDir()): string {
  return join(dir, `secret-${botId}`)
}

/**
 * The per-bot webhook secret, created on first use and kept (0600) so it is stable across runs. A
 * file that is not the user's own, not 0600, a symlink or not a secret is not used: a new secret
 * replaces it.
 */
export function loadOrCreateSecret(botId: number, dir = stateDir()): string {
  ensureDir(dir)
  const path = secretPath(botId, dir)
  const existing = readPrivateFile(path, {secret: true, max: 1024})?.trim()
  if (existing !== undefined && SECRET_RE.test(existing)) return existing
  const secret = randomBytes(32).toString('base64url')
  writePrivateFile(dir, path, secret + '\n')
  return secret
}

function restoreSecretPath(botId: number, dir: string): string {
  return join(dir, `restore-secret-${botId}`)
}

/** Keep the --restore-secret of a replaced webhook (0600) so a crash repair can restore it whole. */
export function saveRestoreSecret(botId: number, secret: string, dir = stateDir()): void {
  ensureDir(dir)
  writePrivateFile(dir, restoreSecretPath(botId, dir), secret + '\n')
}

/** The kept --restore-secret, when its file is the user's own and 0600. */
export function readRestoreSecret(botId: number, dir = stateDir()): string | undefined {
  const value = readPrivateFile(restoreSecretPath(botId, dir), {secret: true, max: 1024})?.trim()
  return value !== undefined && SECRET_RE.test(value) ? value : undefined
}

export function removeRestoreSecret(botId: number, dir = stateDir()): void {
  try {
    unlinkSync(anchored(restoreSecretPath(botId, dir)))
  } catch {
    // not there
  }
}

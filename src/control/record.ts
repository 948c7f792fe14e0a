/**
 * The control record: a running `bot dev` session leaves `control-<pid>.json` (0600, written
 * atomically, no token) in the state folder, naming its loopback control port and key, so that
 * `bot trigger` and `bot replay` can find it. Removed at exit; a record whose process is gone is
 * stale, ignored and removed by the next lookup. A record is read only from a regular file of the
 * user's own (never through a symlink): one planted by another user is ignored.
 */
import {readdirSync, realpathSync, unlinkSync} from 'node:fs'
import {join, resolve} from 'node:path'

import {projectFolders} from '../lib/project-folders.js'
import {anchored, ensureStateFolder, readPrivateFile, writePrivateFile} from '../session-store/private-files.js'
import {isPidAlive} from '../session-store/processes.js'
import {stateDir} from '../session-store/state.js'
import type {ControlRecord} from './protocol.js'

const NAME = /^control-(\d+)\.json$/

export function controlRecordPath(pid: number, dir = stateDir()): string {
  return join(dir, `control-${pid}.json`)
}

/** Writes the record atomically (temp file 0600, rename); returns its path. */
export function writeControlRecord(record: ControlRecord, dir = stateDir()): string {
  ensureStateFolder(dir)
  const path = controlRecordPath(record.pid, dir)
  writePrivateFile(dir, path, JSON.stringify(record, null, 2) + '\n')
  return path
}

/** Removes the record of `pid` (nothing when there is none). */
export function removeControlRecord(pid: number, dir = stateDir()): void {
  try {
    unlinkSync(anchored(controlRecordPath(pid, dir)))
  } catch {
    // already gone
  }
}

/** A record's JSON is trusted when it is the one of `pid`, with a bot id, a folder, a port and a key. */
function isControlRecord(value: unknown, pid: number): value is ControlRecord {
  if (typeof value !== 'object' || value === null) return false
  const r: Partial<Record<keyof ControlRecord, unknown>> = value
  return (
    r.version === 1 &&
    r.pid === pid &&
    Number.isSafeInteger(r.botId) &&
    typeof r.cwd === 'string' &&
    typeof r.port === 'number' &&
    Number.isInteger(r.port) &&
    r.port > 0 &&
    r.port < 65_536 &&
    typeof r.key === 'string' &&
    r.key.length > 0
  )
}

function parseRecord(text: string, pid: number): ControlRecord | undefined {
  try {
    const r: unknown = JSON.parse(text)
    if (isControlRecord(r, pid)) return r
  } catch {
    // torn or foreign: treated as absent
  }
  return undefined
}

/** Every record of a live session (stale ones are removed on the way). */
export function listControlRecords(dir = stateDir()): ControlRecord[] {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return []
  }
  const out: ControlRecord[] = []
  for (const name of names) {
    const m = NAME.exec(name)
    if (!m) continue
    const pid = Number(m[1])
    if (!isPidAlive(pid)) {
      removeControlRecord(pid, dir)
      continue
    }
    const text = readPrivateFile(join(dir, name), {max: 64 * 1024})
    if (text === undefined) continue // vanished between readdir and read, or not the user's
    const record = parseRecord(text, pid)
    if (record) out.push(record)
  }
  return out
}

function samePath(a: string, b: string): boolean {
  const real = (p: string) => {
    try {
      return realpathSync(p)
    } catch {
      return resolve(p)
    }
  }
  return resolve(a) === resolve(b) || real(a) === real(b)
}

function newest(records: ControlRecord[]): ControlRecord | undefined {
  const time = (r: ControlRecord) => {
    const t = Date.parse(r.startedAt)
    return Number.isNaN(t) ? 0 : t
  }
  return records.sort((a, b) => time(b) - time(a) || b.pid - a.pid)[0]
}

/**
 * The running session to talk to: with a bot id (from the token's prefix), the newest live
 * session of that bot; else the newest live session started in `cwd` or, when none, in the nearest
 * folder above it within the project (lib/project-folders.ts). An offline session found so also
 * answers for a bot id (it runs a fake bot, whatever token .env holds).
 */
export function findControlRecord(o: {botId?: number; cwd: string; dir?: string}): ControlRecord | undefined {
  const live = listControlRecords(o.dir)
  // The session of this folder, else of the nearest folder above it in the project (a trigger typed
  // in src/ finds the session started at the package's root, as `bot dev` finds package.json).
  let here: ControlRecord[] = []
  for (const folder of projectFolders(o.cwd)) {
    here = live.filter((r) => samePath(r.cwd, folder))
    if (here.length > 0) break
  }
  if (o.botId === undefined) return newest(here)
  return newest(live.filter((r) => r.botId === o.botId)) ?? newest(here.filter((r) => r.offline))
}

/**
 * The history's file: one JSON line per version of an entry (`{"session":…,…entry}`), 0600 in a
 * 0700 folder, appended as entries change. A later line of the same session and seq replaces an
 * earlier one. The file is compacted at start and whenever it has grown well past what it needs,
 * so it holds about the newest `limit` entries and never grows without bound. The file is never
 * opened through a symlink, and a compaction writes a temp file with a random name, created
 * exclusively (session-store/private-files.ts): a file planted in the folder is not followed.
 */
import {closeSync, existsSync, lstatSync, readSync} from 'node:fs'
import {dirname} from 'node:path'

import {
  appendPrivateFile,
  ensureStateFolder,
  openPrivateFile,
  touchPrivateFile,
  writePrivateFile,
} from '../../session-store/private-files.js'
import type {UpdateEntry} from '../types.js'
import {messageOf} from '../../lib/errors.js'

/** Most bytes read from the end of a log (older lines are ignored). */
const READ_MAX = 64 * 1024 * 1024
/** Most bytes a compacted log keeps (newest entries first). */
const KEEP_MAX = 32 * 1024 * 1024

type LogLine = UpdateEntry & {session?: string}

/** A line of the log is taken as an entry when it has its update id and sequence number (the session wrote it). */
function isLogLine(value: unknown): value is LogLine {
  if (!value || typeof value !== 'object') return false
  const line: Partial<Record<keyof LogLine, unknown>> = value
  return typeof line.updateId === 'number' && typeof line.seq === 'number'
}

/** The entries of a log file, oldest first, the newest version of each; [] when missing or unreadable. */
export function readLogFile(file: string): UpdateEntry[] {
  return [...readVersions(file).values()].map(({entry}) => entry)
}

function readVersions(file: string): Map<string, {entry: UpdateEntry; line: string}> {
  const versions = new Map<string, {entry: UpdateEntry; line: string}>()
  let text: string
  try {
    text = readTail(file, READ_MAX)
  } catch {
    return versions
  }
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue
    let parsed: unknown
    try {
      parsed = JSON.parse(line)
    } catch {
      continue // a line cut by a crash
    }
    if (!isLogLine(parsed)) continue
    const {session, ...entry} = parsed
    const key = `${session ?? ''}:${entry.seq}`
    const known = versions.get(key)
    // Keep the entry's first position (its arrival), with its newest contents.
    if (known) {
      known.entry = entry
      known.line = line
    } else versions.set(key, {entry, line})
  }
  return versions
}

function readTail(file: string, max: number): string {
  const opened = openPrivateFile(file)
  if (!opened) throw new Error(`${file} cannot be read as a file of yours`)
  const {fd, size} = opened
  try {
    const length = Math.min(size, max)
    const buffer = Buffer.alloc(length)
    let read = 0
    while (read < length) {
      const n = readSync(fd, buffer, read, length - read, size - length + read)
      if (n <= 0) break
      read += n
    }
    return buffer.toString('utf8', 0, read)
  } finally {
    closeSync(fd)
  }
}

export class HistoryLog {
  readonly file: string
  #limit: number
  #session: string
  #onError: (message: string) => void
  #json: (entry: UpdateEntry) => string | undefined
  #failed = false
  /** Lines and bytes appended since the last compaction. */
  #lines = 0
  #bytes = 0
  /** The last line written for each entry (a compaction from memory reuses it). */
  #written = new WeakMap<UpdateEntry, string>()

  constructor(
    file: string,
    o: {
      limit: number
      session: string
      onError: (message: string) => void
      /** An entry's update as the JSON it arrived in, when the history kept it. */
      json: (entry: UpdateEntry) => string | undefined
    },
  ) {
    this.file = file
    this.#json = o.json
    this.#limit = o.limit
    this.#session = o.session
    this.#onError = o.onError
    this.#guard(() => {
      ensureStateFolder(dirname(file))
      if (existsSync(file) || isSymlink(file)) this.compact()
      else touchPrivateFile(file)
    })
  }

  /**
   * Append the current version of these entries. `memory` (oldest first) is what the history holds:
   * once it holds `limit` entries, a compaction writes them out instead of reading the file back.
   */
  append(entries: UpdateEntry[], memory: () => UpdateEntry[] = () => []): void {
    if (this.#failed || entries.length === 0) return
    let text = ''
    for (const entry of entries) {
      const line = this.#line(entry)
      this.#written.set(entry, line)
      text += line + '\n'
    }
    this.#guard(() => {
      appendPrivateFile(this.file, text)
      this.#lines += entries.length
      this.#bytes += text.length
      if (this.#lines <= 2 * this.#limit && this.#bytes <= KEEP_MAX / 2) return
      const current = memory()
      if (current.length >= this.#limit) this.#rewrite(current.map((e) => this.#written.get(e) ?? this.#line(e)))
      else this.compact()
    })
  }

  /** Rewrite the file with the newest version of the newest `limit` entries (within KEEP_MAX bytes). */
  compact(): void {
    this.#guard(() => this.#rewrite([...readVersions(this.file).values()].map((v) => v.line)))
  }

  /** Write these lines (oldest first), the newest `limit` of them within KEEP_MAX bytes, in place of the file. */
  #rewrite(lines: string[]): void {
    const kept: string[] = []
    let bytes = 0
    for (let i = lines.length - 1; i >= 0 && kept.length < this.#limit; i--) {
      bytes += lines[i].length + 1
      if (bytes > KEEP_MAX) break
      kept.push(lines[i])
    }
    writePrivateFile(
      dirname(this.file),
      this.file,
      kept
        .reverse()
        .map((l) => l + '\n')
        .join(''),
    )
    this.#lines = 0
    this.#bytes = 0
  }

  /** Size of the file now (0 when missing). */
  size(): number {
    try {
      return lstatSync(this.file).size
    } catch {
      return 0
    }
  }

  #line(entry: UpdateEntry): string {
    // The update as the JSON it arrived in (redacted): not serialised again.
    const json = this.#json(entry)
    if (json === undefined) return JSON.stringify({session: this.#session, ...entry})
    const line = JSON.stringify({session: this.#session, ...entry, update: undefined})
    return `${line.slice(0, -1)},"update":${json}}`
  }

  /** A log that cannot be written (a full disk, a read-only folder) is reported once and then left alone. */
  #guard(fn: () => void): void {
    if (this.#failed) return
    try {
      fn()
    } catch (error) {
      this.#failed = true
      try {
        this.#onError(
          `The update history cannot be written to ${this.file} (${messageOf(error)}); it is kept in memory only.`,
        )
      } catch {
        // a broken listener changes nothing
      }
    }
  }
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink()
  } catch {
    return false
  }
}

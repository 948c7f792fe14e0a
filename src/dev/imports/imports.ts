/**
 * Which files of the project the bot loaded, for the file watcher (watch.ts): a Node bot is started
 * with preload.cts in NODE_OPTIONS (`--require`), which appends the path of each project file it
 * loads to a file in a private folder made for the session (0700, removed at its end). The watcher
 * reads what was added when a change comes in. A bot that is not Node (or a Node without module
 * hooks) reports nothing, and the watcher goes by extension. The same folder holds the socket
 * where the preload says when the bot's servers listen (listens.ts).
 */
import {closeSync, existsSync, mkdtempSync, openSync, readSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join, relative, sep} from 'node:path'
import {fileURLToPath} from 'node:url'

import {ListenReports} from './listens.js'

/** The most of the report read (a bot loading more project files than this is watched by what was read). */
const MAX_REPORT_BYTES = 8 * 1024 * 1024

/**
 * Which project files a bot process loaded since it was started, as far as its reports tell
 * (ImportLog): `mark()` at its spawn, then `loadedSince(mark, rel)`.
 */
export interface LoadReports {
  /** Where the report stands now: what is reported after this comes from processes started since. */
  mark(): number
  /**
   * Whether `rel` (relative to the project folder, with `/`) may have been loaded since `mark`:
   * false only when it is a module the bot loads (reported before) and no report of it came since.
   */
  loadedSince(mark: number, rel: string): boolean
}

/** The preload's path in this build (dist/dev/imports/preload.cjs; from the sources under tsx, none). */
function preloadPath(): string {
  return join(dirname(fileURLToPath(import.meta.url)), 'preload.cjs')
}

/** A value for NODE_OPTIONS: a path in double quotes, `\` and `"` escaped (Node's own parsing of it). */
function quoted(path: string): string {
  return `"${path.replace(/[\\"]/g, '\\$&')}"`
}

export class ImportLog implements LoadReports {
  readonly #dir: string
  readonly #file: string
  readonly #root: string
  /** Project-relative paths (with `/`) the bot loaded, across its restarts: where in the report each came last. */
  readonly #loaded = new Map<string, number>()
  #offset = 0
  #partial = ''
  #closed = false
  /** Where the bot's preload says that a server of it listens (the runner's wait for PORT). */
  readonly listens: ListenReports

  /** `root`: the project folder (the watcher's cwd): only files under it are reported. */
  constructor(root: string) {
    this.#root = root
    this.#dir = mkdtempSync(join(tmpdir(), 'bot-dev-imports-'))
    this.#file = join(this.#dir, 'loaded')
    writeFileSync(this.#file, '', {mode: 0o600})
    this.listens = new ListenReports(this.#dir)
  }

  /**
   * What the bot's env gets: the report file, the project folder, and the preload in NODE_OPTIONS
   * (after the user's own); nothing when this build has no preload (run from the sources).
   * `preload`: another build's (tests running from the sources name dist's).
   */
  env(base: NodeJS.ProcessEnv, preload = preloadPath()): Record<string, string> {
    if (!existsSync(preload)) return {}
    const own = base.NODE_OPTIONS?.trim()
    return {
      BOT_DEV_IMPORTS: this.#file,
      BOT_DEV_IMPORTS_ROOT: this.#root,
      ...this.listens.env(),
      NODE_OPTIONS: `${own ? `${own} ` : ''}--require ${quoted(preload)}`,
    }
  }

  /** Whether the bot reported any file yet (else the watcher goes by extension). */
  get known(): boolean {
    this.#read()
    return this.#loaded.size > 0
  }

  /** Whether the bot loaded this file (`rel`: relative to the project folder, with `/`). */
  has(rel: string): boolean {
    this.#read()
    return this.#loaded.has(rel)
  }

  mark(): number {
    try {
      return statSync(this.#file).size
    } catch {
      return this.#offset
    }
  }

  loadedSince(mark: number, rel: string): boolean {
    this.#read()
    // Past the bound (or closed) the report is not read on: anything may have been loaded.
    if (this.#closed || this.#offset >= MAX_REPORT_BYTES) return true
    const at = this.#loaded.get(rel)
    return at === undefined || at >= mark
  }

  /** The new lines of the report since the last read (bounded). */
  #read(): void {
    if (this.#closed || this.#offset >= MAX_REPORT_BYTES) return
    let fd: number
    try {
      fd = openSync(this.#file, 'r')
    } catch {
      return
    }
    try {
      const buf = Buffer.alloc(64 * 1024)
      for (;;) {
        const n = readSync(fd, buf, 0, Math.min(buf.length, MAX_REPORT_BYTES - this.#offset), this.#offset)
        if (n <= 0) break
        // Where the first line of this read starts in the report (a partial line left over began before).
        let at = this.#offset - Buffer.byteLength(this.#partial)
        this.#offset += n
        const text = this.#partial + buf.toString('utf8', 0, n)
        const lines = text.split('\n')
        this.#partial = lines.pop() ?? ''
        for (const line of lines) {
          const rel = relative(this.#root, line)
          if (line && rel && !rel.startsWith('..')) this.#loaded.set(rel.split(sep).join('/'), at)
          at += Buffer.byteLength(line) + 1
        }
        if (this.#offset >= MAX_REPORT_BYTES) break
      }
    } catch {
      // read what could be read
    } finally {
      closeSync(fd)
    }
  }

  /** Remove the private folder (the session ends). */
  close(): void {
    this.#closed = true
    this.listens.close()
    rmSync(this.#dir, {recursive: true, force: true})
  }
}

/** One log per session, shared by the bot part (its env) and the watcher part (its reads). */
const logs = new WeakMap<object, ImportLog>()

export function sessionImports(session: object, root: string, signal: AbortSignal): ImportLog {
  let log = logs.get(session)
  if (!log) {
    const made = new ImportLog(root)
    log = made
    logs.set(session, made)
    signal.addEventListener('abort', () => made.close(), {once: true})
  }
  return log
}

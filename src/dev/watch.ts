/**
 * Restart-on-change: watches the project folder (chokidar) and calls back at the first change of a
 * burst, at once (the restart need not wait for the burst to end: a save is 1-3 file events within
 * a few ms), then, when the burst is over (`debounceMs` without a change), once more with what else
 * changed during it (`more`: the same save, e.g. a save-all or a checkout of several files, or a
 * file the first call named that was written again since). What a bot writes while it runs is not a
 * change to restart for: only source files count (their extensions below, `.env`, and JSON in the
 * project's own folder: package.json, tsconfig.json), and folders of generated files and virtual
 * environments (node_modules, dist, .git, .venv, venv, __pycache__…), what the project's
 * .gitignore files leave out, and the patterns given (--ignore, "bot": {"dev": {"ignore": [...]}},
 * in .gitignore's syntax) are not looked at. A grammY file session (`sessions/…json`) or a photo a
 * bot saves (`user_photo.jpg`) restarts nothing. A Node bot reports the files it loads
 * (imports/preload.cts): then a JavaScript/TypeScript file restarts it only if it loaded it, as
 * `tsx watch` does (see restartsFor).
 */
import {statSync} from 'node:fs'
import {extname, relative, sep} from 'node:path'

import {watch as chokidarWatch, type FSWatcher} from 'chokidar'
import ignore from 'ignore'

import {gitignores, ignoredBy} from '../lib/gitignore.js'
import {toError} from '../lib/errors.js'

export const IGNORED_DIRS = [
  'node_modules',
  'dist',
  '.git',
  'coverage',
  '.turbo',
  '.next',
  '.cache',
  'build',
  '.venv',
  'venv',
  '__pycache__',
  '.mypy_cache',
  '.pytest_cache',
  '.ruff_cache',
  '.tox',
]

/** Extensions of source files (and of the configuration read with them) in the languages bots are written in. */
const SOURCE_EXTENSIONS = new Set(
  [
    ...['js', 'mjs', 'cjs', 'jsx', 'ts', 'mts', 'cts', 'tsx', 'vue', 'svelte'],
    ...['py', 'pyi', 'rb', 'go', 'rs', 'php', 'java', 'kt', 'kts', 'scala', 'cs', 'fs', 'swift', 'dart'],
    ...['ex', 'exs', 'erl', 'lua', 'pl', 'pm', 'clj', 'cljs', 'hs', 'ml', 'jl', 'r', 'sh', 'zig', 'nim', 'cr'],
    ...['toml', 'yaml', 'yml', 'ini', 'cfg', 'graphql', 'gql', 'sql', 'ftl', 'po', 'mod', 'sum', 'lock'],
  ].map((e) => `.${e}`),
)

function isEnvFile(rel: string): boolean {
  const base = rel.slice(Math.max(rel.lastIndexOf('/'), rel.lastIndexOf(sep)) + 1)
  return base === '.env' || base.startsWith('.env.')
}

/** A file whose change restarts the bot (`rel`: relative to the watched folder, with `/`). */
export function isSourceFile(rel: string): boolean {
  if (isEnvFile(rel)) return true
  const base = rel.slice(rel.lastIndexOf('/') + 1)
  const ext = extname(base).toLowerCase()
  // JSON: the project's own configuration (package.json, tsconfig.json), not data a bot writes in a subfolder.
  if (ext === '.json') return !rel.includes('/')
  return SOURCE_EXTENSIONS.has(ext)
}

/** Files a Node bot loads as modules: with the bot's own report of what it loaded, only those restart it. */
const MODULE_EXTENSIONS = new Set(['.js', '.mjs', '.cjs', '.jsx', '.ts', '.mts', '.cts', '.tsx', '.json'])

/** What the bot reported it loaded (imports/imports.ts); `known` false: nothing reported (not Node), go by extension. */
export interface LoadedFiles {
  readonly known: boolean
  has(rel: string): boolean
}

/**
 * Whether a change to `rel` (relative to the project folder, with `/`) restarts the bot: `.env`
 * files and the project's own JSON (package.json, tsconfig.json) always; when the bot reported what
 * it loaded, a JavaScript/TypeScript/JSON file only if it loaded it (a `.ts`/`.js`/`.json` file it
 * writes or never imports restarts nothing); other files by their extension (isSourceFile).
 */
export function restartsFor(rel: string, loaded?: LoadedFiles): boolean {
  if (isEnvFile(rel)) return true
  const ext = extname(rel.slice(rel.lastIndexOf('/') + 1)).toLowerCase()
  if (ext === '.json' && !rel.includes('/')) return true
  if (loaded && MODULE_EXTENSIONS.has(ext) && loaded.known) return loaded.has(rel)
  return isSourceFile(rel)
}

export interface WatchOptions {
  cwd: string
  /** How long a burst of changes lasts after its last change (one save); default 50. */
  debounceMs?: number
  /** More folder names to ignore anywhere in the tree. */
  ignore?: string[]
  /** Patterns to ignore, in .gitignore's syntax, relative to `cwd` (--ignore, package.json's "ignore"). */
  patterns?: string[]
  /** What the bot loaded (see restartsFor); without it, source files by extension. */
  imports?: LoadedFiles
  /**
   * `more` false: the first change(s) of a burst, reported at once; true: what else changed in the
   * same burst (files changed after the first call, or named by it and written again since),
   * reported once it is over (nothing is said when nothing else changed).
   */
  onChange: (files: string[], more: boolean) => void
  onError?: (error: Error) => void
}

/**
 * Files editors write beside the one being saved, never source: vim's swap files (.swp, .swo, …,
 * .swx) and its `4913` write test, `file~` backups (vim, emacs, gedit), emacs autosave `#file#`
 * and lock `.#file`, JetBrains safe-write `file___jb_tmp___` / `file___jb_old___`, `.tmp` files
 * (VS Code and others write-then-rename), Kate's `.kate-swp`, macOS's `.DS_Store`, and the
 * `sedXXXXXX` file of `sed -i` (6 random letters and digits, renamed over the file it edits).
 */
export function isEditorTempFile(base: string): boolean {
  return (
    base.endsWith('~') ||
    /\.sw[a-px]$/.test(base) ||
    base === '4913' ||
    /^#.*#$/.test(base) ||
    base.startsWith('.#') ||
    base.endsWith('___jb_tmp___') ||
    base.endsWith('___jb_old___') ||
    /\.tmp$/i.test(base) ||
    base.endsWith('.kate-swp') ||
    base === '.DS_Store' ||
    /^sed[A-Za-z0-9]{6}$/.test(base)
  )
}

/** True when a path (relative to the watched root) is inside an ignored folder or is an editor temp file. */
export function isIgnoredPath(rel: string, ignoredDirs: string[] = IGNORED_DIRS): boolean {
  if (rel === '' || rel === '.') return false
  const parts = rel.split(/[\\/]/)
  if (parts.some((p) => ignoredDirs.includes(p))) return true
  return isEditorTempFile(parts[parts.length - 1])
}

export interface Watcher {
  ready: Promise<void>
  close(): Promise<void>
}

export function watchProject(options: WatchOptions): Watcher {
  const ignoredDirs = [...IGNORED_DIRS, ...(options.ignore ?? [])]
  const gitignored = gitignores(options.cwd)
  const given = options.patterns?.length ? [{dir: options.cwd, rules: ignore().add(options.patterns)}] : []
  const rules = [...gitignored, ...given]
  const debounceMs = options.debounceMs ?? 50
  /** The burst under way: the files its first call named (with their size and time then), and the ones changed since. */
  let burst: {first: Map<string, string>; more: Set<string>} | undefined
  let timer: NodeJS.Timeout | undefined
  let closed = false
  const watcher: FSWatcher = chokidarWatch(options.cwd, {
    ignoreInitial: true,
    ignored: (path: string, stats?: {isDirectory(): boolean}) => {
      const rel = relative(options.cwd, path)
      if (isIgnoredPath(rel, ignoredDirs)) return true
      try {
        const dir = stats ? stats.isDirectory() : undefined
        // .env is in most .gitignore files, and a changed token or setting is a reason to restart.
        return ignoredBy(isEnvFile(rel) ? given : rules, path, dir)
      } catch {
        return false
      }
    },
    // Atomic saves (write temp + rename) arrive as one change.
    atomic: true,
  })
  const rel = (path: string) => relative(options.cwd, path).split(sep).join('/')
  // The burst is over: what changed after its first call, and what that call named and was written
  // again since (chokidar passes on one change of a file per 50 ms: a second write soon after the
  // first is seen here only by its size and time).
  const flush = () => {
    timer = undefined
    const done = burst
    burst = undefined
    if (closed || !done) return
    const more = new Set(done.more)
    for (const [path, seen] of done.first) if (fileStamp(path) !== seen) more.add(path)
    if (more.size > 0) options.onChange([...more].map(rel), true)
  }
  const onEvent = (event: string, path: string) => {
    // Folders come and go with their files; a file that is not source is the bot's data.
    if (event === 'addDir' || event === 'unlinkDir') return
    if (!restartsFor(rel(path), options.imports)) return
    if (timer) clearTimeout(timer)
    timer = setTimeout(flush, debounceMs)
    if (burst) {
      if (!burst.first.has(path)) burst.more.add(path)
      return
    }
    burst = {first: new Map([[path, fileStamp(path)]]), more: new Set()}
    options.onChange([rel(path)], false)
  }
  watcher.on('all', onEvent)
  watcher.on('error', (error) => options.onError?.(toError(error)))
  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()))
  return {
    ready,
    async close() {
      closed = true
      if (timer) clearTimeout(timer)
      burst = undefined
      await watcher.close()
    },
  }
}

/** A file's size and modification time (or that it is missing): what tells a second write of it. */
function fileStamp(path: string): string {
  try {
    const st = statSync(path)
    return `${st.size} ${st.mtimeMs}`
  } catch {
    return 'missing'
  }
}

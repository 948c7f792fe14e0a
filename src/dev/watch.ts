/**
 * Restart-on-change: watches the project folder (chokidar) and calls back once per burst of
 * changes (debounced) with the source files that changed. What a bot writes while it runs is not a
 * change to restart for: only source files count (their extensions below, `.env`, and JSON in the
 * project's own folder: package.json, tsconfig.json), and folders of generated files and virtual
 * environments (node_modules, dist, .git, .venv, venv, __pycache__…), what the project's
 * .gitignore files leave out, and the patterns given (--ignore, "bot": {"dev": {"ignore": [...]}},
 * in .gitignore's syntax) are not looked at. A grammY file session (`sessions/…json`) or a photo a
 * bot saves (`user_photo.jpg`) restarts nothing.
 */
import {existsSync, readFileSync} from 'node:fs'
import {extname, join, relative, sep} from 'node:path'

import {watch as chokidarWatch, type FSWatcher} from 'chokidar'
import ignore, {type Ignore} from 'ignore'

import {projectFolders} from '../lib/project-folders.js'

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

export interface WatchOptions {
  cwd: string
  debounceMs?: number
  /** More folder names to ignore anywhere in the tree. */
  ignore?: string[]
  /** Patterns to ignore, in .gitignore's syntax, relative to `cwd` (--ignore, package.json's "ignore"). */
  patterns?: string[]
  onChange: (files: string[]) => void
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

/** The .gitignore files of the project (cwd up to its top), each with the folder its patterns are relative to. */
function gitignores(cwd: string): Array<{dir: string; rules: Ignore}> {
  const out: Array<{dir: string; rules: Ignore}> = []
  for (const dir of projectFolders(cwd)) {
    const file = join(dir, '.gitignore')
    if (!existsSync(file)) continue
    try {
      out.push({dir, rules: ignore().add(readFileSync(file, 'utf8'))})
    } catch {
      // an unreadable .gitignore ignores nothing
    }
  }
  return out
}

/** Is `path` (absolute) left out by a .gitignore or a pattern? `dir`: it is a folder (a pattern with a trailing / matches). */
function ignoredBy(rules: Array<{dir: string; rules: Ignore}>, path: string, dir: boolean | undefined): boolean {
  for (const r of rules) {
    const rel = relative(r.dir, path).split(sep).join('/')
    if (rel === '' || rel.startsWith('..')) continue
    if (r.rules.ignores(rel) || (dir !== false && r.rules.ignores(`${rel}/`))) return true
  }
  return false
}

export function watchProject(options: WatchOptions): Watcher {
  const ignoredDirs = [...IGNORED_DIRS, ...(options.ignore ?? [])]
  const gitignored = gitignores(options.cwd)
  const given = options.patterns?.length ? [{dir: options.cwd, rules: ignore().add(options.patterns)}] : []
  const rules = [...gitignored, ...given]
  const debounceMs = options.debounceMs ?? 50
  let pending = new Set<string>()
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
  const flush = () => {
    timer = undefined
    if (closed || pending.size === 0) return
    const files = [...pending].map((p) => relative(options.cwd, p).split(sep).join('/'))
    pending = new Set()
    options.onChange(files)
  }
  const onEvent = (event: string, path: string) => {
    // Folders come and go with their files; a file that is not source is the bot's data.
    if (event === 'addDir' || event === 'unlinkDir') return
    if (!isSourceFile(relative(options.cwd, path).split(sep).join('/'))) return
    pending.add(path)
    if (timer) clearTimeout(timer)
    timer = setTimeout(flush, debounceMs)
  }
  watcher.on('all', onEvent)
  watcher.on('error', (error) => options.onError?.(error as Error))
  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()))
  return {
    ready,
    async close() {
      closed = true
      if (timer) clearTimeout(timer)
      await watcher.close()
    },
  }
}

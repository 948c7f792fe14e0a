/**
 * Restart-on-change: watches the project folder (chokidar), ignoring node_modules, dist, .git,
 * a few other generated folders and editors' temporary files, and calls back once per burst of
 * changes (debounced) with the source files that changed.
 */
import {relative, sep} from 'node:path'

import {watch as chokidarWatch, type FSWatcher} from 'chokidar'

export const IGNORED_DIRS = ['node_modules', 'dist', '.git', 'coverage', '.turbo', '.next', '.cache', 'build']

export interface WatchOptions {
  cwd: string
  debounceMs?: number
  /** More folder names to ignore anywhere in the tree. */
  ignore?: string[]
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

export function watchProject(options: WatchOptions): Watcher {
  const ignoredDirs = [...IGNORED_DIRS, ...(options.ignore ?? [])]
  const debounceMs = options.debounceMs ?? 50
  let pending = new Set<string>()
  let timer: NodeJS.Timeout | undefined
  let closed = false
  const watcher: FSWatcher = chokidarWatch(options.cwd, {
    ignoreInitial: true,
    ignored: (path: string) => isIgnoredPath(relative(options.cwd, path), ignoredDirs),
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
  const onEvent = (_event: string, path: string) => {
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

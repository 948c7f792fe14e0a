/**
 * Restart-on-change: watches the project folder (chokidar), ignoring node_modules, dist, .git
 * and a few other generated folders, and calls back once per burst of changes (debounced).
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

/** True when a path (relative to the watched root) is inside an ignored folder or is an editor temp file. */
export function isIgnoredPath(rel: string, ignoredDirs: string[] = IGNORED_DIRS): boolean {
  if (rel === '' || rel === '.') return false
  const parts = rel.split(/[\\/]/)
  if (parts.some((p) => ignoredDirs.includes(p))) return true
  const base = parts[parts.length - 1]
  return base.endsWith('~') || base.endsWith('.swp') || base.endsWith('.swx') || base === '.DS_Store' || /^\.#/.test(base) || /^4913$/.test(base)
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

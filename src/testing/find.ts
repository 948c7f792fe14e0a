/**
 * Which chat scripts `bot test` runs: the paths given (files, or folders searched), else every `*.chat.yml` under
 * the project folder, leaving out node_modules, .git, virtual environments and what the project's .gitignore files
 * leave out.
 */
import {existsSync, readdirSync, statSync} from 'node:fs'
import {join, relative, resolve} from 'node:path'

import {UsageError} from '../lib/errors.js'
import {gitignores, ignoredBy, type IgnoreRules} from '../lib/gitignore.js'

export const SCRIPT_SUFFIX = '.chat.yml'
const SKIPPED = new Set(['node_modules', '.git', '.venv', 'venv', '__pycache__', 'dist', '.hg', '.svn'])
/** A bound on the folders walked (a home folder by mistake must not take minutes). */
const MAX_FOLDERS = 20_000

/** The scripts (absolute paths, sorted) named by `paths`, or found under `cwd` when none are given. */
export function findChatScripts(cwd: string, paths: string[] = []): string[] {
  const rules = gitignores(cwd)
  if (paths.length === 0) return walk(resolve(cwd), rules).sort()
  const out = new Set<string>()
  for (const given of paths) {
    const path = resolve(cwd, given)
    if (!existsSync(path))
      throw new UsageError(`${given} does not exist.`, 'Name a *.chat.yml file or a folder with some.')
    if (statSync(path).isDirectory()) {
      const found = walk(path, rules)
      if (found.length === 0)
        throw new UsageError(
          `${given} holds no *${SCRIPT_SUFFIX} file.`,
          'Name a folder with chat scripts, or a script.',
        )
      for (const file of found) out.add(file)
    } else if (!path.endsWith(SCRIPT_SUFFIX))
      throw new UsageError(
        `${given} is not a chat script (*${SCRIPT_SUFFIX}).`,
        `Name a file ending in ${SCRIPT_SUFFIX}.`,
      )
    else out.add(path)
  }
  return [...out].sort()
}

function walk(root: string, rules: IgnoreRules[]): string[] {
  const found: string[] = []
  const queue = [root]
  let folders = 0
  while (queue.length > 0 && folders++ < MAX_FOLDERS) {
    const dir = queue.shift()!
    let entries
    try {
      entries = readdirSync(dir, {withFileTypes: true})
    } catch {
      continue // unreadable: nothing from there
    }
    for (const entry of entries) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) {
        if (!SKIPPED.has(entry.name) && !ignoredBy(rules, path, true)) queue.push(path)
      } else if (entry.isFile() && entry.name.endsWith(SCRIPT_SUFFIX) && !ignoredBy(rules, path, false))
        found.push(path)
    }
  }
  return found
}

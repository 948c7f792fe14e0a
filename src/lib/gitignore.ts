/** The project's .gitignore rules, for what `bot dev` watches and the chat scripts `bot test` finds. */
import {existsSync, readFileSync} from 'node:fs'
import {join, relative, sep} from 'node:path'

import ignore, {type Ignore} from 'ignore'

import {projectFolders} from './project-folders.js'

/** Patterns and the folder they are relative to. */
export interface IgnoreRules {
  dir: string
  rules: Ignore
}

/** The .gitignore files of the project (cwd up to its top), each with the folder its patterns are relative to. */
export function gitignores(cwd: string): IgnoreRules[] {
  const out: IgnoreRules[] = []
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

/**
 * Is `path` (absolute) left out by one of the rules? `dir`: it is a folder, so a pattern with a
 * trailing / matches (undefined: not known, matched as a folder too).
 */
export function ignoredBy(rules: IgnoreRules[], path: string, dir: boolean | undefined): boolean {
  for (const r of rules) {
    const rel = relative(r.dir, path).split(sep).join('/')
    if (rel === '' || rel.startsWith('..')) continue
    if (r.rules.ignores(rel) || (dir !== false && r.rules.ignores(`${rel}/`))) return true
  }
  return false
}

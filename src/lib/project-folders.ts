/**
 * The folders of the project a command runs in, from the current folder up: as far as the
 * repository's root (a folder with `.git`, or a workspace root: pnpm-workspace.yaml, or a
 * package.json with "workspaces"), so a package of a monorepo reaches the files kept at the root;
 * outside a repository, as far as the nearest package.json (the package's own folder); without
 * either, the current folder alone. `.env` is looked up along these folders, and `bot trigger`
 * finds the session started in any of them.
 */
import {existsSync, readFileSync} from 'node:fs'
import {dirname, join, resolve} from 'node:path'

/** Is `dir` the top of a repository or of a workspace? */
function isTop(dir: string): boolean {
  if (existsSync(join(dir, '.git')) || existsSync(join(dir, 'pnpm-workspace.yaml'))) return true
  const pkg = join(dir, 'package.json')
  if (!existsSync(pkg)) return false
  try {
    const json = JSON.parse(readFileSync(pkg, 'utf8')) as {workspaces?: unknown}
    return json !== null && typeof json === 'object' && json.workspaces !== undefined
  } catch {
    return false
  }
}

/** `cwd` and its parents up to the project's top (see above), nearest first. */
export function projectFolders(cwd = process.cwd()): string[] {
  const folders: string[] = []
  let nearestPackage = -1
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    folders.push(dir)
    if (isTop(dir)) return folders
    if (nearestPackage < 0 && existsSync(join(dir, 'package.json'))) nearestPackage = folders.length - 1
    if (dirname(dir) === dir) break
  }
  // No repository above: the package's folder is the top (or the current folder alone).
  return folders.slice(0, nearestPackage < 0 ? 1 : nearestPackage + 1)
}

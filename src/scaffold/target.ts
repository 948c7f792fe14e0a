/**
 * Where `bot init` may write, checked before the first write: the folder is named (not ''), its
 * nearest existing parent is a real, writable folder (not a file in the path, not /proc or /sys),
 * and no folder on the way to a template file is a symbolic link leading out of the project.
 */
import {constants} from 'node:fs'
import {access, lstat, realpath, stat, statfs} from 'node:fs/promises'
import {dirname, join, relative, resolve, sep} from 'node:path'

import {UsageError, codeOf} from '../lib/errors.js'

/** Kernel file systems no project belongs in (statfs f_type): proc, sysfs, cgroup, cgroup2, debugfs, securityfs, devpts, tracefs, bpf. */
const VIRTUAL_FS = new Map<number, string>([
  [0x9fa0, 'proc'],
  [0x62656572, 'sysfs'],
  [0x27e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'],
  [0x64626720, 'debugfs'],
  [0x73636673, 'securityfs'],
  [0x1cd1, 'devpts'],
  [0x74726163, 'tracefs'],
  [0xcafe4a11, 'bpf'],
])

const CHOOSE = 'Pass the path of a new or empty folder you can write to, e.g. `bot init my-bot`.'

/**
 * Throws a UsageError (exit 2) when `dir` (as the user gave it, resolved against `cwd`) cannot be
 * the project folder. Writes nothing.
 */
export async function checkTargetDir(given: string, cwd: string, display: (path: string) => string): Promise<void> {
  if (given.trim() === '')
    throw new UsageError("The project folder is empty ('').", `${CHOOSE} Use \`bot init .\` for the current folder.`)
  const dir = resolve(cwd, given)
  const own = await lstat(dir).catch(() => undefined)
  if (own?.isSymbolicLink() && !(await stat(dir).catch(() => undefined)))
    throw new UsageError(`${display(dir)} is a symbolic link to a missing path.`, `${CHOOSE} Or remove the link.`)
  // The nearest part of the path that exists must be a folder.
  let base = dir
  for (;;) {
    let info
    try {
      info = await stat(base)
    } catch (error) {
      const c = codeOf(error)
      if ((c === 'ENOENT' || c === 'ENOTDIR') && dirname(base) !== base) {
        base = dirname(base)
        continue
      }
      throw new UsageError(
        `Cannot use ${display(dir)}: ${display(base)} cannot be read (${c ?? String(error)}).`,
        CHOOSE,
      )
    }
    if (info.isDirectory()) break
    if (base === dir) throw new UsageError(`"${display(dir)}" exists and is not a folder.`, CHOOSE)
    throw new UsageError(`Cannot create ${display(dir)}: ${display(base)} is a file, not a folder.`, CHOOSE)
  }
  try {
    const fs = await statfs(base)
    const kind = VIRTUAL_FS.get(Number(fs.type))
    if (kind)
      throw new UsageError(
        `Cannot create ${display(dir)}: ${display(base)} is on ${kind}, a virtual file system of the kernel.`,
        CHOOSE,
      )
  } catch (error) {
    if (error instanceof UsageError) throw error
    // statfs is a refinement; access() below still decides
  }
  try {
    await access(base, constants.W_OK | constants.X_OK)
  } catch (error) {
    const why = codeOf(error) === 'EROFS' ? 'is on a read-only file system' : 'is not writable by this user'
    throw new UsageError(`Cannot create ${display(dir)}: ${display(base)} ${why}.`, CHOOSE)
  }
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path)
  return rel === '' || (!rel.startsWith('..') && !rel.startsWith(sep) && rel !== '..')
}

/**
 * Throws a UsageError (exit 2) when a folder on the way to any of `files` (paths relative to
 * `dir`, "/"-separated) is a symbolic link whose target is outside `dir`: writing through it would
 * put files outside the project. Folders that do not exist yet are fine (they are created).
 */
export async function checkNoEscapingLinks(
  dir: string,
  files: readonly string[],
  display: (path: string) => string,
): Promise<void> {
  let root: string
  try {
    root = await realpath(dir)
  } catch {
    return // DIR does not exist yet: everything under it is created by us
  }
  const seen = new Set<string>()
  for (const file of files) {
    const parts = file.split('/')
    let path = dir
    // Every folder component (the file itself is checked by the exclusive create).
    for (const part of parts.slice(0, -1)) {
      path = join(path, part)
      if (seen.has(path)) continue
      seen.add(path)
      let info
      try {
        info = await lstat(path)
      } catch {
        break // does not exist: created by us, nothing further down exists either
      }
      if (!info.isSymbolicLink()) continue
      let target: string | undefined
      try {
        target = await realpath(path)
      } catch {
        target = undefined // a dangling link: it would be followed to wherever it points
      }
      if (target === undefined || !inside(root, target))
        throw new UsageError(
          `${display(path)} is a symbolic link to ${target ? display(target) : 'a missing path'}, outside ${display(dir)}: bot init does not write through it.`,
          'Remove or replace the link (or choose another folder); nothing was written.',
        )
    }
  }
}

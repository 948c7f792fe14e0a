import {constants} from 'node:fs'
import {mkdir, open, readdir, readFile, rm, rmdir, stat, lstat} from 'node:fs/promises'
import {dirname, join, relative, sep} from 'node:path'

/** Template files stored under another name so that npm packs them: `gitignore` → `.gitignore`. */
const RENAMES: Record<string, string> = {gitignore: '.gitignore', npmrc: '.npmrc'}

/** Never copied from a template folder (left there by a developer trying the template in place). */
const SKIP = new Set(['node_modules', 'dist', '.env', 'package-lock.json', '.DS_Store'])

export interface PlannedFile {
  /** Path relative to the project folder, with "/" separators. */
  path: string
  content: Buffer
  mode: number
}

export interface CopyPlan {
  targetDir: string
  files: PlannedFile[]
  /** Planned paths that already exist in targetDir (the copy must not go ahead). */
  conflicts: string[]
}

/** Replace `{{key}}` for the given keys only; other braces are left alone. */
export function substitute(text: string, vars: Record<string, string>): string {
  return text.replace(/\{\{\s*([A-Za-z][A-Za-z0-9_]*)\s*\}\}/g, (whole, key: string) =>
    Object.prototype.hasOwnProperty.call(vars, key) ? vars[key] : whole,
  )
}

function isText(content: Buffer): boolean {
  return !content.subarray(0, 8000).includes(0)
}

async function walk(dir: string, base = dir): Promise<string[]> {
  const out: string[] = []
  for (const entry of await readdir(dir, {withFileTypes: true})) {
    if (SKIP.has(entry.name)) continue
    const full = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...(await walk(full, base)))
    else if (entry.isFile()) out.push(relative(base, full))
  }
  return out.sort()
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path)
    return true
  } catch {
    return false
  }
}

/**
 * Read a template into memory with substitutions applied, and find which of its files
 * already exist in the target. Writes nothing. `layers` are folders merged in order (the
 * shared files, then the template's own); a later layer's file replaces an earlier one's.
 */
export async function planCopy(
  layers: string | string[],
  targetDir: string,
  vars: Record<string, string>,
  extra: PlannedFile[] = [],
): Promise<CopyPlan> {
  const byPath = new Map<string, PlannedFile>()
  for (const layer of typeof layers === 'string' ? [layers] : layers) {
    for (const rel of await walk(layer)) {
      const parts = rel.split(sep)
      const last = parts.length - 1
      parts[last] = RENAMES[parts[last]] ?? parts[last]
      const raw = await readFile(join(layer, rel))
      const content = isText(raw) ? Buffer.from(substitute(raw.toString('utf8'), vars)) : raw
      const {mode} = await stat(join(layer, rel))
      const path = parts.join('/')
      byPath.set(path, {path, content, mode: mode & 0o111 ? 0o755 : 0o644})
    }
  }
  const files = [...byPath.values(), ...extra]
  const conflicts: string[] = []
  for (const file of files) if (await exists(join(targetDir, file.path))) conflicts.push(file.path)
  return {targetDir, files, conflicts}
}

/**
 * Write every planned file, creating folders as needed and never replacing anything
 * (exclusive create). If any write fails, what this call created is removed again, so the
 * target is left as it was found.
 */
export async function writePlan(plan: CopyPlan): Promise<string[]> {
  if (plan.conflicts.length > 0) throw new Error(`refusing to overwrite: ${plan.conflicts.join(', ')}`)
  const createdFiles: string[] = []
  const createdDirs: string[] = []
  const ensureDir = async (dir: string): Promise<void> => {
    if (await exists(dir)) return
    await ensureDir(dirname(dir))
    await mkdir(dir)
    createdDirs.push(dir)
  }
  try {
    await ensureDir(plan.targetDir)
    for (const file of plan.files) {
      const dest = join(plan.targetDir, ...file.path.split('/'))
      await ensureDir(dirname(dest))
      // O_EXCL: fails with EEXIST instead of replacing a file that appeared since the plan.
      const handle = await open(dest, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, file.mode)
      createdFiles.push(dest)
      try {
        await handle.writeFile(file.content)
        // Private files (.env) get exactly 0600 whatever the umask; others keep the umask's say.
        if ((file.mode & 0o077) === 0) await handle.chmod(file.mode)
      } finally {
        await handle.close()
      }
    }
  } catch (err) {
    for (const f of createdFiles.reverse()) await rm(f, {force: true})
    for (const d of createdDirs.reverse()) await rmdir(d).catch(() => {})
    throw err
  }
  return plan.files.map((f) => f.path)
}

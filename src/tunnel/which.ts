/** Finds a program the way a shell does: a name is looked up on PATH, a path is taken as it is. */
import {accessSync, constants, statSync} from 'node:fs'
import path from 'node:path'

function isExecutable(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false
    accessSync(file, process.platform === 'win32' ? constants.F_OK : constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** The absolute path of `name` (a bare name searched on env.PATH, or a path), or undefined. */
export function findExecutable(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!name) return undefined
  const extensions =
    process.platform === 'win32' ? ['', ...(env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';').filter(Boolean)] : ['']
  if (name.includes('/') || (process.platform === 'win32' && name.includes('\\'))) {
    const file = path.resolve(name)
    for (const ext of extensions) if (isExecutable(file + ext)) return file + ext
    return undefined
  }
  for (const dir of (env.PATH ?? env.Path ?? '').split(path.delimiter)) {
    if (!dir) continue
    for (const ext of extensions) {
      const file = path.resolve(dir, name + ext)
      if (isExecutable(file)) return file
    }
  }
  return undefined
}

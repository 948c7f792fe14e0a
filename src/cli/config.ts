import {existsSync, readFileSync} from 'node:fs'
import {dirname, join, resolve} from 'node:path'

import {parse} from 'dotenv'

/** Where a setting's value came from, for `bot doctor` and error messages. */
export type ValueSource = 'flag' | 'env' | '.env' | 'default'

export interface LoadedEnv {
  /** Absolute path of the .env file that was read, when one exists. */
  path?: string
  /** Names of the variables that came from .env (not already set in the environment). */
  fromFile: Set<string>
}

let loaded: LoadedEnv | undefined

/** `.env` in `cwd`, else in the folder of the nearest package.json above it (the project's root), if there is one. */
export function dotenvPath(cwd = process.cwd()): string | undefined {
  const here = resolve(cwd, '.env')
  if (existsSync(here)) return here
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return existsSync(join(dir, '.env')) ? join(dir, '.env') : undefined
    if (dirname(dir) === dir) return undefined
  }
}

/**
 * Load `.env` from `cwd` (or, in a subfolder of a project, from its root: see dotenvPath) into
 * process.env without overriding variables that are already set (flags > environment > .env).
 * Idempotent per process.
 */
export function loadDotenv(cwd = process.cwd()): LoadedEnv {
  if (loaded) return loaded
  const path = dotenvPath(cwd)
  const fromFile = new Set<string>()
  if (path) {
    const values = parse(readFileSync(path))
    for (const [key, value] of Object.entries(values)) {
      if (process.env[key] === undefined) {
        process.env[key] = value
        fromFile.add(key)
      }
    }
    loaded = {path, fromFile}
  } else loaded = {fromFile}
  return loaded
}

/** Where the value of `flag`/`envName` came from, given the raw argv. */
export function sourceOf(envName: string, argv: string[], flagName: string): ValueSource {
  if (argv.some((a) => a === `--${flagName}` || a.startsWith(`--${flagName}=`))) return 'flag'
  if (loaded?.fromFile.has(envName)) return '.env'
  if (process.env[envName] !== undefined) return 'env'
  return 'default'
}

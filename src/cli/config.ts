import {existsSync, readFileSync} from 'node:fs'
import {resolve} from 'node:path'

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

/**
 * Load `.env` from `cwd` into process.env without overriding variables that are already
 * set (flags > environment > .env). Idempotent per process.
 */
export function loadDotenv(cwd = process.cwd()): LoadedEnv {
  if (loaded) return loaded
  const path = resolve(cwd, '.env')
  const fromFile = new Set<string>()
  if (existsSync(path)) {
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

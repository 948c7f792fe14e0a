import {existsSync, readFileSync} from 'node:fs'
import {dirname, join} from 'node:path'

import {parse} from 'dotenv'

import {projectFolders} from '../lib/project-folders.js'

/** Where a setting's value came from, for `bot doctor` and error messages. */
export type ValueSource = 'flag' | 'env' | '.env' | 'default'

export interface LoadedEnv {
  /** Absolute path of the .env file that was read, when one exists. */
  path?: string
  /** Names of the variables that came from .env (not already set in the environment). */
  fromFile: Set<string>
  /** The .env paths looked for, nearest first, up to the one read (for "no token" to name them). */
  looked: string[]
}

let loaded: LoadedEnv | undefined

/**
 * The .env to read and the paths looked for: the first `.env` from `cwd` up to the project's top
 * (lib/project-folders.ts: a monorepo package reaches the repository root's .env).
 */
export function dotenvSearch(cwd = process.cwd()): {path?: string; looked: string[]} {
  const looked: string[] = []
  for (const dir of projectFolders(cwd)) {
    const candidate = join(dir, '.env')
    looked.push(candidate)
    if (existsSync(candidate)) return {path: candidate, looked}
  }
  return {looked}
}

/** The `.env` read for `cwd` (see dotenvSearch), if there is one. */
export function dotenvPath(cwd = process.cwd()): string | undefined {
  return dotenvSearch(cwd).path
}

/**
 * Load `.env` from `cwd` (or, in a subfolder of a project, from the nearest folder above that has
 * one: see dotenvSearch) into process.env without overriding variables that are already set
 * (flags > environment > .env). Idempotent per process.
 */
export function loadDotenv(cwd = process.cwd()): LoadedEnv {
  if (loaded) return loaded
  const {path, looked} = dotenvSearch(cwd)
  const fromFile = new Set<string>()
  if (path) {
    const values = parse(readFileSync(path))
    for (const [key, value] of Object.entries(values)) {
      if (process.env[key] === undefined) {
        process.env[key] = value
        fromFile.add(key)
      }
    }
    loaded = {path, fromFile, looked}
  } else loaded = {fromFile, looked}
  return loaded
}

/** What loadDotenv found (undefined before it ran). */
export function loadedDotenv(): LoadedEnv | undefined {
  return loaded
}

/** Where .env was looked for and what was read, in a few words ("no token" says it). */
export function dotenvSearched(): string | undefined {
  if (!loaded || loaded.looked.length === 0) return undefined
  if (loaded.path) {
    const before = loaded.looked.slice(0, -1)
    return `read ${loaded.path}${before.length ? ` (none in ${before.map((p) => dirname(p)).join(', ')})` : ''}`
  }
  return `no .env in ${loaded.looked.map((p) => dirname(p)).join(', ')}`
}

/** Where the value of `flag`/`envName` came from, given the raw argv. */
export function sourceOf(envName: string, argv: string[], flagName: string): ValueSource {
  if (argv.some((a) => a === `--${flagName}` || a.startsWith(`--${flagName}=`))) return 'flag'
  if (loaded?.fromFile.has(envName)) return '.env'
  if (process.env[envName] !== undefined) return 'env'
  return 'default'
}

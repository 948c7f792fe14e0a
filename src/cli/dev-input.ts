/**
 * `bot dev`'s input checks that need no network: run before the session starts, so a bad value
 * exits 2 with one line and a fix, and nothing is sent, set or started.
 */
import {sourceOf} from './config.js'
import {UsageError} from '../lib/errors.js'

/** Node's timers overflow past 2^31-1 ms (about 24.8 days) and then fire at once. */
export const MAX_TIMER_MS = 2_147_483_647

export interface DevInput {
  /** The raw argv (for `--` and for where a value came from). */
  argv: string[]
  holdTimeout: number
  /** Flag name → [value, env variable] for values that must not be empty. */
  nonEmpty: Record<string, [string | undefined, string | undefined]>
  /** Where the env variables are read (default process.env, .env already loaded into it). */
  env?: NodeJS.ProcessEnv
}

/** The words after `--`, or undefined without `--`. `bot dev --` alone is an error. */
export function commandAfterDashes(argv: string[]): string[] | undefined {
  const at = argv.indexOf('--')
  if (at < 0) return undefined
  const words = argv.slice(at + 1)
  if (words.length === 0 || words[0].trim() === '')
    throw new UsageError(
      'No bot command after `--`.',
      'Put the command after it (`bot dev -- node bot.js`), or drop `--` to use package.json\'s "dev:bot" script or the entry file.',
    )
  return words
}

export function checkDevInput(input: DevInput): void {
  commandAfterDashes(input.argv)
  const hold = input.holdTimeout
  if (!Number.isFinite(hold) || hold <= 0 || hold * 1000 > MAX_TIMER_MS)
    throw new UsageError(
      `--hold-timeout ${hold} is out of range: it takes a positive number of seconds up to ${Math.floor(MAX_TIMER_MS / 1000)} (Node's timer limit).`,
      'Use e.g. --hold-timeout 30 (the default).',
    )
  const environment = input.env ?? process.env
  for (const [flag, [given, env]] of Object.entries(input.nonEmpty)) {
    // oclif reads an empty variable as unset; here a variable that is there but empty is refused
    // too: left alone it would mean "open a public localtunnel", which nobody asked for.
    const value = given ?? (env !== undefined && environment[env] !== undefined ? environment[env] : undefined)
    if (value === undefined || value.trim() !== '') continue
    const from =
      given === undefined
        ? sourceOf(env!, [], flag) === '.env'
          ? '.env'
          : 'env'
        : env
          ? sourceOf(env, input.argv, flag)
          : 'flag'
    const where = from === 'flag' ? `--${flag}` : from === '.env' ? `${env} in .env` : `${env}`
    throw new UsageError(
      `${where} is empty: an empty value is not the default, and nothing is opened with it.`,
      from === 'flag'
        ? `Give --${flag} a value, or leave the flag out.`
        : `Give ${env} a value, or remove it${from === '.env' ? ' from .env' : ' from the environment'}.`,
    )
  }
}

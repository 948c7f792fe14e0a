/**
 * The parts of main.ts that do not depend on the framework: reading the configuration,
 * reporting a failure to start, and stopping cleanly on SIGINT/SIGTERM. Everything printed
 * here has the token (read by configOrExit) redacted.
 */
import {ConfigError, readConfig, redact, type Config} from './config.js'

let token = ''

/** The configuration from the environment; on a problem, say what is missing and exit 1. */
export function configOrExit(): Config {
  try {
    const config = readConfig()
    token = config.token
    return config
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err
    console.error(`✗ ${err.message}`)
    process.exit(1)
  }
}

/** Log an error with the token redacted. */
export function logError(err: unknown): void {
  console.error(redact(err instanceof Error ? (err.stack ?? err.message) : String(err), token))
}

/** Say what failed and how to fix it, then exit 1. */
export function fail(what: string, err: unknown, fix: string): never {
  console.error(`✗ ${what}: ${redact(err instanceof Error ? err.message : String(err), token)}`)
  console.error(`  ${fix}`)
  process.exit(1)
}

/** Run `stop` once on SIGINT/SIGTERM, then exit; a second signal exits at once. */
export function onShutdown(stop: () => Promise<void> | void): void {
  let stopping = false
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(130)
    stopping = true
    console.log(`${signal}: stopping…`)
    Promise.resolve()
      .then(stop)
      .then(
        () => process.exit(0),
        (err) => {
          logError(err)
          process.exit(1)
        },
      )
  }
  process.on('SIGINT', handler).on('SIGTERM', handler)
}

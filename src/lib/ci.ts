/**
 * One rule for "is this CI" and "is someone at a terminal", used by every command.
 *
 * CI is on when the `CI` variable holds anything but nothing, `false` or `0` (`CI=false` is how a
 * person turns it off on a machine that sets it). A terminal is a stream whose `isTTY` is true.
 */

/** CI is set to something other than '', 'false' or '0'. */
export function isCI(env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = env.CI
  return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0'
}

/** Every stream given is a terminal. */
export function onTerminal(...streams: Array<{isTTY?: boolean}>): boolean {
  return streams.length > 0 && streams.every((s) => s.isTTY === true)
}

/** Someone can answer here: every stream is a terminal and this is not CI. */
export function interactiveTerminal(streams: Array<{isTTY?: boolean}>, env: NodeJS.ProcessEnv = process.env): boolean {
  return onTerminal(...streams) && !isCI(env)
}

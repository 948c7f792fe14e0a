/**
 * The ports `bot dev` is told to use (--port, --relay-port, --inspect-port), checked before anything is set: a `--port` another program
 * already listens on would receive the updates (with the secret) instead of the bot, and a busy
 * `--relay-port` would fail late with a raw EADDRINUSE. Each port is bound on 127.0.0.1 and
 * released at once.
 */
import {UsageError} from '../lib/errors.js'
import {probePort} from '../lib/free-port.js'

export interface PortsToCheck {
  /** The bot's PORT (--port), when given. */
  port?: number
  /** The relay's port (--relay-port), when given. */
  relayPort?: number
}

function refusal(flag: string, port: number, code: string): UsageError {
  const other = flag === '--port' ? '--relay-port' : '--port'
  if (code === 'EADDRINUSE')
    return new UsageError(
      `${flag} ${port} is already in use on 127.0.0.1: another program listens there${flag === '--port' ? ' and would get the updates instead of your bot' : ''}.`,
      `Stop that program, or pick another ${flag} (or leave ${flag} out for a free one); ${other} must differ too.`,
    )
  if (code === 'EACCES')
    return new UsageError(
      `${flag} ${port} needs privileges this user does not have (ports below 1024).`,
      `Pick a port from 1024 to 65535, or leave ${flag} out for a free one.`,
    )
  return new UsageError(
    `${flag} ${port} cannot be used on 127.0.0.1 (${code}).`,
    `Pick another ${flag}, or leave it out for a free one.`,
  )
}

/** Throws a UsageError (exit 2, one line and a fix) when a given port is busy, or both are the same. */
export async function checkPorts({port, relayPort}: PortsToCheck): Promise<void> {
  if (port !== undefined && relayPort !== undefined && port === relayPort)
    throw new UsageError(
      `--port and --relay-port are both ${port}: the bot and the relay cannot listen on the same port.`,
      'Give them different ports, or leave one out for a free one.',
    )
  for (const [flag, value] of [
    ['--port', port],
    ['--relay-port', relayPort],
  ] as const) {
    if (value === undefined) continue
    const code = await probePort(value)
    if (code) throw refusal(flag, value, code)
  }
}

/** `--inspect-port`: exit 2 (one line and a fix) when it is busy, or the same as --port / --relay-port. */
export async function checkInspectPort(
  inspectPort: number | undefined,
  others: {port?: number; relayPort?: number; inspect?: boolean},
): Promise<void> {
  if (inspectPort === undefined) return
  if (others.inspect === false)
    throw new UsageError(`--inspect-port ${inspectPort} and --no-inspect contradict each other.`, 'Pass one of them.')
  for (const [flag, value] of [
    ['--port', others.port],
    ['--relay-port', others.relayPort],
  ] as const) {
    if (value === inspectPort)
      throw new UsageError(
        `--inspect-port and ${flag} are both ${inspectPort}: two servers cannot listen on the same port.`,
        'Give them different ports, or leave --inspect-port out for a free one.',
      )
  }
  const code = await probePort(inspectPort)
  if (code === 'EADDRINUSE')
    throw new UsageError(
      `--inspect-port ${inspectPort} is already in use on 127.0.0.1: another program listens there.`,
      'Stop that program, or pick another --inspect-port (or leave it out for a free one).',
    )
  if (code)
    throw new UsageError(
      `--inspect-port ${inspectPort} cannot be used on 127.0.0.1 (${code}).`,
      'Pick a port from 1024 to 65535, or leave --inspect-port out for a free one.',
    )
}

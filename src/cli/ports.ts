/**
 * The ports `bot dev` is told to use, checked before anything is set: a `--port` another program
 * already listens on would receive the updates (with the secret) instead of the bot, and a busy
 * `--relay-port` would fail late with a raw EADDRINUSE. Each port is bound on 127.0.0.1 and
 * released at once.
 */
import {createServer} from 'node:net'

import {UsageError} from '../lib/errors.js'

export interface PortsToCheck {
  /** The bot's PORT (--port), when given. */
  port?: number
  /** The relay's port (--relay-port), when given. */
  relayPort?: number
}

/** Bind `port` on `host` and release it: undefined when free, else the error code (EADDRINUSE, EACCES…). */
export function probePort(port: number, host = '127.0.0.1'): Promise<string | undefined> {
  return new Promise((resolve) => {
    const server = createServer()
    server.unref()
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'EUNKNOWN'))
    server.listen({port, host, exclusive: true}, () => server.close(() => resolve(undefined)))
  })
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

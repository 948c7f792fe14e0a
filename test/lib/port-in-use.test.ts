/**
 * A port taken between the check and the listen (src/cli/ports.ts checks first; this is the
 * backstop): the base command turns a raw EADDRINUSE into one line and exit 2. In-process: a tiny
 * command on the base class listens on a port another server holds.
 */
import {once} from 'node:events'
import {createServer, type AddressInfo} from 'node:net'

import {Config} from '@oclif/core'
import {afterEach, beforeEach, describe, expect, it, vi} from 'vitest'

import {BaseCommand} from '../../src/cli/base-command.js'
import {PROJECT_ROOT} from '../support/paths.js'

class Listen extends BaseCommand<typeof Listen> {
  static port = 0
  async run(): Promise<void> {
    const server = createServer()
    server.listen(Listen.port, '127.0.0.1')
    await once(server, 'listening') // rejects with the 'error' event's EADDRINUSE
  }
}

let stderr = ''
beforeEach(() => {
  stderr = ''
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk)
    return true
  })
})
afterEach(() => {
  vi.restoreAllMocks()
  process.exitCode = undefined
})

describe('EADDRINUSE from anywhere', () => {
  it('is one line naming the port, and exit 2', async () => {
    const holder = createServer()
    holder.listen(0, '127.0.0.1')
    await once(holder, 'listening')
    Listen.port = (holder.address() as AddressInfo).port
    try {
      const config = await Config.load(PROJECT_ROOT)
      const error = await Listen.run([], config).then(
        () => undefined,
        (e: unknown) => e as {oclif?: {exit?: number}},
      )
      expect(error?.oclif?.exit).toBe(2)
      expect(stderr).toContain(`✗ Port ${Listen.port} on 127.0.0.1 is already in use.`)
      expect(stderr).not.toMatch(/listen EADDRINUSE/)
    } finally {
      await new Promise((r) => holder.close(r))
    }
  })
})

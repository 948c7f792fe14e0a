/**
 * control-port: the session's control port, the loopback port `bot trigger` and `bot replay` talk
 * to (also with --no-inspect), found through the 0600 control record the session leaves in the
 * state folder while it runs. Once the session ends, it takes no new connection and closes its idle
 * ones (the teardown needs the file descriptors more). (Not the emulator's control API, which a
 * test or `bot emulator` drives: that is src/emulator/control.)
 */
import {randomBytes} from 'node:crypto'

import {removeControlRecord, writeControlRecord} from '../../control/record.js'
import {startControlPort, type ControlPort} from '../../control/server.js'
import type {SessionPart} from '../part.js'

export function controlPortPart(): SessionPart {
  let server: ControlPort | undefined
  let removeRecord: (() => void) | undefined
  return {
    name: 'control-port',
    async start(ctx) {
      const o = ctx.options
      const recording = ctx.recording!
      const dir = o.controlDir ?? ctx.stateDir
      const key = randomBytes(16).toString('hex')
      const started = await startControlPort({actions: recording.triggers, key, secrets: recording.secrets})
      server = started
      ctx.signal.addEventListener('abort', () => started.quiesce(), {once: true})
      try {
        writeControlRecord(
          {
            version: 1,
            pid: process.pid,
            botId: ctx.me!.id,
            cwd: o.cwd,
            offline: Boolean(o.offline),
            mode: o.mode,
            port: server.port,
            key,
            startedAt: new Date().toISOString(),
            historyFile: recording.history?.logFile,
          },
          dir,
        )
      } catch (error) {
        ctx.emit({
          type: 'warn',
          text: `\`bot trigger\` and \`bot replay\` cannot find this session: its record could not be written to ${dir} (${(error as Error).message}).`,
          fix: 'Make that folder writable (or set BOT_STATE_DIR to one that is), then restart `bot dev`.',
        })
        return
      }
      removeRecord = () => {
        removeRecord = undefined
        try {
          removeControlRecord(process.pid, dir)
        } catch {
          // already gone
        }
      }
    },
    async stop() {
      removeRecord?.()
      await server?.close()
    },
    abandon() {
      removeRecord?.()
    },
  }
}

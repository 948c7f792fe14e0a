/**
 * control-port: the session's control port, the loopback port `bot trigger` and `bot replay` talk
 * to (also with --no-inspect), found through the 0600 control record the session leaves in the
 * state folder while it runs. Once the session ends, it takes no new connection and closes its idle
 * ones (the teardown needs the file descriptors more). (Not the emulator's control API, which a
 * test or `bot emulator` drives: that is src/emulator/control.)
 */
import {randomBytes} from 'node:crypto'

import {ActionError, type RestartOutcome} from '../../control/protocol.js'
import {removeControlRecord, writeControlRecord} from '../../control/record.js'
import {startControlPort, type ControlPort} from '../../control/server.js'
import {SessionQueryService} from '../../control/session-queries.js'
import type {SessionContext, SessionPart} from '../part.js'
import {messageOf} from '../../lib/errors.js'

/** How long POST /restart waits for the restarted bot to take updates again. */
const RESTART_DEADLINE_MS = 30_000

/** What `bot mcp` reads from and does in this session (control/session-queries.ts), from the session's parts. */
function sessionQueries(ctx: SessionContext, startedAt: string): SessionQueryService {
  const o = ctx.options
  const recording = ctx.recording!
  return new SessionQueryService({
    engine: recording.triggers,
    facts: recording.facts,
    history: () => recording.history,
    calls: () => recording.calls,
    ...(o.offline ? {offline: o.offline} : {}),
    status: () => {
      const runner = ctx.runner
      const bot = runner?.bot
      const down = runner?.downReason()
      const inspector = ctx.inspectorUrl?.split('?')[0]
      return {
        pid: process.pid,
        offline: Boolean(o.offline),
        mode: ctx.botPolls ? 'polling' : o.mode,
        bot: {
          id: ctx.me!.id,
          ...(ctx.me?.username ? {username: ctx.me.username} : {}),
          ...(ctx.me?.first_name ? {first_name: ctx.me.first_name} : {}),
        },
        ...(bot && bot.pid > 0 ? {botPid: bot.pid} : {}),
        botRunning: Boolean(bot?.alive),
        ...(down ? {botDown: down} : {}),
        restarts: runner?.restarts ?? 0,
        ...(inspector ? {inspector} : {}),
        ...(o.offline ? {emulator: o.offline.emulator.apiRoot} : {}),
        cwd: o.cwd,
        startedAt,
        failedCalls: recording.failedCalls,
      }
    },
    output: (limit) => ctx.runner?.output(limit) ?? [],
    restart: () => restartBot(ctx),
  })
}

/** Restart the bot as `r` does, and wait until it takes updates again (or exits: its last lines say why). */
function restartBot(ctx: SessionContext): Promise<RestartOutcome> {
  const runner = ctx.runner
  if (!runner)
    return Promise.reject(
      ctx.forwardTo
        ? new ActionError(409, `No bot process to restart: your server at ${ctx.forwardTo} is yours to restart.`)
        : new ActionError(503, 'The bot has not been started yet.', 'Wait for the `Ready` line, then try again.'),
    )
  if (ctx.signal.aborted) return Promise.reject(new ActionError(503, 'The session is ending.'))
  const started = performance.now()
  return new Promise<RestartOutcome>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer)
      ctx.events.off('bot-up', up)
      ctx.events.off('bot-exit', exited)
    }
    const up = () => {
      done()
      resolve({
        ...(runner.bot && runner.bot.pid > 0 ? {pid: runner.bot.pid} : {}),
        restarts: runner.restarts,
        ms: Math.round(performance.now() - started),
      })
    }
    const exited = () => {
      done()
      reject(
        new ActionError(
          502,
          `The bot exited after the restart: ${runner.downReason() ?? 'it stopped'}.`,
          'Read its last lines (bot_output) for the error, fix it, then restart again.',
        ),
      )
    }
    const timer = setTimeout(() => {
      done()
      reject(
        new ActionError(
          504,
          `The restarted bot did not take updates within ${RESTART_DEADLINE_MS / 1000} s.`,
          'Read its last lines (bot_output): it may hang while starting.',
        ),
      )
    }, RESTART_DEADLINE_MS)
    timer.unref()
    ctx.events.on('bot-up', up)
    ctx.events.on('bot-exit', exited)
    ctx.events.emit('restart-requested', '↻ Restarting the bot (bot mcp; updates are held meanwhile)')
  })
}

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
      const startedAt = new Date().toISOString()
      const started = await startControlPort({
        actions: recording.triggers,
        queries: sessionQueries(ctx, startedAt),
        key,
        // Never in an answer: the token, the webhook secret and path, the inspector's key, a restore secret.
        secrets: [
          ...recording.secrets,
          ...(ctx.inspectorUrl ? [new URL(ctx.inspectorUrl).searchParams.get('key') ?? ''] : []),
          ...(o.restoreSecret ? [o.restoreSecret] : []),
        ].filter((s) => s.length >= 8),
      })
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
            startedAt,
            historyFile: recording.history?.logFile,
          },
          dir,
        )
      } catch (error) {
        ctx.emit({
          type: 'warn',
          text: `\`bot trigger\` and \`bot replay\` cannot find this session: its record could not be written to ${dir} (${messageOf(error)}).`,
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

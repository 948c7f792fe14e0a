/**
 * Requests to a running session's control port over loopback (protocol.ts has the routes), as the
 * clients send them: `bot trigger` and `bot replay` (sendToSession), `bot mcp` (requestSession).
 * The session's refusal comes back as a FixableError with its own error and fix; `code` says why:
 * no_session (nothing listens there), busy, unauthorized, session_error.
 */
import {request as httpRequest} from 'node:http'

import {FixableError} from '../lib/errors.js'
import {KEY_HEADER, type ControlRecord, type TriggerResult} from './protocol.js'

/** Longer than the session's own deadline (35 s), so its answer wins. */
export const CLIENT_TIMEOUT_MS = 45_000

/** How a client words a connection the session cut, and what to do when it does not answer in time. */
interface Wording {
  cut(record: ControlRecord, code: string): FixableError
  timeoutFix: string
}

const NOT_LISTENING_FIX = 'Restart `bot dev` (or `bot dev --offline`) in this folder.'

/** POSTs a JSON body to the session's control port and returns the delivered UpdateEntry (a TriggerResult for /trigger). */
export async function sendToSession(
  record: ControlRecord,
  path: '/trigger' | '/replay',
  body: unknown,
): Promise<TriggerResult> {
  const {status, value} = await exchange(record, 'POST', path, JSON.stringify(body), CLIENT_TIMEOUT_MS, {
    // The port took the connection but cut it (a flood of other connections pushed it out): the
    // session is there, and busy; nothing listening there means it is gone.
    cut: (r, code) =>
      new FixableError(
        `The \`bot dev\` session (pid ${r.pid}) is busy: its control port ${r.port} closed the connection (${code}).`,
        {fix: 'Try again in a moment; if it stays busy, look at what else connects to that port.', code: 'busy'},
      ),
    timeoutFix: 'See the `bot dev` log: the bot may hang on this update.',
  })
  if (status === 200 && isTriggerResult(value)) return value
  throw refusal(status, value)
}

/**
 * Any request to the session's control port (what `bot mcp` reads and does): the answer's JSON on 200, else a
 * FixableError with the session's own error and fix.
 */
export async function requestSession(
  record: ControlRecord,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  o: {timeoutMs?: number} = {},
): Promise<unknown> {
  const payload = body === undefined ? (method === 'POST' ? '{}' : undefined) : JSON.stringify(body)
  const {status, value} = await exchange(record, method, path, payload, o.timeoutMs ?? CLIENT_TIMEOUT_MS, {
    cut: (r, code) =>
      new FixableError(`The \`bot dev\` session (pid ${r.pid}) closed the connection (${code}).`, {
        fix: 'Try again in a moment.',
        code: 'busy',
      }),
    timeoutFix: 'Look at the bot: it may hang (bot_output shows its last lines).',
  })
  if (status === 200) return value
  throw refusal(status, value)
}

function isTriggerResult(value: unknown): value is TriggerResult {
  return typeof value === 'object' && value !== null && 'updateId' in value && typeof value.updateId === 'number'
}

/** The session's refusal ({error, fix}) as the client's error. */
function refusal(status: number | undefined, value: unknown): FixableError {
  const answer: object = typeof value === 'object' && value !== null ? value : {}
  const error = 'error' in answer && typeof answer.error === 'string' ? answer.error : undefined
  const fix = 'fix' in answer && typeof answer.fix === 'string' ? answer.fix : undefined
  return new FixableError(error ?? `The session answered ${status}.`, {
    fix,
    code: status === 401 ? 'unauthorized' : status === 503 ? 'busy' : 'session_error',
  })
}

/** One request and its answer's status and JSON; a failed connection, a timeout or an answer not JSON rejects. */
function exchange(
  record: ControlRecord,
  method: 'GET' | 'POST',
  path: string,
  payload: string | undefined,
  timeoutMs: number,
  wording: Wording,
): Promise<{status: number | undefined; value: unknown}> {
  const failed = (error: NodeJS.ErrnoException) =>
    error.code === 'ECONNREFUSED'
      ? new FixableError(
          `The \`bot dev\` session (pid ${record.pid}) does not answer on its control port ${record.port}.`,
          {fix: NOT_LISTENING_FIX, code: 'no_session'},
        )
      : wording.cut(record, error.code ?? error.message)
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: record.port,
        path,
        method,
        headers: {
          ...(payload !== undefined
            ? {'content-type': 'application/json', 'content-length': Buffer.byteLength(payload)}
            : {}),
          [KEY_HEADER]: record.key,
        },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('error', (error) => reject(failed(error)))
        res.on('end', () => {
          let value: unknown
          try {
            value = JSON.parse(Buffer.concat(chunks).toString('utf8'))
          } catch {
            reject(
              new FixableError(`The session answered ${res.statusCode} with something other than JSON.`, {
                fix: 'Is `bot dev` on this port? Restart it.',
              }),
            )
            return
          }
          resolve({status: res.statusCode, value})
        })
      },
    )
    req.on('timeout', () => {
      req.destroy()
      reject(
        new FixableError(`The session did not answer within ${Math.round(timeoutMs / 1000)} s.`, {
          fix: wording.timeoutFix,
        }),
      )
    })
    req.on('error', (error) => reject(failed(error)))
    req.end(payload)
  })
}

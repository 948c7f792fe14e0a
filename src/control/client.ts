/**
 * The client side of the control port, for `bot trigger` and `bot replay`: find the running
 * session (its control record), read and check the user's input, send the request over
 * loopback, and describe the delivered update in a few lines. No oclif, no printing: errors are
 * FixableError (exit 1) or UsageError (exit 2, nothing sent).
 */
import {request as httpRequest} from 'node:http'

import {FixableError, UsageError} from '../lib/errors.js'
import {BoundedFileError, readBoundedFile} from '../lib/bounded-file.js'
import {botIdOf} from '../telegram/token.js'
import {findControlRecord} from './record.js'
import {readUpdateObject} from './requests.js'
import {checkTriggerRequest, MAX_PHOTO_BYTES, type Refusal} from './synthetic.js'
import {
  applySets,
  fixturePath,
  fullPath,
  isFixtureType,
  loadFixture,
  parseSetArgument,
  setValue,
  templateFromFile,
  FIXTURE_TYPES,
} from './fixtures.js'
import {imageInfo} from './image.js'
import type {UpdateEntry} from '../inspector/types.js'
import {
  KEY_HEADER,
  MAX_BODY_BYTES,
  type ControlRecord,
  type FixtureSet,
  type TriggerRequest,
  type TriggerResult,
} from './protocol.js'

export const NO_SESSION_FIX = 'Start `bot dev` (or `bot dev --offline`) in this folder first.'

/** Longer than the session's own deadline (35 s), so its answer wins. */
const CLIENT_TIMEOUT_MS = 45_000

/** The running session for this token (by bot id) or, without one, for this folder. Exit 1 when none. */
export function findSession(o: {token?: string; cwd?: string; dir?: string} = {}): ControlRecord {
  const botId = o.token ? botIdOf(o.token) : undefined
  const record = findControlRecord({botId, cwd: o.cwd ?? process.cwd(), dir: o.dir})
  if (!record)
    throw new FixableError(
      botId === undefined
        ? 'No running `bot dev` session in this folder.'
        : `No running \`bot dev\` session for bot ${botId}.`,
      {
        fix: NO_SESSION_FIX,
        code: 'no_session',
      },
    )
  return record
}

/** An integer flag or argument: exit 2 naming the value when it is not one. */
export function parseId(
  value: string | undefined,
  what: string,
  o: {positive?: boolean; nonNegative?: boolean; example: string},
): number | undefined {
  if (value === undefined) return undefined
  const n = /^-?\d{1,16}$/.test(value.trim()) ? Number(value.trim()) : Number.NaN
  const ok = Number.isSafeInteger(n) && (o.positive ? n > 0 : o.nonNegative ? n >= 0 : n !== 0)
  if (!ok)
    throw new UsageError(
      `${what} "${value}" is not ${o.positive ? 'a positive integer' : o.nonNegative ? 'a non-negative integer' : 'a non-zero integer'}.`,
      `Pass e.g. ${o.example}. Nothing was sent.`,
    )
  return n
}

/** A trigger request checked as the session will check it: exit 2 when it would be refused. */
export function checkRequest(request: TriggerRequest): TriggerRequest {
  const checked = checkTriggerRequest(request)
  if ('error' in checked)
    throw new UsageError(
      checked.error.replace(/^./, (c) => c.toUpperCase()),
      `${checked.fix} Nothing was sent.`,
    )
  return checked.request
}

async function readStdin(max: number): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of process.stdin) {
    size += (chunk as Buffer).length
    if (size > max)
      throw new UsageError(`The update on stdin is over ${max} bytes.`, 'Send one Update object. Nothing was sent.')
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** The JSON in FILE (or stdin for `-`): exit 2 for a missing file or bad JSON. */
async function readJsonFile(file: string): Promise<unknown> {
  const name = file === '-' ? 'stdin' : file
  let text: string
  if (file === '-') text = await readStdin(MAX_BODY_BYTES)
  else {
    try {
      text = (await readBoundedFile(file, MAX_BODY_BYTES)).toString('utf8')
    } catch (error) {
      if (!(error instanceof BoundedFileError)) throw error
      if (error.reason === 'too-large')
        throw new UsageError(`${file} is over ${MAX_BODY_BYTES} bytes.`, 'Write one Update object. Nothing was sent.')
      throw new UsageError(
        error.code === 'ENOENT'
          ? `${file} does not exist.`
          : error.code === 'EISDIR'
            ? `${file} is a folder, not a file.`
            : error.message,
        'Give the path of a JSON file holding one Update, or - to read it from stdin. Nothing was sent.',
      )
    }
  }
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new UsageError(
      `${name} is not valid JSON: ${(error as Error).message}.`,
      'Fix the JSON (one Update object). Nothing was sent.',
    )
  }
}

/** Reads one Update object from FILE.json (or stdin for `-`): exit 2 for a missing file, bad JSON or a non-update. */
export async function readUpdateFile(file: string): Promise<Record<string, unknown>> {
  const name = file === '-' ? 'stdin' : file
  const value = await readJsonFile(file)
  const checked = readUpdateObject(value, name)
  if ('error' in checked) throw new UsageError(checked.error, `${checked.fix} Nothing was sent.`)
  return checked.update
}

/** POSTs a JSON body to the session's control port and returns the delivered UpdateEntry (a TriggerResult for /trigger). */
export function sendToSession(
  record: ControlRecord,
  path: '/trigger' | '/replay',
  body: unknown,
): Promise<TriggerResult> {
  const payload = JSON.stringify(body)
  return new Promise((resolve, reject) => {
    const gone = () =>
      new FixableError(
        `The \`bot dev\` session (pid ${record.pid}) does not answer on its control port ${record.port}.`,
        {
          fix: 'Restart `bot dev` (or `bot dev --offline`) in this folder.',
          code: 'no_session',
        },
      )
    // The port took the connection but cut it (a flood of other connections pushed it out): the
    // session is there, and busy; nothing listening there means it is gone.
    const failed = (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNREFUSED'
        ? gone()
        : new FixableError(
            `The \`bot dev\` session (pid ${record.pid}) is busy: its control port ${record.port} closed the connection (${error.code ?? error.message}).`,
            {fix: 'Try again in a moment; if it stays busy, look at what else connects to that port.', code: 'busy'},
          )
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: record.port,
        path,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          [KEY_HEADER]: record.key,
        },
        timeout: CLIENT_TIMEOUT_MS,
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('error', (error) => reject(failed(error)))
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8')
          let value: {error?: string; fix?: string} & Partial<TriggerResult>
          try {
            value = JSON.parse(text)
          } catch {
            reject(
              new FixableError(`The session answered ${res.statusCode} with something other than JSON.`, {
                fix: 'Is `bot dev` on this port? Restart it.',
              }),
            )
            return
          }
          if (res.statusCode === 200 && typeof value.updateId === 'number') resolve(value as TriggerResult)
          else
            reject(
              new FixableError(value.error ?? `The session answered ${res.statusCode}.`, {
                fix: value.fix,
                code: res.statusCode === 401 ? 'unauthorized' : res.statusCode === 503 ? 'busy' : 'session_error',
              }),
            )
        })
      },
    )
    req.on('timeout', () => {
      req.destroy()
      reject(
        new FixableError(`The session did not answer within ${CLIENT_TIMEOUT_MS / 1000} s.`, {
          fix: 'See the `bot dev` log: the bot may hang on this update.',
        }),
      )
    })
    req.on('error', (error) => reject(failed(error)))
    req.end(payload)
  })
}

function quote(text: string | undefined, max = 40): string {
  if (!text) return ''
  const one = text.replace(/\s+/g, ' ').trim()
  return ` "${one.length > max ? `${one.slice(0, max - 1)}…` : one}"`
}

/** True when the bot took the update (2xx, or no answer to wait for in polling mode). */
export function delivered(entry: UpdateEntry): boolean {
  return entry.answer === null || (entry.answer.status >= 200 && entry.answer.status < 300)
}

/**
 * `✓ update #123 message "hello" delivered → 200 in 12 ms`, then one `  ↳ method code description`
 * line per failed Bot API call.
 */
export function describeEntry(entry: UpdateEntry): {ok: boolean; lines: string[]} {
  const ok = delivered(entry)
  const replay = entry.replayOf === undefined ? '' : ` (replay of #${entry.replayOf})`
  const answer = entry.answer ? ` → ${entry.answer.status}` : ''
  const ms = entry.ms === undefined ? '' : ` in ${Math.round(entry.ms)} ms`
  const verb = ok ? 'delivered' : 'delivered, but the bot answered'
  const lines = [
    `${ok ? '✓' : '✗'} update #${entry.updateId}${replay} ${entry.type}${quote(entry.preview)} ${verb}${answer}${ms}`,
  ]
  for (const call of entry.calls ?? []) {
    if (call.ok) continue
    lines.push(
      `  ↳ ${[call.method, call.errorCode, call.description].filter((p) => p !== undefined && p !== '').join(' ')}`,
    )
    if (call.explanation) lines.push(`    ${call.explanation}`)
  }
  return {ok, lines}
}

/** The lines of a trigger: one per update delivered, then, for a flow (a payment), its own line. */
export function describeResult(result: TriggerResult): {ok: boolean; lines: string[]} {
  const flow = result.flow
  if (!flow || !Array.isArray(flow.entries)) return describeEntry(result)
  let ok = flow.ok
  const lines: string[] = []
  for (const entry of flow.entries) {
    const one = describeEntry(entry)
    ok &&= one.ok
    lines.push(...one.lines)
  }
  lines.push(flow.text)
  return {ok, lines}
}

/** What `bot trigger` or `bot replay` got back from the session, and the lines that say it. */
export interface TriggerOutcome {
  entry: TriggerResult
  /** False when the bot answered with an error status (the command exits 1). */
  ok: boolean
  lines: string[]
}

export interface SessionLookup {
  /** BOT_TOKEN / --token when set: its bot id picks the session (no network call). */
  token?: string
  cwd?: string
  /** State folder (default stateDir()). */
  dir?: string
}

/** `bot trigger …`: checks the request (exit 2), finds the session (exit 1), delivers, describes. */
export async function triggerSession(request: TriggerRequest, o: SessionLookup = {}): Promise<TriggerOutcome> {
  const checked = checkRequest(request)
  const record = findSession(o)
  const entry = await sendToSession(record, '/trigger', checked)
  return {entry, ...describeResult(entry)}
}

/** `bot replay`: re-delivers a recorded update (`'last'`: the newest) through the session. */
export async function replaySession(updateId: number | 'last', o: SessionLookup = {}): Promise<TriggerOutcome> {
  const record = findSession(o)
  const entry = await sendToSession(record, '/replay', {updateId})
  return {entry, ...describeEntry(entry)}
}

/** What `bot trigger --list` shows: each type, how to call it, what it sends and its fixture. */
export function triggerTypes(bin: string): Array<{
  type: string
  usage: string
  summary: string
  fixture?: string
  update?: Record<string, unknown>
}> {
  const builtIn = [
    {
      type: 'message',
      usage: `${bin} trigger message TEXT`,
      summary: 'A user sends a text message (a /command gets its entity).',
    },
    {
      type: 'callback',
      usage: `${bin} trigger callback DATA`,
      summary: "A user presses the inline button with that callback_data (on the bot's newest message that has it).",
    },
    {
      type: 'update',
      usage: `${bin} trigger update FILE.json`,
      summary: 'Any Update, written as JSON, delivered as written.',
    },
  ]
  const usages: Record<string, string> = {
    photo: 'photo [FILE]',
    'edited-message': 'edited-message [TEXT]',
    inline: 'inline [QUERY]',
    'poll-answer': 'poll-answer [OPTION]',
    reaction: 'reaction [EMOJI]',
    'member-joined': 'member joined',
    'member-left': 'member left',
    'member-blocked': 'member blocked',
    'member-unblocked': 'member unblocked',
    'business-message': 'business-message [TEXT]',
    'web-app-data': 'web-app-data [DATA]',
    subscription: 'subscription [STATE]',
    'widget-query': 'widget-query [DATA]',
    'shared-widget-query': 'shared-widget-query [DATA]',
    'stopped-generation': 'stopped-generation [DRAFT_ID]',
  }
  const fixtures = FIXTURE_TYPES.map((type) => {
    const fixture = loadFixture(type)
    return {
      type,
      usage: `${bin} trigger ${usages[type] ?? type}`,
      summary: fixture.summary,
      fixture: fixturePath(type),
      update: fixture.update,
    }
  })
  return [...builtIn, ...fixtures]
}

function usage(refusal: Refusal): UsageError {
  return new UsageError(refusal.error, `${refusal.fix} Nothing was sent.`)
}

/**
 * `bot trigger TYPE [ARGUMENT] [--set path=value…] [--file FILE]` as a request: the argument and each
 * --set read and written into the template as the session will (so a bad one is exit 2 here,
 * nothing sent); photo's FILE read (at most 5 MB of JPEG, PNG, GIF or WebP).
 */
export async function fixtureRequest(
  type: string,
  o: {argument?: string; sets: string[]; file?: string; chatId?: number; userId?: number},
): Promise<TriggerRequest> {
  if (!isFixtureType(type))
    throw usage({error: `Unknown trigger type "${type}".`, fix: `Use one of: ${FIXTURE_TYPES.join(', ')}.`})
  const fixture = loadFixture(type)
  let template: {update: Record<string, unknown>; defaults?: Record<string, unknown>} | undefined
  if (o.file !== undefined) {
    const read = templateFromFile(await readJsonFile(o.file), o.file === '-' ? 'stdin' : o.file)
    if ('error' in read) throw usage(read as Refusal)
    template = read
  }
  let update = (template ?? fixture).update
  let photo: {base64: string; name?: string} | undefined
  const raw: Array<{path: string[]; raw: string; what: string}> = []
  if (o.argument !== undefined && fixture.argument?.file) photo = await readPhoto(o.argument)
  else if (o.argument !== undefined && fixture.argument?.set)
    raw.push({path: fixture.argument.set.split('.'), raw: o.argument, what: fixture.argument.name.toUpperCase()})
  for (const text of o.sets) {
    const parsed = parseSetArgument(text)
    if ('error' in parsed) throw usage(parsed as Refusal)
    raw.push({...parsed, what: `--set ${parsed.path.join('.')}`})
  }
  const sets: FixtureSet[] = []
  for (const one of raw) {
    const path = fullPath(update, one.path)
    const value = setValue(update, path, one.raw)
    if ('error' in value) throw usage(value as Refusal)
    const next = applySets(update, [{path, value: value.value}])
    if ('error' in next) throw usage(next as Refusal)
    update = next as Record<string, unknown>
    sets.push({path, value: value.value})
  }
  const request: TriggerRequest = {
    kind: 'fixture',
    type,
    ...(sets.length > 0 ? {sets} : {}),
    ...(template ? {template} : {}),
    ...(photo ? {file: photo} : {}),
    chatId: o.chatId,
    userId: o.userId,
  }
  return checkRequest(request)
}

async function readPhoto(file: string): Promise<{base64: string; name: string}> {
  let bytes: Buffer
  try {
    bytes = await readBoundedFile(file, MAX_PHOTO_BYTES)
  } catch (error) {
    if (!(error instanceof BoundedFileError)) throw error
    if (error.reason === 'too-large')
      throw usage({
        error: `${file} is ${((error.size ?? MAX_PHOTO_BYTES + 1) / 1024 / 1024).toFixed(1)} MB; a photo here is at most ${MAX_PHOTO_BYTES / 1024 / 1024} MB.`,
        fix: 'Send a smaller image (Telegram recompresses photos to a few hundred KB anyway).',
      })
    throw usage({
      error: error.code === 'ENOENT' ? `${file} does not exist.` : error.message,
      fix: 'Give the path of an image file (JPEG, PNG, GIF or WebP).',
    })
  }
  if (!imageInfo(bytes))
    throw usage({
      error: `${file} is not a JPEG, PNG, GIF or WebP image.`,
      fix: 'Give an image file Telegram takes as a photo.',
    })
  return {base64: bytes.toString('base64'), name: file.split('/').at(-1) ?? file}
}

/**
 * The token only picks a session (by its bot id): a --token without a bot id is bad input (exit 2);
 * a malformed BOT_TOKEN from the environment or .env is ignored (the session of this folder is used).
 */
export function sessionToken(token: string | undefined, fromFlag: boolean): string | undefined {
  if (!token) return undefined
  if (botIdOf(token) !== undefined) return token
  if (fromFlag)
    throw new UsageError(
      '--token is not a bot token (it does not start with the bot id and ":").',
      'Pass the token from @BotFather, or leave --token out to use the session started in this folder. Nothing was sent.',
    )
  return undefined
}

/**
 * Any request to the session's control port (what `bot mcp` reads and does; protocol.ts has the routes): the
 * answer's JSON on 200, else a FixableError with the session's own error and fix (`code` no_session when it does
 * not answer, busy, unauthorized, session_error).
 */
export function requestSession(
  record: ControlRecord,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  o: {timeoutMs?: number} = {},
): Promise<unknown> {
  const payload = body === undefined ? (method === 'POST' ? '{}' : undefined) : JSON.stringify(body)
  const timeoutMs = o.timeoutMs ?? CLIENT_TIMEOUT_MS
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
        res.on('error', (error) => reject(sessionGone(record, error)))
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
          if (res.statusCode === 200) return resolve(value)
          const refusal = (value ?? {}) as {error?: string; fix?: string}
          reject(
            new FixableError(refusal.error ?? `The session answered ${res.statusCode}.`, {
              fix: refusal.fix,
              code: res.statusCode === 401 ? 'unauthorized' : res.statusCode === 503 ? 'busy' : 'session_error',
            }),
          )
        })
      },
    )
    req.on('timeout', () => {
      req.destroy()
      reject(
        new FixableError(`The session did not answer within ${Math.round(timeoutMs / 1000)} s.`, {
          fix: 'Look at the bot: it may hang (bot_output shows its last lines).',
        }),
      )
    })
    req.on('error', (error) => reject(sessionGone(record, error)))
    req.end(payload)
  })
}

function sessionGone(record: ControlRecord, error: NodeJS.ErrnoException): FixableError {
  return error.code === 'ECONNREFUSED'
    ? new FixableError(
        `The \`bot dev\` session (pid ${record.pid}) does not answer on its control port ${record.port}.`,
        {fix: 'Restart `bot dev` (or `bot dev --offline`) in this folder.', code: 'no_session'},
      )
    : new FixableError(
        `The \`bot dev\` session (pid ${record.pid}) closed the connection (${error.code ?? error.message}).`,
        {fix: 'Try again in a moment.', code: 'busy'},
      )
}

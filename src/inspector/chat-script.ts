/**
 * "Save as chat script" of the inspector: a range of the session's updates (online ones included: a real
 * conversation from Telegram) as an offline test, anonymised. The entries from the first to the last (by `seq`) of one
 * chat become turns (each update with the calls attached to it), every person, id, phone number, place and e-mail
 * address is replaced (emulator/scripts/anonymise.ts), and the script is written (emulator/scripts/write.ts) with a
 * header saying where it came from and what was replaced; the user's files get stand-ins (their bytes stay on
 * Telegram; save.ts says so in the header). No secret can reach the text: the history is redacted already, and the text is redacted again.
 */
import {join, relative, resolve, sep} from 'node:path'

import {anonymise, type Replacement} from '../emulator/scripts/anonymise.js'
import {checkScriptName, saveChatScript, ScriptSaveError} from '../emulator/scripts/save.js'
import {patternOf, type RecordedTurn, writeChatScript} from '../emulator/scripts/write.js'
import {redactSecrets} from '../telegram/redact.js'
import type {ApiCall, HistoryView, UpdateEntry} from './types.js'

export interface ChatScriptRequest {
  /** The `seq` of the first and the last entry of the range (either order). */
  first: number
  last: number
  /** Only this chat's entries (default: the chat of the first entry). */
  chat?: number
  /** Write `test/NAME.chat.yml` (without it: the text only). */
  name?: string
}

export interface ChatScriptAnswer {
  yaml: string
  steps: number
  /** Entries of the range that became turns, and those of other chats left out. */
  entries: number
  otherChats: number
  /** What was left out of the script (not a user action; a failed call). */
  skipped: string[]
  /** What the anonymisation replaced, without the real values (as the header says it). */
  summary: string[]
  /** Each replacement, real → fake, for the page. */
  replaced: Replacement[]
  /** Where it was written (with `name`), relative to the project, and the fixtures beside it. */
  path?: string
  fixtures?: string[]
}

/** A bad request: the HTTP status, one line and a fix. */
export class ChatScriptError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fix?: string,
  ) {
    super(message)
  }
}

/** The mark history/shape.ts and proxy/call-record.ts leave on a string they cut. */
const CUT = /… \[cut: \d+ characters in all\]$/

/** The chat of the range: the request's, else the first entry's. */
function chatOfRange(entries: UpdateEntry[], chat: number | undefined): number | undefined {
  return chat ?? entries.find((e) => e.chatId !== undefined)?.chatId
}

/** An entry's calls as the writer reads them. */
function callOf(call: ApiCall): RecordedTurn['calls'][number] {
  return {
    method: call.method,
    params: call.params ?? {},
    ok: call.ok,
    ...(call.result !== undefined ? {result: call.result} : {}),
  }
}

/** The entries of the range, oldest first, and the turns they make. */
export function rangeTurns(
  history: HistoryView,
  request: Pick<ChatScriptRequest, 'first' | 'last' | 'chat'>,
): {turns: RecordedTurn[]; entries: UpdateEntry[]; otherChats: number} {
  const [from, to] = request.first <= request.last ? [request.first, request.last] : [request.last, request.first]
  const range = history
    .list()
    .filter((e) => e.seq >= from && e.seq <= to)
    .sort((a, b) => a.seq - b.seq)
  if (range.length === 0)
    throw new ChatScriptError(
      404,
      `no entries with seq ${from} to ${to} in this session's history`,
      'pick the first and the last entry of the range on the page (GET /api/updates lists their seq)',
    )
  const chat = chatOfRange(range, request.chat)
  const kept = range.filter((e) => chat === undefined || e.chatId === undefined || e.chatId === chat)
  const cut = kept.filter((e) => e.truncated)
  if (cut.length > 0)
    throw new ChatScriptError(
      422,
      `update ${cut[0].updateId} was larger than the history keeps whole: it cannot become a step`,
      'pick a range without it',
    )
  const turns = kept.map((e) => ({update: e.update as Record<string, unknown>, calls: e.calls.map(callOf)}))
  return {turns, entries: kept, otherChats: range.length - kept.length}
}

/** A text the history cut: its start as a regular expression (`/^…/`), since the rest is not known. */
function prefixExpression(text: string): string | undefined {
  const m = CUT.exec(text)
  return m ? patternOf(text.slice(0, m.index)) : undefined
}

/** The script of a range (see the module comment); with `name`, written to `dir/NAME.chat.yml`. */
export function chatScriptFromHistory(
  history: HistoryView,
  request: ChatScriptRequest,
  options: {projectDir?: string; secrets?: string[]; now?: Date; bot?: string},
): ChatScriptAnswer {
  if (request.name !== undefined) {
    const problem = checkScriptName(request.name)
    if (problem)
      throw new ChatScriptError(
        400,
        problem.replace(/^give the script a name: :save NAME/, 'give the script a name'),
        'a name such as start or buy-flow',
      )
    if (!options.projectDir)
      throw new ChatScriptError(409, 'this session has no project folder to write to', 'copy the text instead')
  }
  const {turns, entries, otherChats} = rangeTurns(history, request)
  const anon = anonymise(turns)
  const first = entries[0]
  const last = entries.at(-1)!
  const header = [
    `Recorded by bot dev's inspector from updates ${first.updateId} to ${last.updateId} (${entries.length} in all${otherChats > 0 ? `; ${otherChats} of other chats left out` : ''}), ${(options.now ?? new Date()).toISOString().slice(0, 10)}.`,
    'Anonymised (the real values are not in this file):',
    ...(anon.summary.length > 0 ? anon.summary.map((s) => `  - ${s}`) : ['  - nothing to replace']),
    'Run it with: npx bot test',
  ]
  const writeOptions = {header, truncated: prefixExpression, ...(options.bot ? {bot: options.bot} : {})}
  const secrets = (options.secrets ?? []).filter(Boolean)
  if (request.name === undefined) {
    const written = writeChatScript(anon.turns, writeOptions)
    return {
      yaml: redactSecrets(written.yaml, secrets),
      steps: written.steps,
      entries: entries.length,
      otherChats,
      skipped: written.skipped,
      summary: anon.summary,
      replaced: anon.replaced,
    }
  }
  try {
    const saved = saveChatScript(anon.turns, {
      ...writeOptions,
      dir: join(options.projectDir!, 'test'),
      name: request.name,
      redact: (text) => redactSecrets(text, secrets),
    })
    return {
      yaml: saved.yaml,
      steps: saved.steps,
      entries: entries.length,
      otherChats,
      skipped: saved.skipped,
      summary: anon.summary,
      replaced: anon.replaced,
      path: relative(options.projectDir!, saved.path),
      fixtures: saved.fixtures,
    }
  } catch (error) {
    if (error instanceof ScriptSaveError)
      throw new ChatScriptError(
        error.message.includes('exists already') ? 409 : 400,
        // the path as the answer names it (test/NAME.chat.yml), not where the project is on this machine
        error.message.replace(/ :save NAME/, '').replaceAll(`${resolve(options.projectDir!)}${sep}`, ''),
      )
    throw error
  }
}

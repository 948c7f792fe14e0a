/**
 * `bot test`: read every chat script first (a bad one is bad input: its file:line:column and the fix, nothing
 * started), start the bot once per bot command (the project's, or a script's `bot:`) against one emulator, play the
 * scripts `jobs` at a time with runChatScript (each has users and chats of its own), and with `update` rewrite the
 * expectations of the scripts that failed from what the bot did, then play them again.
 */
import {readFileSync, renameSync, writeFileSync} from 'node:fs'
import {dirname, join, relative} from 'node:path'

import {
  ChatScriptError,
  type ChatScript,
  type ChatScriptResult,
  parseChatScript,
  updateChatScript,
} from '../emulator/index.js'
import {type BotCommand, binDirs} from '../dev/bot/command.js'
import type {DevEvent} from '../dev/index.js'
import {UsageError, messageOf, codeOf} from '../lib/errors.js'
import {type OutputLine, startTestBot} from './session.js'

export interface ChatTestOptions {
  /** Absolute paths of the scripts (find.ts). */
  files: string[]
  /** Where the project is (the bot runs there; paths are shown relative to it). */
  cwd: string
  /** The project's bot command (what `bot dev` would run); a script's `bot:` overrides it. Undefined: none found. */
  command: BotCommand | undefined
  /** Why there is no project command (shown when a script needs it). */
  noCommand?: UsageError
  mode: 'webhook' | 'polling'
  /** Scripts played at once (default 1). */
  jobs?: number
  /** Rewrite failing scripts' expectations from what the bot did. */
  update?: boolean
  /** Per step (default 10000 ms). */
  timeoutMs?: number
  quietMs?: number
  startupTimeoutMs?: number
  /** Each script's outcome as it ends (for the output lines). */
  onScript?: (script: ScriptOutcome) => void
  onEvent?: (event: DevEvent) => void
  /** Stop: the scripts under way fail ("the run was stopped"), no other starts, the bot is stopped. */
  signal?: AbortSignal
}

export interface ScriptOutcome {
  /** As given (absolute). */
  file: string
  /** Relative to the project folder. */
  name: string
  status: 'passed' | 'failed' | 'updated'
  result?: ChatScriptResult
  /** A failure that is not a step's (the bot did not start). */
  error?: string
  /** The bot's output lines while the script ran. */
  output: OutputLine[]
}

export interface ChatTestRun {
  scripts: ScriptOutcome[]
  passed: number
  failed: number
  updated: number
  durationMs: number
}

/** Read every script: a ChatScriptError becomes bad input (exit 2) with its file:line:column. */
export function readScripts(
  files: string[],
  name: (file: string) => string,
): Map<string, {text: string; script: ChatScript}> {
  const out = new Map<string, {text: string; script: ChatScript}>()
  for (const file of files) {
    let text: string
    try {
      text = readFileSync(file, 'utf8')
    } catch (err) {
      throw new UsageError(`Cannot read ${name(file)}: ${codeOf(err) ?? messageOf(err)}.`)
    }
    try {
      out.set(file, {text, script: parseChatScript(text, {file: name(file)})})
    } catch (err) {
      if (err instanceof ChatScriptError)
        throw new UsageError(`${err.file}:${err.line}:${err.column}: ${err.reason}`, err.fix)
      throw err
    }
  }
  return out
}

export async function runChatTests(o: ChatTestOptions): Promise<ChatTestRun> {
  const started = Date.now()
  const name = (file: string) => relativeName(o.cwd, file)
  const scripts = readScripts(o.files, name)
  // one bot per command: the project's, or a script's `bot:`
  const groups = new Map<string, {command: BotCommand; files: string[]}>()
  for (const [file, {script}] of scripts) {
    const command = script.bot ? shellCommand(script.bot, o.cwd) : o.command
    if (!command)
      throw (
        o.noCommand ??
        new UsageError(
          `No bot command for ${name(file)}.`,
          'Add `bot: <command>` to the script, or a "dev:bot" script to package.json.',
        )
      )
    const key = command.display
    const group = groups.get(key) ?? {command, files: []}
    group.files.push(file)
    groups.set(key, group)
  }
  const outcomes: ScriptOutcome[] = []
  const report = (outcome: ScriptOutcome) => {
    outcomes.push(outcome)
    o.onScript?.(outcome)
  }
  for (const {command, files} of groups.values()) {
    if (o.signal?.aborted) break
    let bot
    try {
      bot = await startTestBot({
        command,
        cwd: o.cwd,
        mode: o.mode,
        startupTimeoutMs: o.startupTimeoutMs,
        onEvent: o.onEvent,
        signal: o.signal,
      })
    } catch (err) {
      const output = (err as {output?: OutputLine[]}).output ?? []
      for (const file of files) report({file, name: name(file), status: 'failed', error: messageOf(err), output})
      continue
    }
    try {
      const queue = [...files]
      const play = async (file: string): Promise<void> => {
        const {text, script} = scripts.get(file)!
        const run = (s: ChatScript | string, collect: boolean) =>
          bot.emulator.runChatScript(bot.token, s, {
            file: name(file),
            baseDir: dirname(file),
            timeoutMs: o.timeoutMs ?? 10_000,
            ...(o.quietMs !== undefined ? {quietMs: o.quietMs} : {}),
            collect,
            ...(o.signal ? {signal: o.signal} : {}),
          })
        let result = await run(script, Boolean(o.update))
        let status: ScriptOutcome['status'] = result.ok ? 'passed' : 'failed'
        if (!result.ok && o.update && result.segments.length > 0) {
          const fresh = updateChatScript(text, result, script)
          if (fresh !== text) {
            writeAtomically(file, fresh)
            result = await run(parseChatScript(fresh, {file: name(file)}), false)
            status = result.ok ? 'updated' : 'failed'
          }
        }
        const output = bot.output.filter((l) => l.at >= result.startedAt && l.at <= result.endedAt + 50)
        report({file, name: name(file), status, result, output})
      }
      const workers = Array.from({length: Math.max(1, Math.min(o.jobs ?? 1, queue.length))}, async () => {
        for (let file = queue.shift(); file !== undefined && !o.signal?.aborted; file = queue.shift()) await play(file)
      })
      await Promise.all(workers)
    } finally {
      await bot.stop()
    }
  }
  // in the order of the files, whatever order they ended in
  const order = new Map(o.files.map((f, i) => [f, i]))
  outcomes.sort((a, b) => order.get(a.file)! - order.get(b.file)!)
  return {
    scripts: outcomes,
    passed: outcomes.filter((s) => s.status === 'passed').length,
    failed: outcomes.filter((s) => s.status === 'failed').length,
    updated: outcomes.filter((s) => s.status === 'updated').length,
    durationMs: Date.now() - started,
  }
}

/** A script's `bot:` command: run through the shell (as `npm run` runs a script), in the project folder. */
function shellCommand(text: string, cwd: string): BotCommand {
  return {file: text, args: [], shell: true, display: text, source: 'argv', pathPrepend: binDirs(cwd)}
}

function relativeName(cwd: string, file: string): string {
  const rel = relative(cwd, file)
  return rel.startsWith('..') ? file : rel
}

/** Write a file through a temporary one beside it, so an interrupted write leaves the old one whole. */
function writeAtomically(file: string, text: string): void {
  const temp = join(dirname(file), `.${Date.now()}-${process.pid}.chat.yml.tmp`)
  writeFileSync(temp, text)
  renameSync(temp, file)
}

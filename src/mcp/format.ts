/**
 * What `bot mcp`'s tools answer, as text an agent reads: the updates an action delivered with the bot's answer,
 * its failed calls (with Telegram's error and its explanation) and what the chat now shows; a chat's transcript
 * as the offline chat prints it (`you › …`, `bot › …` with buttons as `[ Yes ] [ No ]`); lists of updates,
 * calls and output lines. Pure: no I/O.
 */
import {describeEntry} from '../control/result-lines.js'
import type {
  ActionOutcome,
  CallRow,
  ChatScriptReport,
  OutputLine,
  SessionStatus,
  Transcript,
  TranscriptItem,
} from '../control/protocol.js'
import type {ApiCall, UpdateEntry} from '../inspector/types.js'
import {formatRendered, renderCall} from '../offline/render.js'
import type {ChatScriptFailure, ChatScriptResult} from '../emulator/index.js'
import {failureLines, scriptLines} from '../testing/report.js'
import type {ScriptOutcome} from '../testing/run.js'
import {type JsonObject as Json, isJsonObject, objectOf} from '../lib/json-object.js'

function short(text: string, max = 200): string {
  const one = text.replace(/\s+/g, ' ').trim()
  return one.length > max ? `${one.slice(0, max - 1)}…` : one
}

/** The lines a chat shows for one call of the bot (`bot #12 › text`, its buttons), or none. */
export function callLines(call: ApiCall): string[] {
  const rendered = renderCall({
    method: call.method,
    params: call.params ?? {},
    ...(call.ok ? {result: call.result} : {error: {error_code: call.errorCode, description: call.description}}),
  })
  if (!rendered) return []
  const id = rendered.messageId !== undefined && call.ok ? ` #${rendered.messageId}` : ''
  const lines = formatRendered(rendered, {prefix: `bot${id} › `})
  if (!call.ok && call.explanation) lines.push(`      ${call.explanation}`)
  return lines
}

/** What the user did, in one line (`you › hello`, `you › [pressed "like:yes" on #12]`…). */
export function userLine(update: unknown): string {
  if (!isJsonObject(update)) return 'you › (an update)'
  const type = Object.keys(update).find((k) => k !== 'update_id') ?? 'update'
  const body = objectOf(update[type])
  const id = typeof body.message_id === 'number' ? ` #${body.message_id}` : ''
  if (type === 'message' || type === 'edited_message' || type === 'business_message') {
    const edited = type === 'edited_message' ? '(edited) ' : ''
    if (typeof body.text === 'string') return `you${id} › ${edited}${short(body.text, 500)}`
    const media = ['photo', 'document', 'video', 'audio', 'voice', 'animation', 'sticker', 'video_note'].find(
      (k) => body[k] !== undefined,
    )
    if (media) return `you${id} › [${media}]${typeof body.caption === 'string' ? ` ${short(body.caption)}` : ''}`
    if (isJsonObject(body.web_app_data)) return `you${id} › (Mini App data) ${short(String(body.web_app_data.data))}`
    if (isJsonObject(body.successful_payment))
      return `you${id} › (paid ${String(body.successful_payment.total_amount)} ${String(body.successful_payment.currency)})`
    const other = Object.keys(body).find((k) => !['message_id', 'from', 'chat', 'date'].includes(k))
    return `you${id} › (${other ?? type})`
  }
  if (type === 'callback_query') {
    const message = isJsonObject(body.message) ? body.message : {}
    const on = typeof message.message_id === 'number' ? ` on #${message.message_id}` : ''
    return `you › [pressed ${JSON.stringify(body.data ?? body.game_short_name ?? '')}${on}]`
  }
  if (type === 'message_reaction') {
    const emoji = Array.isArray(body.new_reaction)
      ? body.new_reaction.map((r) => (isJsonObject(r) ? String(r.emoji ?? r.custom_emoji_id ?? '★') : '★')).join('')
      : ''
    return `you › (reacted ${emoji || 'nothing'} to #${String(body.message_id)})`
  }
  if (type === 'inline_query') return `you › (inline query ${JSON.stringify(body.query ?? '')})`
  if (type === 'poll_answer')
    return `you › (voted ${JSON.stringify(body.option_ids ?? [])} in poll ${String(body.poll_id)})`
  if (type === 'pre_checkout_query') return `you › (checkout: ${String(body.total_amount)} ${String(body.currency)})`
  return `you › (${type})`
}

/** One delivered update and what came of it: the summary line, failed calls explained, what the chat shows. */
export function entryLines(entry: UpdateEntry): string[] {
  const lines = describeEntry(entry).lines
  const shown = entry.calls.filter((c) => c.ok).flatMap((c) => callLines(c))
  if (shown.length > 0) lines.push(...shown.map((l) => `  ${l}`))
  else if (entry.calls.length === 0 && entry.answer && entry.answer.status >= 200 && entry.answer.status < 300)
    lines.push('  (the bot made no Bot API call for it)')
  if (entry.answer && (entry.answer.status < 200 || entry.answer.status >= 300))
    lines.push('  The bot failed this update: bot_output shows its last lines (a stack trace).')
  return lines
}

/** What an action tool answers. */
export function outcomeText(outcome: ActionOutcome): string {
  const lines: string[] = []
  for (const entry of outcome.entries) lines.push(...entryLines(entry))
  if (outcome.flow?.text) lines.push(outcome.flow.text)
  if (outcome.entries.length === 0) lines.push(`✓ ${outcome.action} done.`)
  if (outcome.result !== undefined) {
    const json = JSON.stringify(outcome.result, null, 1)
    lines.push(`Result: ${json.length > 4000 ? `${json.slice(0, 3999)}…` : json}`)
  }
  return lines.join('\n')
}

/** A chat's transcript, oldest first. */
export function transcriptText(t: Transcript): string {
  if (t.chatId === undefined) return 'No chat yet: the session has recorded no update.'
  const lines = [`Chat ${t.chatId}${t.chats.length > 1 ? ` (chats seen: ${t.chats.join(', ')})` : ''}, oldest first:`]
  for (const item of t.items) lines.push(...itemLines(item))
  if (t.items.length === 0) lines.push('(nothing yet)')
  return lines.join('\n')
}

function itemLines(item: TranscriptItem): string[] {
  if (item.from === 'user') return [userLine(item.update)]
  return item.call ? callLines(item.call) : []
}

export function updatesText(entries: UpdateEntry[]): string {
  if (entries.length === 0) return 'No update recorded yet.'
  return entries
    .map((e) => {
      const failed = e.calls.filter((c) => !c.ok).length
      const answer = e.answer ? ` → ${e.answer.status}` : ''
      const source = e.source === 'trigger' ? ' (trigger)' : e.source === 'replay' ? ` (replay of #${e.replayOf})` : ''
      return `#${e.updateId} ${e.time} ${e.type}${e.chatId !== undefined ? ` chat ${e.chatId}` : ''}${
        e.preview ? ` ${JSON.stringify(short(e.preview, 60))}` : ''
      }${answer}, ${e.calls.length} call${e.calls.length === 1 ? '' : 's'}${failed ? ` (${failed} failed)` : ''}${source}`
    })
    .join('\n')
}

export function callsText(calls: CallRow[]): string {
  if (calls.length === 0) return 'No matching Bot API call recorded.'
  return calls
    .map((c) => {
      const head = `${c.time} ${c.method} ${c.ok ? 'ok' : `✗ ${c.errorCode ?? ''} ${c.description ?? ''}`.trim()} (${c.ms} ms)${
        c.updateId !== undefined ? ` for update #${c.updateId}` : ''
      }${c.answeredLocally ? ' [answered by the api proxy]' : ''}${c.webhookReply ? ' [webhook reply]' : ''}`
      const lines = [head]
      if (!c.ok && c.explanation) lines.push(`  why: ${c.explanation}`)
      lines.push(`  params: ${short(JSON.stringify(c.params ?? {}), 600)}`)
      return lines.join('\n')
    })
    .join('\n')
}

export function outputText(lines: OutputLine[]): string {
  if (lines.length === 0) return 'The bot printed nothing yet.'
  return lines.map((l) => `${l.time.slice(11, 23)} ${l.stream === 'stderr' ? 'err' : 'out'} │ ${l.line}`).join('\n')
}

export function statusText(s: SessionStatus): string {
  return [
    `${s.offline ? 'Offline' : 'Online'} session (pid ${s.pid}), ${s.mode} mode, bot @${s.bot.username ?? s.bot.id} (id ${s.bot.id})`,
    s.botPid
      ? `Bot process: pid ${s.botPid}, ${s.botRunning ? 'running' : 'not running'}${s.botDown ? ` (${s.botDown})` : ''}, ${s.restarts} restart${s.restarts === 1 ? '' : 's'}`
      : `Bot process: none yet${s.botDown ? ` (${s.botDown})` : ''}`,
    ...(s.inspector ? [`Inspector: ${s.inspector} (its key is in the \`bot dev\` output)`] : []),
    ...(s.emulator ? [`Emulator: ${s.emulator}`] : []),
    `Project: ${s.cwd}; started ${s.startedAt}`,
    `Updates: ${s.counts.updates} (${s.counts.failedUpdates} failed); Bot API calls: ${s.counts.calls} (${s.counts.failedCalls} failed)`,
  ].join('\n')
}

/** A chat script's outcome as `bot test` reports it (src/testing/report.ts): its line, a failure's place and diff, the bot's output. */
export function scriptText(r: ChatScriptReport): string {
  const name = r.file ?? '<script>'
  const outcome: ScriptOutcome = {
    file: name,
    name,
    status: r.ok ? 'passed' : 'failed',
    result: {...r, segments: [], users: {}} as unknown as ChatScriptResult,
    output: r.output.map((l) => ({at: Date.parse(l.time), stream: l.stream, line: l.line})),
  }
  const lines = scriptLines(outcome)
  // bot test shows the first failure; an agent gets the others too.
  for (const f of r.failures.slice(1)) lines.push(...failureLines(f as ChatScriptFailure))
  return lines.join('\n')
}

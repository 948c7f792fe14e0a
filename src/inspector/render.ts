/** The terminal lines of the inspector: a failing Bot API call under its update, an update seen in polling mode, the inspector's address. */
import {sanitizeForTerminal} from '../lib/terminal.js'
import type {ApiCall, EntrySource, UpdateEntry} from './types.js'

/** Longest description shown in a line (Telegram's are short; a proxy's own may not be). */
const DESCRIPTION_MAX = 300

function oneLine(text: string, max = DESCRIPTION_MAX): string {
  const flat = sanitizeForTerminal(text.replace(/\s+/g, ' ').trim())
  return flat.length > max ? flat.slice(0, max - 1) + '…' : flat
}

/** `  ↳ sendMessage 400 Bad Request: chat not found` (+ ` — explanation` when one is known). */
export function callText(
  call: Pick<ApiCall, 'method' | 'ok' | 'errorCode' | 'description' | 'explanation' | 'retryAfter'>,
): string {
  const status = call.errorCode !== undefined ? ` ${call.errorCode}` : call.ok ? ' ok' : ''
  const description = call.description ? ` ${oneLine(call.description)}` : call.ok ? '' : ' failed'
  const retry = call.retryAfter !== undefined ? ` (retry after ${call.retryAfter}s)` : ''
  const explanation = call.explanation ? ` — ${oneLine(call.explanation)}` : ''
  return `  ↳ ${oneLine(call.method, 64)}${status}${description}${retry}${explanation}`
}

/** What an update line says about where it came from (nothing for a webhook POST from Telegram). */
export function sourceSuffix(source: EntrySource | undefined, replayOf?: number): string {
  if (source === 'trigger') return ' (bot trigger)'
  if (source === 'replay') return replayOf !== undefined ? ` (replay of #${replayOf})` : ' (replay)'
  if (source === 'polling') return ' (long polling)'
  return ''
}

/**
 * `10:42:01 ← #731000112 message chat 1111 "/start" (long polling)`: an update the bot took with
 * getUpdates (one put there by bot trigger / bot replay gets its own mark from the session instead).
 */
export function pollingUpdateText(
  entry: Pick<UpdateEntry, 'time' | 'updateId' | 'type' | 'chatId' | 'preview' | 'content' | 'source'>,
): string {
  const content = entry.content !== undefined ? ` ${entry.content}` : ''
  const chat = entry.chatId !== undefined ? ` chat ${entry.chatId}` : ''
  const preview = entry.preview !== undefined ? ` ${JSON.stringify(entry.preview)}` : ''
  return `${entry.time.slice(11, 19)} ← #${entry.updateId} ${entry.type}${content}${chat}${preview}${entry.source === 'polling' ? sourceSuffix('polling') : ''}`
}

export function inspectorText(url: string): string {
  return `Inspector: ${url}`
}

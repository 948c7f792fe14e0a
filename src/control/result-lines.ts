/**
 * The lines that say how a delivered update went, as `bot trigger`, `bot replay` and `bot mcp` print them: one per
 * update (`✓ update #123 message "hello" delivered → 200 in 12 ms`), one per failed Bot API call, and a flow's own
 * line (a payment).
 */
import type {UpdateEntry} from '../inspector/types.js'
import type {TriggerResult} from './protocol.js'

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

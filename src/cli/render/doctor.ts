/** The doctor's report as terminal text: one line per check, detail and fix indented under it, a summary. */
import {GLYPH} from '../output.js'
import type {CheckReport, CheckStatus} from '../../doctor/types.js'

const MARK: Record<CheckStatus, string> = {ok: GLYPH.ok, warn: GLYPH.warn, fail: GLYPH.fail, skipped: '–'}
const COLOR: Record<CheckStatus, string> = {
  ok: '\u001B[32m',
  warn: '\u001B[33m',
  fail: '\u001B[31m',
  skipped: '\u001B[2m',
}
const RESET = '\u001B[0m'
const BOLD = '\u001B[1m'

export interface RenderOptions {
  color: boolean
  /** Wall time of the whole run, in ms. */
  ms?: number
}

function indent(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((line) => prefix + line)
    .join('\n')
}

export function renderCheck(check: CheckReport, {color}: RenderOptions): string {
  const paint = (code: string, text: string) => (color ? `${code}${text}${RESET}` : text)
  const lines = [`${paint(COLOR[check.status], MARK[check.status])} ${paint(BOLD, check.title)}`]
  if (check.detail) lines.push(indent(check.detail, '    '))
  if (check.fix) lines.push(indent(check.fix, `    ${paint(COLOR[check.status], '→')} `))
  return lines.join('\n')
}

export function summaryLine(checks: readonly CheckReport[], {color, ms}: RenderOptions): string {
  const count = (s: CheckStatus) => checks.filter((c) => c.status === s).length
  const failed = count('fail')
  const warned = count('warn')
  const parts = [
    failed ? `${failed} failed` : undefined,
    warned ? `${warned} warning${warned === 1 ? '' : 's'}` : undefined,
    `${count('ok')} ok`,
    count('skipped') ? `${count('skipped')} skipped` : undefined,
  ].filter(Boolean)
  const head = failed ? 'Problems found' : warned ? 'No failures, some warnings' : 'All good'
  const time = ms === undefined ? '' : ` in ${(ms / 1000).toFixed(1)} s`
  const text = `${head}: ${parts.join(', ')}${time}.`
  if (!color) return text
  return `${failed ? COLOR.fail : warned ? COLOR.warn : COLOR.ok}${text}${RESET}`
}

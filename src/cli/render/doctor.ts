/** The doctor's report as terminal text: one line per check, detail and fix indented under it, a summary. */
import {styleIf, type Color} from '../../lib/color.js'
import {GLYPH} from '../output.js'
import type {CheckReport, CheckStatus} from '../../doctor/types.js'

const MARK: Record<CheckStatus, string> = {ok: GLYPH.ok, warn: GLYPH.warn, fail: GLYPH.fail, skipped: '–'}
const COLOR: Record<CheckStatus, Color> = {ok: 'green', warn: 'yellow', fail: 'red', skipped: 'dim'}

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
  const paint = (c: Color, text: string) => styleIf(color, c, text)
  const lines = [`${paint(COLOR[check.status], MARK[check.status])} ${paint('bold', check.title)}`]
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
  return styleIf(color, failed ? COLOR.fail : warned ? COLOR.warn : COLOR.ok, text)
}

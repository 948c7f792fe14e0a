/**
 * What `bot test` shows: one line a script (`✓ start.chat.yml  4 steps  82 ms`), under a failure the step's
 * file:line, what it expected and what the bot did as a diff, then the bot's output while the script ran; a closing
 * count. Also the JUnit XML a CI reads (`--reporter junit`) and the JSON of `--json`.
 */
import type {ChatScriptFailure} from '../emulator/index.js'
import type {ChatTestRun, ScriptOutcome} from './run.js'

/** Output lines shown under a failed script at most (the last ones). */
const MAX_OUTPUT_LINES = 40

export interface Paint {
  green(text: string): string
  red(text: string): string
  yellow(text: string): string
  dim(text: string): string
}

const PLAIN: Paint = {green: (t) => t, red: (t) => t, yellow: (t) => t, dim: (t) => t}

function ms(n: number): string {
  return n >= 10_000 ? `${(n / 1000).toFixed(1)} s` : `${n} ms`
}

/** The lines of one script: its verdict, and for a failure the step, the diff and the bot's output. */
export function scriptLines(s: ScriptOutcome, paint: Paint = PLAIN): string[] {
  const r = s.result
  const steps = r ? `  ${r.steps} ${r.steps === 1 ? 'step' : 'steps'}  ${ms(r.durationMs)}` : ''
  if (s.status === 'passed') return [`${paint.green('✓')} ${s.name}${paint.dim(steps)}`]
  if (s.status === 'updated') return [`${paint.yellow('↻')} ${s.name}${paint.dim(steps)}  ${paint.yellow('updated')}`]
  const lines = [`${paint.red('✗')} ${s.name}${paint.dim(steps)}`]
  if (s.error) lines.push(`  ${s.error}`)
  for (const f of r?.failures.slice(0, 1) ?? []) lines.push(...failureLines(f, paint))
  if (s.output.length > 0) {
    lines.push(
      paint.dim(
        `  the bot's output while it ran${s.output.length > MAX_OUTPUT_LINES ? ` (the last ${MAX_OUTPUT_LINES} lines)` : ''}:`,
      ),
    )
    for (const l of s.output.slice(-MAX_OUTPUT_LINES)) lines.push(`    bot │ ${l.line}`)
  }
  return lines
}

export function failureLines(f: ChatScriptFailure, paint: Paint = PLAIN): string[] {
  const lines = [`  ${f.file ?? ''}:${f.line}  ${f.key === 'end' ? '(end of script)' : `${f.key}:`} ${f.message}`]
  if (f.diff)
    for (const line of f.diff.split('\n'))
      lines.push(`    ${line.startsWith('- ') ? paint.green(line) : line.startsWith('+ ') ? paint.red(line) : line}`)
  return lines
}

/** `2 passed, 1 failed (3 scripts, 1.2 s)`; `- expected` / `+ what the bot did` is the diff's key. */
export function summaryLine(run: ChatTestRun, paint: Paint = PLAIN): string {
  const parts = [
    ...(run.passed > 0 ? [paint.green(`${run.passed} passed`)] : []),
    ...(run.updated > 0 ? [paint.yellow(`${run.updated} updated`)] : []),
    ...(run.failed > 0 ? [paint.red(`${run.failed} failed`)] : []),
  ]
  const n = run.scripts.length
  return `${parts.join(', ') || 'nothing ran'} (${n} ${n === 1 ? 'script' : 'scripts'}, ${ms(run.durationMs)})${run.failed > 0 ? paint.dim('  - expected, + what the bot did') : ''}`
}

/** The run as JSON (`--json`). */
export function runJson(run: ChatTestRun): Record<string, unknown> {
  return {
    ok: run.failed === 0,
    passed: run.passed,
    failed: run.failed,
    updated: run.updated,
    durationMs: run.durationMs,
    scripts: run.scripts.map((s) => ({
      file: s.name,
      status: s.status,
      steps: s.result?.steps ?? 0,
      ran: s.result?.ran ?? 0,
      durationMs: s.result?.durationMs ?? 0,
      ...(s.error ? {error: s.error} : {}),
      failures: (s.result?.failures ?? []).map((f) => ({
        file: f.file,
        line: f.line,
        column: f.column,
        step: f.key,
        message: f.message,
        ...(f.expected ? {expected: f.expected} : {}),
        ...(f.actual ? {actual: f.actual} : {}),
        ...(f.diff ? {diff: f.diff} : {}),
      })),
      ...(s.status === 'failed' ? {output: s.output.map((l) => l.line)} : {}),
    })),
  }
}

function xml(text: string): string {
  // characters XML 1.0 cannot carry are dropped
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is removed
  const clean = text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
  return clean.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
}

/** JUnit XML: one testsuite, a testcase a script, a failure with the step's file:line and the diff, the bot's output. */
export function junitXml(run: ChatTestRun): string {
  const seconds = (n: number) => (n / 1000).toFixed(3)
  const cases = run.scripts.map((s) => {
    const time = seconds(s.result?.durationMs ?? 0)
    const open = `  <testcase classname="chat-scripts" name="${xml(s.name)}" file="${xml(s.name)}" time="${time}"`
    if (s.status !== 'failed') return `${open}/>`
    const f = s.result?.failures[0]
    const message = f ? `${f.file}:${f.line} ${f.key}: ${f.message}` : (s.error ?? 'failed')
    const body = [message, ...(f?.diff ? [f.diff] : [])].join('\n')
    const out = s.output.map((l) => l.line).join('\n')
    return [
      `${open}>`,
      `    <failure message="${xml(message)}" type="${f ? 'expectation' : 'error'}">${xml(body)}</failure>`,
      ...(out ? [`    <system-out>${xml(out)}</system-out>`] : []),
      '  </testcase>',
    ].join('\n')
  })
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="bot test" tests="${run.scripts.length}" failures="${run.failed}" time="${seconds(run.durationMs)}">`,
    `<testsuite name="chat scripts" tests="${run.scripts.length}" failures="${run.failed}" errors="0" skipped="0" time="${seconds(run.durationMs)}">`,
    ...cases,
    '</testsuite>',
    '</testsuites>',
    '',
  ].join('\n')
}

/**
 * Run `bot ARGS` on a real pseudo-terminal (test/support/pty-run.py) and type into it as a person
 * would: each step waits for its pattern in the output, then sends its text ("\u0003" is Ctrl-C).
 */
import {spawn, spawnSync} from 'node:child_process'
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {BIN, PROJECT_ROOT} from './cli.js'

const DRIVER = join(PROJECT_ROOT, 'test', 'support', 'pty-run.py')

/** python3 with its pty module, which the driver needs. */
export const hasPty = spawnSync('python3', ['-c', 'import pty']).status === 0

export interface PtyStep {
  pattern: string
  send: string
}

export interface PtyResult {
  output: string
  exitCode: number | null
  signal: number | null
  /** How many steps were typed. */
  steps: number
  /** How long the command ran on after the last step was typed (null when none was). */
  secondsAfterLastStep: number | null
  timedOut: boolean
}

export interface PtyOptions {
  /** The whole environment of the command (cliEnv(…) as a rule). */
  env: NodeJS.ProcessEnv
  steps?: PtyStep[]
  cwd?: string
  timeoutS?: number
  cols?: number
  rows?: number
}

export function runOnTerminal(args: string[], o: PtyOptions): Promise<PtyResult> {
  const config = {
    command: [process.execPath, BIN, ...args],
    steps: o.steps ?? [],
    timeout: o.timeoutS ?? 60,
    cols: o.cols ?? 100,
    rows: o.rows ?? 40,
  }
  return new Promise((resolve, reject) => {
    const child = spawn('python3', [DRIVER, JSON.stringify(config)], {
      cwd: o.cwd ?? mkdtempSync(join(tmpdir(), 'bot-pty-')),
      env: o.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d))
    child.on('error', reject)
    child.on('close', () => {
      try {
        resolve(JSON.parse(out) as PtyResult)
      } catch {
        reject(new Error(`pty driver: ${out}\n${err}`))
      }
    })
  })
}

/**
 * Piped chat input without newlines (`< /dev/zero`, a binary file) must not grow a buffer until the
 * process dies: a line is cut at 64 KiB, the rest of it dropped, and the chat goes on. A real
 * `bot dev --offline` process fed 200 MB on one line; its peak memory is read from /proc.
 */
import {spawn} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {limitLines} from '../../src/offline/line-limit.js'
import {BIN, PROJECT_ROOT} from '../support/paths.js'
import {PassThrough} from 'node:stream'
import {waitFor} from '../support/wait.js'

const ECHO = join(PROJECT_ROOT, 'test', 'fixtures', 'bots', 'picky-bot.mjs')

function peakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Number(m[1]) / 1024 : Number.NaN
}

describe('piped chat input: one line has a bound', () => {
  it('limitLines cuts long lines, keeps short ones, and tells once per cut line', async () => {
    const input = new PassThrough()
    let cuts = 0
    const out = limitLines(input, 8, () => cuts++)
    const chunks: Buffer[] = []
    out.on('data', (c: Buffer) => chunks.push(c))
    const ended = new Promise((r) => out.on('end', r))
    input.write('short\n0123456789abc')
    input.write('defgh\nok\n')
    input.end('xxxxxxxxxxxxxxxxxxxxxxxx')
    await ended
    expect(Buffer.concat(chunks).toString()).toBe('short\n01234567\nok\nxxxxxxxx\n')
    expect(cuts).toBe(2)
  })

  it('bot dev --offline fed 200 MB without a newline: the line is cut, memory stays bounded, the next line is answered', async () => {
    const child = spawn(process.execPath, [BIN, 'dev', '--offline', '--no-watch', '--', 'node', ECHO], {
      cwd: PROJECT_ROOT,
      env: {
        ...process.env,
        NO_COLOR: '1',
        BOT_STATE_DIR: join(PROJECT_ROOT, 'node_modules', '.cache', 'long-line-state'),
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout.on('data', (c: Buffer) => (out += c.toString()))
    child.stderr.on('data', (c: Buffer) => (out += c.toString()))
    const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)))
    child.stdin.on('error', () => {})
    const block = Buffer.alloc(1024 * 1024, 'a')
    let peak = 0
    for (let i = 0; i < 200; i++) {
      if (!child.stdin.write(block)) await new Promise((r) => child.stdin.once('drain', r))
      if (i % 20 === 0 && child.exitCode === null) peak = Math.max(peak, peakRssMb(child.pid!))
    }
    child.stdin.write('\nhello\n')
    await waitFor(() => /bot › ok: hello/.test(out) || child.exitCode !== null, {
      what: 'the answer to hello (or the exit)',
      timeout: 60_000,
    })
    if (child.exitCode === null) peak = Math.max(peak, peakRssMb(child.pid!))
    child.stdin.end()
    const code = await exited
    expect(out).toMatch(/A line longer than 64 KiB was cut there/)
    expect(out).toContain('bot › ok: hello')
    expect(out).not.toMatch(/Invalid string length|RangeError/)
    // 200 MB went through; a buffered line alone would be over 200 MB.
    expect(peak, `peak RSS ${peak.toFixed(0)} MB`).toBeLessThan(180)
    expect(code).not.toBeNull()
  }, 120_000)
})

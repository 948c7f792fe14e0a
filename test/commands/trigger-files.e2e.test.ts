/**
 * `bot trigger` reads the file a person names within its bound, as a real process: a device
 * (/dev/zero), a FIFO and a sparse 300 MB file are each refused at once (exit 2, one line with the
 * fix), without reading them and without waiting for a writer. The process's peak memory is
 * measured by /usr/bin/time, so a refusal that came after reading the whole file fails the test.
 */
import {spawn, spawnSync} from 'node:child_process'
import {mkdtempSync, truncateSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {BIN, cliEnv} from '../support/cli.js'

/** Peak resident memory a refusal may take (a plain `bot trigger` stays well under it). */
const MAX_RSS_KB = 200 * 1024

interface Run {
  code: number | null
  stdout: string
  stderr: string
  maxRssKb: number
}

/** Runs `bot ARGS` under /usr/bin/time in `cwd`, killed after `deadlineMs` (the result then has code null). */
function runMeasured(args: string[], cwd: string, deadlineMs = 20_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/time', ['-f', 'maxrss=%M', process.execPath, BIN, ...args], {
      cwd,
      env: cliEnv({env: {BOT_STATE_DIR: mkdtempSync(join(tmpdir(), 'trig-files-state-'))}}),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group: the deadline kills time and node together
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d))
    child.stderr.on('data', (d: Buffer) => (stderr += d))
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
    }, deadlineMs)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      const m = /maxrss=(\d+)/.exec(stderr)
      resolve({
        code: m ? code : null,
        stdout,
        stderr: stderr.replace(
          /^(Command exited with non-zero status \d+|Command terminated by signal \d+|maxrss=\d+)\n/gm,
          '',
        ),
        maxRssKb: m ? Number(m[1]) : Number.POSITIVE_INFINITY,
      })
    })
  })
}

describe('bot trigger: files read within their bound', () => {
  const dir = mkdtempSync(join(tmpdir(), 'trig-files-'))
  writeFileSync(join(dir, 'big.json'), '')
  truncateSync(join(dir, 'big.json'), 300 * 1024 * 1024)
  writeFileSync(join(dir, 'big.png'), '')
  truncateSync(join(dir, 'big.png'), 300 * 1024 * 1024)
  spawnSync('mkfifo', [join(dir, 'pipe.json')])

  it.each([
    [['trigger', 'update', '/dev/zero'], /^✗ \/dev\/zero is a device, not a regular file\./],
    [['trigger', 'update', 'pipe.json'], /^✗ pipe\.json is a FIFO \(named pipe\), not a regular file\./],
    [['trigger', 'update', 'big.json'], /^✗ big\.json is over 1048576 bytes\./],
    [['trigger', 'photo', '/dev/zero'], /^✗ \/dev\/zero is a device, not a regular file\./],
    [['trigger', 'photo', 'pipe.json'], /^✗ pipe\.json is a FIFO \(named pipe\), not a regular file\./],
    [['trigger', 'photo', 'big.png'], /^✗ big\.png is 300\.0 MB; a photo here is at most 5 MB\./],
  ])('%j is refused without being read', async (args, pattern) => {
    const r = await runMeasured(args, dir)
    expect(r.code, r.stderr).toBe(2)
    expect(r.stdout).toBe('')
    const lines = r.stderr.trimEnd().split('\n')
    expect(lines[0]).toMatch(pattern)
    expect(lines).toHaveLength(2)
    expect(r.maxRssKb).toBeLessThan(MAX_RSS_KB)
  })
})

/**
 * A process that opened a tunnel and closed it must exit on its own, promptly: nothing (socket,
 * timer, retry loop) may be left behind. Each scenario runs as a real child process, which says what
 * is left once its closes have run (no timer, socket or child process), and then exits by itself
 * (the deadline is a hang's). No stopwatch.
 */
import {spawn} from 'node:child_process'
import {fileURLToPath} from 'node:url'
import {afterAll, describe, expect, it} from 'vitest'

import {fakeCloudflaredBin} from './fake-cloudflared.js'

const script = fileURLToPath(new URL('./fixtures/open-close.ts', import.meta.url))
const cloudflaredScript = fileURLToPath(new URL('./fixtures/cloudflared-close.ts', import.meta.url))
const bin = fakeCloudflaredBin()
afterAll(() => bin.remove())

/** What the process had left after closing that would keep it alive (its stdout and stderr pipes, and fs requests, do not count). */
function keptAlive(out: string): string[] {
  const left = /^left: (.*)$/m.exec(out)
  if (!left) return ['(no "left:" line)']
  return (JSON.parse(left[1]) as string[]).filter((r) => !['PipeWrap', 'TTYWrap', 'FSReqCallback'].includes(r))
}

function run(scenario: string, deadlineMs = 60_000): Promise<{code: number | null; out: string}> {
  return new Promise((resolve, reject) => {
    const cf = scenario.startsWith('cloudflared-')
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', cf ? cloudflaredScript : script, scenario.replace('cloudflared-', '')],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: cf
          ? bin.env({
              FAKE_CLOUDFLARED_DELAY_MS: '300',
              FAKE_CLOUDFLARED_NEVER_REGISTER: scenario === 'cloudflared-deadline' ? '1' : '',
            })
          : process.env,
      },
    )
    let out = ''
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk: string) => (out += chunk))
    child.stderr.setEncoding('utf8')
    child.stderr.on('data', (chunk: string) => (out += chunk))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`the ${scenario} process did not exit within ${deadlineMs} ms; output:\n${out}`))
    }, deadlineMs)
    child.on('exit', (code) => {
      clearTimeout(timer)
      resolve({code, out})
    })
  })
}

describe('a closed tunnel leaves nothing that keeps the process alive', () => {
  it('after a normal open, request and close', async () => {
    const r = await run('ok')
    expect(r.out).toContain('answer: pong')
    expect(r.code).toBe(0)
    expect(keptAlive(r.out)).toEqual([])
  })

  it("after the server died and 'down' was emitted", async () => {
    const r = await run('down')
    expect(r.out).toMatch(/answer: pong\ndown\nclosed/)
    expect(r.code).toBe(0)
    expect(keptAlive(r.out)).toEqual([])
  })

  it('after a start-up that hit its deadline (the client itself would retry forever)', async () => {
    const r = await run('deadline')
    expect(r.out).toMatch(/error: the localtunnel server http:\/\/127\.0\.0\.1:\d+ did not answer within 1\.5 s/)
    expect(r.code).toBe(0)
    expect(keptAlive(r.out)).toEqual([])
  })

  it('after a close while its local connections were still connecting (the local server then went away)', async () => {
    const r = await run('connecting')
    expect(r.out).toContain('tunnel closed')
    expect(r.code).toBe(0)
    expect(keptAlive(r.out)).toEqual([])
  })

  it('after a cloudflared quick tunnel (the stand-in) was proved, used and closed', async () => {
    const r = await run('cloudflared-ok')
    expect(r.out).toMatch(/proved after \d+ attempts\nanswer: pong\nclosed/)
    expect(r.code).toBe(0)
    expect(keptAlive(r.out)).toEqual([])
  })

  it('after a cloudflared start-up that hit its deadline', async () => {
    const r = await run('cloudflared-deadline')
    expect(r.out).toMatch(/error: cloudflared created http:\/\/127\.0\.0\.1:\d+ but registered no connection/)
    expect(r.code).toBe(0)
    expect(keptAlive(r.out)).toEqual([])
  })
})

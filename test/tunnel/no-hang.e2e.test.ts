/**
 * A process that opened a tunnel and closed it must exit on its own, promptly: nothing (socket,
 * timer, retry loop) may be left behind. Each scenario runs as a real child process.
 */
import {spawn} from 'node:child_process'
import {fileURLToPath} from 'node:url'
import {afterAll, describe, expect, it} from 'vitest'

import {fakeCloudflaredBin} from './fake-cloudflared.js'

const script = fileURLToPath(new URL('./fixtures/open-close.ts', import.meta.url))
const cloudflaredScript = fileURLToPath(new URL('./fixtures/cloudflared-close.ts', import.meta.url))
const bin = fakeCloudflaredBin()
afterAll(() => bin.remove())

function run(scenario: string, deadlineMs: number): Promise<{code: number | null; out: string; msAfterClosed: number}> {
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
    let closedAt = 0
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk: string) => {
      out += chunk
      if (!closedAt && /^closed$/m.test(out)) closedAt = Date.now()
    })
    child.stderr.setEncoding('utf8')
    child.stderr.on('data', (chunk: string) => (out += chunk))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`the ${scenario} process did not exit within ${deadlineMs} ms; output:\n${out}`))
    }, deadlineMs)
    child.on('exit', (code) => {
      clearTimeout(timer)
      resolve({code, out, msAfterClosed: closedAt ? Date.now() - closedAt : Number.NaN})
    })
  })
}

describe('a closed tunnel leaves nothing that keeps the process alive', () => {
  it('after a normal open, request and close', async () => {
    const r = await run('ok', 15_000)
    expect(r.out).toContain('answer: pong')
    expect(r.code).toBe(0)
    expect(r.out).not.toContain('still alive')
    expect(r.msAfterClosed).toBeLessThan(2000)
  })

  it("after the server died and 'down' was emitted", async () => {
    const r = await run('down', 15_000)
    expect(r.out).toMatch(/answer: pong\ndown\nclosed/)
    expect(r.code).toBe(0)
    expect(r.out).not.toContain('still alive')
    expect(r.msAfterClosed).toBeLessThan(2000)
  })

  it('after a start-up that hit its deadline (the client itself would retry forever)', async () => {
    const r = await run('deadline', 15_000)
    expect(r.out).toMatch(/error: the localtunnel server http:\/\/127\.0\.0\.1:\d+ did not answer within 1\.5 s/)
    expect(r.code).toBe(0)
    expect(r.out).not.toContain('still alive')
    expect(r.msAfterClosed).toBeLessThan(2000)
  })

  it('after a cloudflared quick tunnel (the stand-in) was proved, used and closed', async () => {
    const r = await run('cloudflared-ok', 20_000)
    expect(r.out).toMatch(/proved after \d+ attempts\nanswer: pong\nclosed/)
    expect(r.code).toBe(0)
    expect(r.out).not.toContain('still alive')
    expect(r.msAfterClosed).toBeLessThan(2000)
  })

  it('after a cloudflared start-up that hit its deadline', async () => {
    const r = await run('cloudflared-deadline', 20_000)
    expect(r.out).toMatch(/error: cloudflared created http:\/\/127\.0\.0\.1:\d+ but registered no connection/)
    expect(r.code).toBe(0)
    expect(r.out).not.toContain('still alive')
    expect(r.msAfterClosed).toBeLessThan(2000)
  })
})

/**
 * A gzip bomb in an upload, measured on a real emulator in a child process of its own (its peak RSS
 * from process.resourceUsage().maxRSS, so nothing else of the test run counts): a 1 MB request, `Content-Encoding:
 * gzip`, a multipart body of 20 parts of 49 MiB of zeros, used to raise the emulator's peak memory by ~1 GB. The whole
 * decoded request is bounded (50 MB, the cloud's multipart limit), so no request grows the process by more than ~64 MB
 * beyond the largest file it may carry; a real 49 MiB upload still works.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import http from 'node:http'
import {join} from 'node:path'
import {createInterface} from 'node:readline'
import {gzipSync} from 'node:zlib'
import {afterEach, describe, expect, it} from 'vitest'
import {PROJECT_ROOT} from '../support/paths.js'

const MiB = 1024 * 1024
const TOKEN = '1234567890:OFFLINE-DEV-TOKEN-NOT-A-REAL-SECRET'
/** The largest file a request may carry (the cloud's 50 MB for a multipart upload) plus the ~64 MB the issue allows. */
const BUDGET = 50 * MiB + 64 * MiB

const CHILD = `
import {BotApiEmulator} from ${JSON.stringify(join(PROJECT_ROOT, 'dist', 'emulator', 'index.js'))}
const emu = await BotApiEmulator.start()
emu.createBot({token: ${JSON.stringify(TOKEN)}})
emu.sendUserMessage(${JSON.stringify(TOKEN)}, {text: 'hi', userId: 5})
const peak = () => process.resourceUsage().maxRSS * 1024
console.log(JSON.stringify({apiRoot: emu.apiRoot, port: emu.port, peak: peak()}))
process.stdin.setEncoding('utf8').on('data', () => console.log(JSON.stringify({peak: peak(), rss: process.memoryUsage().rss})))
process.stdin.on('end', () => emu.stop().then(() => process.exit(0)))
`

const children: ChildProcess[] = []
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL')
})

/** The emulator in a child process; `measure()` asks it for its peak RSS so far. */
async function startChild() {
  const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD], {stdio: ['pipe', 'pipe', 'inherit']})
  children.push(child)
  const lines = createInterface({input: child.stdout!})
  const next = (): Promise<any> =>
    new Promise((resolve, reject) => {
      lines.once('line', (line) => resolve(JSON.parse(line)))
      child.once('exit', (code) => reject(new Error(`the emulator exited (${code})`)))
    })
  const info = (await next()) as {apiRoot: string; port: number}
  return {
    ...info,
    child,
    measure: async (): Promise<{peak: number; rss: number}> => {
      const answer = next()
      child.stdin!.write('?\n')
      return answer
    },
  }
}

function post(port: number, path: string, headers: Record<string, string | number>, body: Buffer) {
  return new Promise<{status: number; text: string}>((resolve, reject) => {
    const req = http.request({host: '127.0.0.1', port, method: 'POST', path, headers}, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => (text += c))
      res.on('end', () => resolve({status: res.statusCode ?? 0, text}))
    })
    req.on('error', reject)
    req.end(body)
  })
}

/** 20 parts of 49 MiB of zeros as concatenated gzip members (the zeros compressed once): about 1 MB on the wire. */
function gzipBomb(boundary: string): Buffer {
  const zeros = gzipSync(Buffer.alloc(49 * MiB), {level: 9})
  const members: Buffer[] = []
  for (let i = 0; i < 20; i++) {
    members.push(
      gzipSync(
        `--${boundary}\r\nContent-Disposition: form-data; name="document${i}"; filename="zeros${i}.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ),
      zeros,
      gzipSync('\r\n'),
    )
  }
  members.push(gzipSync(`--${boundary}--\r\n`))
  return Buffer.concat(members)
}

describe('a gzip bomb in an upload', () => {
  it('1 MB of gzip, 20 parts of 49 MiB of zeros: 413, and the peak RSS grows by less than the largest file + 64 MiB', async () => {
    const emu = await startChild()
    // warm up every path the bomb takes (multipart, gzip, a small upload) so the baseline has them loaded
    const boundary = 'bomb-boundary'
    const small = gzipSync(
      `--${boundary}\r\nContent-Disposition: form-data; name="chat_id"\r\n\r\n5\r\n--${boundary}\r\nContent-Disposition: form-data; name="document"; filename="a.txt"\r\n\r\nhello\r\n--${boundary}--\r\n`,
    )
    const headers = {'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Encoding': 'gzip'}
    const warm = await post(emu.port, `/bot${TOKEN}/sendDocument`, {...headers, 'Content-Length': small.length}, small)
    expect(warm.status, warm.text).toBe(200)

    const bomb = gzipBomb(boundary)
    expect(bomb.length).toBeLessThan(1.5 * MiB)
    const before = await emu.measure()
    const answer = await post(emu.port, `/bot${TOKEN}/sendDocument`, {...headers, 'Content-Length': bomb.length}, bomb)
    const after = await emu.measure()
    const grown = after.peak - before.peak
    console.log(
      `gzip bomb (${(bomb.length / MiB).toFixed(2)} MiB on the wire, 980 MiB decoded): ${answer.status}; peak RSS ${(before.peak / MiB).toFixed(0)} → ${(after.peak / MiB).toFixed(0)} MiB (+${(grown / MiB).toFixed(1)} MiB; budget ${BUDGET / MiB} MiB)`,
    )
    expect(answer.status).toBe(413)
    expect(JSON.parse(answer.text)).toEqual({
      ok: false,
      error_code: 413,
      description: 'Request Entity Too Large: request body is too big',
    })
    expect(grown).toBeLessThan(BUDGET)

    // a real upload of 49 MiB still goes through, and the emulator answers as before
    const file = Buffer.alloc(49 * MiB, 7)
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="chat_id"\r\n\r\n5\r\n--${boundary}\r\nContent-Disposition: form-data; name="document"; filename="big.bin"\r\n\r\n`,
    )
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`)
    const big = Buffer.concat([head, file, tail])
    const upload = await post(
      emu.port,
      `/bot${TOKEN}/sendDocument`,
      {'Content-Type': headers['Content-Type'], 'Content-Length': big.length},
      big,
    )
    expect(upload.status, upload.text).toBe(200)
    expect(JSON.parse(upload.text).result.document.file_size).toBe(49 * MiB)
    emu.child.stdin!.end()
  }, 120_000)
})

/** The api proxy streams bodies both ways, passes headers and the path prefix, and survives a bot or upstream that goes away. */
import http from 'node:http'
import {gzipSync} from 'node:zlib'
import {describe, expect, it} from 'vitest'
import {postJson, recordingProxy, sink} from './api-proxy-helpers.js'
import {waitFor} from '../support/wait.js'

const TOKEN = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw'
const MiB = 1024 * 1024

/** The head and tail of a multipart sendDocument whose file part is `size` bytes. */
function multipart(size: number) {
  const boundary = 'proxytestboundary42'
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="chat_id"\r\n\r\n42\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="document"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  )
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`)
  return {
    head,
    tail,
    contentType: `multipart/form-data; boundary=${boundary}`,
    length: head.length + size + tail.length,
  }
}

function write(req: http.ClientRequest, chunk: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    if (req.write(chunk)) return resolve()
    const onError = (e: Error) => reject(e)
    req.once('error', onError)
    req.once('drain', () => {
      req.off('error', onError)
      resolve()
    })
  })
}

function answerOf(req: http.ClientRequest): Promise<{status: number; body: string}> {
  return new Promise((resolve, reject) => {
    req.on('error', reject)
    req.on('response', (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8')}))
      res.on('error', reject)
    })
  })
}

describe('api proxy: streaming', () => {
  it('streams a 50 MB multipart upload: the upstream receives it while the bot is still sending; the file is recorded as {file, size}', async () => {
    const upstream = await sink()
    const rec = await recordingProxy(upstream.url)
    const size = 50 * MiB
    const form = multipart(size)
    const req = http.request(`${rec.proxy.url}/bot${TOKEN}/sendDocument`, {
      method: 'POST',
      headers: {'content-type': form.contentType, 'content-length': form.length},
    })
    const answer = answerOf(req)
    const chunk = Buffer.alloc(256 * 1024, 7)
    await write(req, form.head)
    let written = 0
    const memory: number[] = [process.memoryUsage().rss]
    while (written < size) {
      await write(req, chunk)
      written += chunk.length
      if (written % (8 * MiB) === 0) {
        // Never more than 16 MiB between what the bot sent and what the upstream got: the proxy holds no body.
        const target = written - 16 * MiB
        await waitFor(() => upstream.requests[0] && upstream.requests[0].bytes >= target, {
          what: `the upstream to receive ${target} bytes`,
          timeout: 20_000,
        })
        memory.push(process.memoryUsage().rss)
      }
      if (written === MiB)
        await waitFor(() => upstream.requests[0]?.bytes > 0, {what: 'the upstream to start receiving', timeout: 20_000})
    }
    expect(upstream.requests[0].complete).toBe(false)
    req.end(form.tail)
    const result = await answer
    expect(result.status).toBe(200)
    expect(JSON.parse(result.body)).toEqual({ok: true, result: true})
    expect(upstream.requests[0].bytes).toBe(form.length)
    await waitFor(() => rec.calls.length === 1, {what: 'the record', timeout: 10_000})
    expect(rec.calls[0]).toMatchObject({
      method: 'sendDocument',
      ok: true,
      chatId: 42,
      params: {chat_id: '42', document: {file: 'big.bin', size}},
    })
  })

  it('respects backpressure: while the upstream does not read, the bot cannot push the whole upload', async () => {
    const upstream = await sink((item) => item.req.pause())
    const rec = await recordingProxy(upstream.url)
    const size = 64 * MiB
    const form = multipart(size)
    const req = http.request(`${rec.proxy.url}/bot${TOKEN}/sendDocument`, {
      method: 'POST',
      headers: {'content-type': form.contentType, 'content-length': form.length},
    })
    req.on('error', () => {})
    await write(req, form.head)
    const chunk = Buffer.alloc(MiB, 1)
    let written = 0
    // Write until a write stays blocked for 2 s (backpressure reached) or everything was accepted.
    while (written < size) {
      if (!req.write(chunk)) {
        const drained = await Promise.race([
          new Promise<boolean>((r) => req.once('drain', () => r(true))),
          new Promise<boolean>((r) => setTimeout(() => r(false), 2000)),
        ])
        if (!drained) break
      }
      written += chunk.length
    }
    expect(written).toBeLessThan(48 * MiB)
    req.destroy()
    // A paused socket does not notice its peer closing: let the upstream read again.
    upstream.requests[0].req.resume()
    await waitFor(() => upstream.requests[0]?.aborted, {what: 'the upstream request to be aborted', timeout: 10_000})
  })

  it('streams a /file/bot… download through (the bot reads the first part before the upstream sends the rest) and records no call', async () => {
    let clientGot = 0
    const upstream = await sink(async (item) => {
      item.res.writeHead(200, {'content-type': 'application/octet-stream', 'content-length': String(2 * MiB)})
      item.res.write(Buffer.alloc(MiB, 3))
      await waitFor(() => clientGot >= MiB, {what: 'the bot to receive the first MiB', timeout: 20_000})
      item.res.end(Buffer.alloc(MiB, 4))
    })
    const rec = await recordingProxy(upstream.url)
    const total = await new Promise<number>((resolve, reject) => {
      http
        .get(`${rec.proxy.url}/file/bot${TOKEN}/documents/file_0.bin`, (res) => {
          res.on('data', (c: Buffer) => {
            clientGot += c.length
          })
          res.on('end', () => resolve(clientGot))
          res.on('error', reject)
        })
        .on('error', reject)
    })
    expect(total).toBe(2 * MiB)
    expect(upstream.requests[0].url).toBe(`/file/bot${TOKEN}/documents/file_0.bin`)
    await postJson(`${rec.proxy.url}/bot${TOKEN}/getMe`, {})
    await waitFor(() => rec.calls.length === 1, {what: 'the getMe record'})
    expect(rec.calls.map((c) => c.method)).toEqual(['getMe'])
  })

  it('a bot that disconnects mid-upload aborts the upstream request; the proxy goes on serving', async () => {
    const upstream = await sink()
    const rec = await recordingProxy(upstream.url)
    const form = multipart(20 * MiB)
    const req = http.request(`${rec.proxy.url}/bot${TOKEN}/sendDocument`, {
      method: 'POST',
      headers: {'content-type': form.contentType, 'content-length': form.length},
    })
    req.on('error', () => {})
    await write(req, form.head)
    await write(req, Buffer.alloc(MiB, 5))
    await waitFor(() => upstream.requests[0]?.bytes > 0, {what: 'the upstream to start receiving', timeout: 10_000})
    req.destroy()
    await waitFor(() => upstream.requests[0].aborted, {what: 'the upstream request to be aborted', timeout: 10_000})
    await waitFor(() => rec.calls.length === 1, {what: 'the record of the cancelled call', timeout: 10_000})
    expect(rec.calls[0]).toMatchObject({method: 'sendDocument', ok: false, chatId: 42})
    expect(rec.calls[0].description).toMatch(/cancelled/)
    const after = await postJson(`${rec.proxy.url}/bot${TOKEN}/getMe`, {})
    expect(after.json).toEqual({ok: true, result: true})
  })
})

describe('api proxy: what passes through', () => {
  it('keeps the path prefix of the upstream, passes end-to-end headers both ways and drops hop-by-hop ones', async () => {
    const upstream = await sink((item) => {
      item.req.resume()
      item.req.on('end', () => {
        item.res.writeHead(200, {'content-type': 'application/json', 'x-answer': 'yes', 'retry-after': '3'})
        item.res.end('{"ok":true,"result":{"id":1}}')
      })
    })
    const rec = await recordingProxy(`${upstream.url}/api/root/`)
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = http.request(`${rec.proxy.url}/bot${TOKEN}/getMe?x=1`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-custom': 'kept',
          'proxy-authorization': 'Basic c2VjcmV0',
          'keep-alive': 'timeout=5',
          connection: 'keep-alive, x-drop',
          'x-drop': 'gone',
        },
      })
      req.on('response', resolve)
      req.on('error', reject)
      req.end('{}')
    })
    res.resume()
    expect(res.statusCode).toBe(200)
    expect(res.headers['x-answer']).toBe('yes')
    expect(res.headers['retry-after']).toBe('3')
    const seen = upstream.requests[0]
    expect(seen.url).toBe(`/api/root/bot${TOKEN}/getMe?x=1`)
    expect(seen.headers.host).toBe(`127.0.0.1:${upstream.port}`)
    expect(seen.headers['x-custom']).toBe('kept')
    expect(seen.headers['proxy-authorization']).toBeUndefined()
    expect(seen.headers['keep-alive']).toBeUndefined()
    expect(seen.headers['x-drop']).toBeUndefined()
    await waitFor(() => rec.calls.length === 1, {what: 'the record'})
    expect(rec.calls[0]).toMatchObject({method: 'getMe', ok: true, params: {x: '1'}})
  })

  it('reads a gzip-encoded answer for its record and passes it on unchanged; a non-JSON error page is recorded by its status', async () => {
    const upstream = await sink((item) => {
      item.req.resume()
      item.req.on('end', () => {
        if (item.url.includes('sendMessage')) {
          const body = gzipSync(
            JSON.stringify({ok: false, error_code: 400, description: 'Bad Request: message text is empty'}),
          )
          item.res.writeHead(400, {
            'content-type': 'application/json',
            'content-encoding': 'gzip',
            'content-length': String(body.length),
          })
          item.res.end(body)
        } else {
          item.res.writeHead(502, {'content-type': 'text/html'})
          item.res.end('<html><body>502 Bad Gateway</body></html>')
        }
      })
    })
    const rec = await recordingProxy(upstream.url)
    const empty = await postJson(`${rec.proxy.url}/bot${TOKEN}/sendMessage`, {chat_id: 1, text: ''})
    expect(empty.json.description).toBe('Bad Request: message text is empty')
    const html = await fetch(`${rec.proxy.url}/bot${TOKEN}/getMe`)
    expect(html.status).toBe(502)
    expect(await html.text()).toContain('502 Bad Gateway')
    await waitFor(() => rec.calls.length === 2, {what: 'two records'})
    const send = rec.calls.find((c) => c.method === 'sendMessage')!
    expect(send).toMatchObject({ok: false, errorCode: 400, description: 'Bad Request: message text is empty'})
    expect(send.explanation).toMatch(/empty/)
    expect(rec.calls.find((c) => c.method === 'getMe')).toMatchObject({ok: false, errorCode: 502})
  })

  it('an upstream that echoes the request URL into its description: the record carries no token', async () => {
    const upstream = await sink((item) => {
      item.req.resume()
      item.req.on('end', () => {
        item.res.writeHead(404, {'content-type': 'application/json'})
        item.res.end(
          JSON.stringify({
            ok: false,
            error_code: 404,
            description: `Not Found: ${item.url} ${decodeURIComponent(item.url)}`,
          }),
        )
      })
    })
    const rec = await recordingProxy(upstream.url)
    const encoded = encodeURIComponent(TOKEN)
    await postJson(
      `${rec.proxy.url}/bot${encoded}/sendMessage?url=${encodeURIComponent(`https://x.example/${TOKEN}`)}`,
      {chat_id: 1, text: TOKEN},
    )
    await waitFor(() => rec.calls.length === 1, {what: 'the record'})
    const text = JSON.stringify(rec.calls)
    for (const needle of [TOKEN, TOKEN.split(':')[1], encoded]) expect(text).not.toContain(needle)
    expect(rec.calls[0].description).toContain('<token>')
    expect(rec.calls[0].params).toMatchObject({url: 'https://x.example/<token>', text: '<token>'})
  })

  it('POST /bot<token>/ with a "method" parameter is recorded under that method; /bot<token>/test/<method> too', async () => {
    const upstream = await sink()
    const rec = await recordingProxy(upstream.url)
    await postJson(`${rec.proxy.url}/bot${TOKEN}/`, {method: 'getWebhookInfo'})
    await postJson(`${rec.proxy.url}/bot${TOKEN}/test/getMe`, {})
    await waitFor(() => rec.calls.length === 2, {what: 'two records'})
    expect(rec.calls.map((c) => c.method).sort()).toEqual(['getMe', 'getWebhookInfo'])
    expect(upstream.requests.map((r) => r.url)).toEqual([`/bot${TOKEN}/`, `/bot${TOKEN}/test/getMe`])
  })

  it('an upstream that cuts the answer half way: the bot sees the connection close, the call is recorded as failed', async () => {
    const upstream = await sink((item) => {
      item.req.resume()
      item.req.on('end', () => {
        item.res.writeHead(200, {'content-type': 'application/json', 'content-length': '1000'})
        item.res.write('{"ok":true,"result":[')
        setImmediate(() => item.res.socket?.destroy())
      })
    })
    const rec = await recordingProxy(upstream.url)
    await expect(postJson(`${rec.proxy.url}/bot${TOKEN}/sendMessage`, {chat_id: 9, text: 'x'})).rejects.toThrow()
    await waitFor(() => rec.calls.length === 1, {what: 'the record'})
    expect(rec.calls[0]).toMatchObject({method: 'sendMessage', ok: false, chatId: 9})
    expect(rec.calls[0].description).toMatch(/the answer was cut/)
  })
})

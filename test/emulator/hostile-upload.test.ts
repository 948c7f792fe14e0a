/**
 * The bounds on a request body (issue 20 item 3; src/emulator/http/body.ts), in process: the number of files (50,
 * telegram-bot-api's max_files) and of parts, td's 1 MiB of parameters, the 50 MiB of the whole decoded body (counted
 * after gzip), a declared Content-Length over it answered before the body is read, a broken gzip stream as a 400, and
 * a webhook reply over 1 MiB. After each refusal the emulator still answers. The memory a gzip bomb costs is measured in
 * upload-bomb.e2e.test.ts.
 */
import http from 'node:http'
import {gzipSync} from 'node:zlib'
import {describe, expect, it} from 'vitest'
import {receiver, setup} from './helpers.js'
import {waitFor} from '../support/wait.js'

const MiB = 1024 * 1024
const BOUNDARY = 'limit-boundary'

/** A multipart body: fields as [name, value], files as [name, filename, bytes]. */
function multipart(fields: Array<[string, string]>, files: Array<[string, string, Buffer]> = []): Buffer {
  const parts: Buffer[] = []
  for (const [name, value] of fields)
    parts.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`))
  for (const [name, filename, data] of files)
    parts.push(
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\n\r\n`),
      data,
      Buffer.from('\r\n'),
    )
  parts.push(Buffer.from(`--${BOUNDARY}--\r\n`))
  return Buffer.concat(parts)
}

const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`

async function post(url: string, body: Buffer | string, headers: Record<string, string>) {
  const res = await fetch(url, {method: 'POST', headers, body: typeof body === 'string' ? body : new Uint8Array(body)})
  return {status: res.status, json: (await res.json()) as any}
}

async function started() {
  const s = await setup()
  s.emu.sendUserMessage(s.token, {text: 'hi', userId: 5})
  const alive = async () => expect((await s.api('getMe')).status).toBe(200)
  return {...s, alive}
}

describe('multipart bodies', () => {
  it('50 files are read, a 51st is 413 too much files attached', async () => {
    const {base, alive} = await started()
    const files = (n: number) =>
      Array.from({length: n}, (_, i): [string, string, Buffer] => [
        i === 0 ? 'document' : `extra${i}`,
        `f${i}.txt`,
        Buffer.from('x'),
      ])
    const fifty = await post(`${base}/sendDocument`, multipart([['chat_id', '5']], files(50)), {
      'content-type': MULTIPART,
    })
    expect(fifty.status).toBe(200)
    const more = await post(`${base}/sendDocument`, multipart([['chat_id', '5']], files(51)), {
      'content-type': MULTIPART,
    })
    expect(more.status).toBe(413)
    expect(more.json.description).toBe('Request Entity Too Large: too much files attached')
    await alive()
  })

  it('more than 1000 parts is 413; fields over 1 MiB in all are 413 too much parameters in form data', async () => {
    const {base, alive} = await started()
    const fields = Array.from({length: 1001}, (_, i): [string, string] => [`f${i}`, ''])
    const parts = await post(`${base}/sendMessage`, multipart([['chat_id', '5'], ['text', 'x'], ...fields]), {
      'content-type': MULTIPART,
    })
    expect(parts.status).toBe(413)
    expect(parts.json.description).toBe('Request Entity Too Large: too many parts in form data')
    const big = 'y'.repeat(600 * 1024)
    for (const body of [
      multipart([
        ['chat_id', '5'],
        ['text', 'x'],
        ['a', big],
        ['b', big],
      ]),
      multipart([
        ['chat_id', '5'],
        ['text', 'x'],
        ['a', 'z'.repeat(MiB + 1)],
      ]),
    ]) {
      const answer = await post(`${base}/sendMessage`, body, {'content-type': MULTIPART})
      expect(answer.status).toBe(413)
      expect(answer.json.description).toBe('Request Entity Too Large: too much parameters in form data')
    }
    await alive()
  })

  it('the decoded body counts: a small gzip of 60 MiB of zeros is 413 request body is too big', async () => {
    const {base, alive} = await started()
    const body = gzipSync(multipart([['chat_id', '5']], [['document', 'zeros.bin', Buffer.alloc(60 * MiB)]]))
    expect(body.length).toBeLessThan(MiB)
    const answer = await post(`${base}/sendDocument`, body, {'content-type': MULTIPART, 'content-encoding': 'gzip'})
    expect(answer.status).toBe(413)
    expect(answer.json.description).toBe('Request Entity Too Large: request body is too big')
    await alive()
  })
})

describe('form and JSON bodies: 1 MiB of parameters (td MAX_TOTAL_PARAMETERS_LENGTH)', () => {
  it('a form or JSON body over 1 MiB, sent as it is or gzipped, is 413 too much parameters', async () => {
    const {base, alive} = await started()
    const text = 'x'.repeat(MiB)
    const form = `chat_id=5&text=${text}`
    const json = JSON.stringify({chat_id: 5, text})
    for (const [type, body] of [
      ['application/x-www-form-urlencoded', form],
      ['application/json', json],
    ]) {
      for (const encoding of [undefined, 'gzip']) {
        const answer = await post(`${base}/sendMessage`, encoding ? gzipSync(body) : body, {
          'content-type': type,
          ...(encoding ? {'content-encoding': encoding} : {}),
        })
        expect(answer.status, `${type} ${encoding ?? ''}`).toBe(413)
        expect(answer.json.description).toBe('Request Entity Too Large: too much parameters')
      }
    }
    await alive()
  })

  it('a body of another type is drained, not kept: 60 MiB of gzip-decoded text is 413, 60 MiB sent as it is is ignored', async () => {
    const {base, alive} = await started()
    const zipped = await post(`${base}/getMe`, gzipSync(Buffer.alloc(60 * MiB)), {
      'content-type': 'text/plain',
      'content-encoding': 'gzip',
    })
    expect(zipped.status).toBe(413)
    const plain = await fetch(`${base}/getMe`, {
      method: 'POST',
      headers: {'content-type': 'application/octet-stream'},
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < 60; i++) controller.enqueue(new Uint8Array(MiB))
          controller.close()
        },
      }),
      duplex: 'half',
    } as RequestInit)
    expect(plain.status).toBe(200)
    await alive()
  })

  it('a broken gzip stream is 400 Bad Request, not 500', async () => {
    const {base, alive} = await started()
    const answer = await post(`${base}/sendMessage`, Buffer.from('not gzip at all'), {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
    })
    expect(answer.status).toBe(400)
    expect(answer.json.description).toMatch(/^Bad Request: /)
    await alive()
  })

  it('a declared Content-Length over 50 MiB is answered 413 before the body is sent', async () => {
    const {emu, token, alive} = await started()
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: emu.port,
          method: 'POST',
          path: `/bot${token}/sendDocument`,
          headers: {'content-type': MULTIPART, 'content-length': 60 * MiB},
        },
        (res) => {
          res.resume()
          resolve(res.statusCode ?? 0)
          req.destroy()
        },
      )
      req.on('error', (err) => {
        if (!req.destroyed) reject(err)
      })
      req.write('--') // the rest never comes
    })
    expect(status).toBe(413)
    await alive()
  })
})

describe('the control API', () => {
  it('a JSON body over 1 MiB is 413, and the same keep-alive connection answers the next request', async () => {
    const {emu, token} = await setup()
    const agent = new http.Agent({keepAlive: true, maxSockets: 1})
    const sockets = new Set<unknown>()
    const call = (method: string, path: string, body?: string) =>
      new Promise<number>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port: emu.port,
            method,
            path,
            agent,
            headers: body === undefined ? {} : {'content-type': 'application/json'},
          },
          (res) => {
            sockets.add(res.socket)
            res.resume()
            res.on('end', () => resolve(res.statusCode ?? 0))
          },
        )
        req.on('error', reject)
        req.setTimeout(10_000, () => req.destroy(new Error(`no answer to ${method} ${path}`)))
        req.end(body)
      })
    try {
      const big = JSON.stringify({message: {text: 'x'.repeat(2 * MiB)}})
      expect(await call('POST', `/_emulator/bots/${token}/updates`, big)).toBe(413)
      expect(await call('GET', `/_emulator/bots/${token}/state`)).toBe(200)
      expect(await call('GET', `/bot${token}/getMe`)).toBe(200)
      expect(sockets.size).toBe(1) // one connection, kept
    } finally {
      agent.destroy()
    }
  })
})

describe('webhook replies', () => {
  it('an answer over 1 MiB runs no method; the update is still acknowledged', async () => {
    const {emu, token, api} = await setup()
    const hook = await receiver(() => ({
      status: 200,
      headers: {'content-type': 'application/json'},
      body: JSON.stringify({method: 'sendMessage', chat_id: 1111, text: 'r', padding: 'p'.repeat(MiB)}),
    }))
    expect((await api('setWebhook', {url: hook.url})).json.ok).toBe(true)
    emu.sendUserMessage(token, {text: 'hi'})
    await waitFor(() => hook.received.length === 1 && emu.pendingUpdates(token).length === 0, {what: 'the delivery'})
    emu.sendUserMessage(token, {text: 'again'})
    await waitFor(() => hook.received.length === 2 && emu.pendingUpdates(token).length === 0, {what: 'the next one'})
    expect(emu.calls(token).filter((c) => c.source === 'webhook-reply')).toEqual([])
  })
})

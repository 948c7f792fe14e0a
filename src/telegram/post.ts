/**
 * One Bot API request with a JSON body, sent with node:http(s) rather than fetch, for a server the
 * process reaches directly (no proxy). fetch (undici) costs about 0.1–0.2 ms more per request on
 * loopback, which the polling bridge pays on every update it takes from the emulator or a local
 * Bot API server. The global agents keep connections alive (and unref them while idle, so they
 * never hold the process open). A redirect is answered as it is, never followed, as fetch's
 * `redirect: 'manual'`. Multipart bodies, and anything a proxy carries (undici's global dispatcher,
 * lib/proxy.ts), still go through fetch.
 */
import http from 'node:http'
import https from 'node:https'

/** What the client reads of an answer, from fetch's Response or from node:http's. */
export interface PostAnswer {
  status: number
  statusText: string
  header(name: string): string | undefined
  text: string
}

/** POST `body` to `url`; rejects with node's error (its `code`, e.g. ECONNREFUSED) or the signal's abort. */
export function postJson(
  url: URL,
  body: string,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<PostAnswer> {
  const send = url.protocol === 'https:' ? https.request : http.request
  return new Promise<PostAnswer>((resolve, reject) => {
    const req = send(
      url,
      {method: 'POST', headers: {...headers, 'content-length': String(Buffer.byteLength(body))}, signal},
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('error', reject)
        res.on('close', () => {
          if (!res.complete)
            return reject(
              Object.assign(new Error('the connection closed before the whole answer arrived'), {code: 'ECONNRESET'}),
            )
          const value = (name: string) => {
            const v = res.headers[name.toLowerCase()]
            return Array.isArray(v) ? v.join(', ') : v
          }
          resolve({
            status: res.statusCode ?? 0,
            statusText: res.statusMessage ?? '',
            header: value,
            text: Buffer.concat(chunks).toString('utf8'),
          })
        })
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

/** The same view of a fetch Response. */
export async function fetchAnswer(response: Response): Promise<PostAnswer> {
  const text = await response.text()
  return {
    status: response.status,
    statusText: response.statusText,
    header: (name) => response.headers.get(name) ?? undefined,
    text,
  }
}

/** An end-to-end check of a tunnel: GET <url><path> through the public side. */

export interface ProbeOptions {
  /** Default 5000 ms. */
  timeoutMs?: number
  signal?: AbortSignal
}

export interface ProbeResult {
  /** True when the answer was 2xx. */
  ok: boolean
  /** HTTP status; 0 when no answer came (network error, timeout, abort). */
  status: number
  /** Time until the whole answer was read, in ms. */
  ms: number
  /** Why there was no answer (when status is 0). */
  error?: string
}

export async function probeTunnel(url: string, path: string, options: ProbeOptions = {}): Promise<ProbeResult> {
  const started = performance.now()
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 5000)
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout
  const target = url.replace(/\/+$/, '') + (path.startsWith('/') ? path : `/${path}`)
  try {
    // localtunnel.me shows a reminder page to browsers unless this header is present.
    const res = await fetch(target, {signal, headers: {'bypass-tunnel-reminder': '1', 'user-agent': 'bot-cli-probe'}})
    await res.arrayBuffer()
    return {ok: res.ok, status: res.status, ms: performance.now() - started}
  } catch (err) {
    let error: string
    if (options.signal?.aborted) error = 'aborted'
    else if (timeout.aborted) error = `no answer within ${options.timeoutMs ?? 5000} ms`
    else {
      const cause = (err as {cause?: {code?: string; message?: string}}).cause
      error = cause?.code ?? cause?.message ?? (err as Error).message
    }
    return {ok: false, status: 0, ms: performance.now() - started, error}
  }
}

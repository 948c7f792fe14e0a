/**
 * A bound on one line of piped chat input. readline keeps everything up to the next newline, so
 * input without newlines (`< /dev/zero`, a binary file) would grow its buffer until the process
 * dies. Lines longer than `maxBytes` are cut there: the first `maxBytes` go on as a line, the rest
 * up to the next newline is dropped, and `onCut` is told once per cut line.
 */
import {Transform, type TransformCallback} from 'node:stream'

export const MAX_LINE_BYTES = 64 * 1024

export function limitLines(input: NodeJS.ReadableStream, maxBytes: number, onCut: () => void): NodeJS.ReadableStream {
  let lineBytes = 0
  let dropping = false
  const limiter = new Transform({
    transform(chunk: Buffer | string, _encoding, done: TransformCallback) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
      const out: Buffer[] = []
      let from = 0
      while (from < bytes.length) {
        const nl = bytes.indexOf(0x0a, from)
        const end = nl < 0 ? bytes.length : nl + 1
        if (dropping) {
          if (nl >= 0) {
            dropping = false
            lineBytes = 0
          }
          from = end
          continue
        }
        const room = maxBytes - lineBytes
        const piece = end - from - (nl < 0 ? 0 : 1) // without its newline
        if (piece <= room) {
          out.push(bytes.subarray(from, end))
          lineBytes = nl < 0 ? lineBytes + piece : 0
        } else {
          out.push(bytes.subarray(from, from + room), Buffer.from('\n'))
          try {
            onCut()
          } catch {
            // a broken listener does not stop the input
          }
          dropping = nl < 0
          lineBytes = 0
        }
        from = end
      }
      done(null, out.length > 0 ? Buffer.concat(out) : undefined)
    },
  })
  input.on('error', (error: Error) => limiter.destroy(error))
  return input.pipe(limiter)
}

/**
 * A closed stdout/stderr (`bot dev 2>&1 | head -3`, a closed terminal) must not kill the session
 * before its teardown: a write error (EPIPE…) marks the stream closed, later writes to it are
 * dropped, and `onClosed` runs once (the session then tears down as on SIGPIPE).
 */
export interface OutputGuard {
  /** False once the stream has failed: do not write to it. */
  writable(stream: NodeJS.WritableStream): boolean
  dispose(): void
}

export function guardOutput(
  streams: NodeJS.WritableStream[],
  onClosed: (error: NodeJS.ErrnoException) => void,
): OutputGuard {
  const closed = new Set<NodeJS.WritableStream>()
  let told = false
  const listeners: Array<[NodeJS.WritableStream, (error: NodeJS.ErrnoException) => void]> = []
  for (const stream of streams) {
    const listener = (error: NodeJS.ErrnoException) => {
      closed.add(stream)
      if (told) return
      told = true
      try {
        onClosed(error)
      } catch {
        // nothing may escape an 'error' listener
      }
    }
    stream.on('error', listener)
    listeners.push([stream, listener])
  }
  return {
    writable: (stream) => !closed.has(stream) && !(stream as NodeJS.WritableStream & {destroyed?: boolean}).destroyed,
    dispose() {
      // The listeners stay: a late EPIPE after the session must not crash the exit either.
      for (const [stream, listener] of listeners) {
        stream.off('error', listener)
        stream.on('error', () => {})
      }
    },
  }
}

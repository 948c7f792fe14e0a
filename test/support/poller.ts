/**
 * A long-poller that runs inside the test process itself: getUpdates with a 30 s timeout, again and
 * again, until stopped. To a `bot dev` or `bot doctor` started by the test it runs "elsewhere": the
 * test process is their ancestor (left out of their scans) and has no token in its environment.
 */
export interface InProcessPoller {
  stop(): Promise<void>
}

export function inProcessPoller(apiRoot: string, token: string): InProcessPoller {
  const controller = new AbortController()
  const loop = (async () => {
    while (!controller.signal.aborted)
      await fetch(`${apiRoot}/bot${token}/getUpdates`, {
        method: 'POST',
        headers: {'content-type': 'application/json'},
        body: JSON.stringify({timeout: 30}),
        signal: controller.signal,
      })
        .then((r) => r.arrayBuffer())
        .catch(() => undefined)
  })()
  return {
    async stop() {
      controller.abort()
      await loop
    },
  }
}

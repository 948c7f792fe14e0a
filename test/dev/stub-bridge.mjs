// A stand-in for src/dev/delivery/bridge.ts (UpdateBridge, written by another engineer) for the
// session tests while that file is absent from the build: installed as dist/dev/delivery/bridge.js
// only when no real one is there. Sequential and simple: getUpdates, POST each update to the relay
// with the secret header, retry until 2xx, confirm the offset only after the acknowledgement.
export class UpdateBridge {
  #o
  #stopped = false
  #loop
  #offset
  constructor(options) {
    this.#o = options
  }
  async start() {
    await this.#o.api.getUpdates({limit: 1, timeout: 0}, {signal: this.#o.signal})
    this.#loop = this.#run()
  }
  async #run() {
    while (!this.#stopped) {
      let updates
      try {
        updates = await this.#o.api.getUpdates({timeout: 1, ...(this.#offset !== undefined ? {offset: this.#offset} : {})}, {signal: this.#o.signal})
      } catch {
        if (this.#stopped || this.#o.signal?.aborted) return
        await new Promise((r) => setTimeout(r, 100))
        continue
      }
      for (const update of updates) {
        for (;;) {
          if (this.#stopped) return
          try {
            const res = await fetch(this.#o.target.url, {method: 'POST', headers: {'content-type': 'application/json', 'x-telegram-bot-api-secret-token': this.#o.target.secret}, body: JSON.stringify(update)})
            await res.arrayBuffer()
            if (res.ok) break
          } catch {}
          await new Promise((r) => setTimeout(r, 100))
        }
        this.#offset = update.update_id + 1
      }
    }
  }
  async stop() {
    this.#stopped = true
    await Promise.race([this.#loop, new Promise((r) => setTimeout(r, 2000))])
    if (this.#offset !== undefined) await this.#o.api.getUpdates({offset: this.#offset, limit: 1, timeout: 0}).catch(() => {})
    return {pending: 0}
  }
}

// The least a recording can do per update, for bench/relay.ts --events floor: keep the newest 1000
// updates as their redacted JSON text (replaced by the expression the real history uses,
// telegram/redact.ts's redactionPattern over the secrets and anything token-shaped) with the bot's
// answer, and append one JSON line per update to a 0600 log every 100 ms. No parsing, no
// description, no tags, threads or trigger facts, no bounds on sizes: not a recording to use, a
// measure of what keeping and logging each update costs in the relay's process, to read `--events`
// (the real recording) against.
import {closeSync, openSync, writeSync} from 'node:fs'
import {join} from 'node:path'

const LIMIT = 1000

export class RecordingFloor {
  #kept = []
  #dirty = new Set()
  #timer
  #seq = 0
  #fd
  #redaction
  #redacted

  /** `redaction`: the global expression for what is redacted, replaced by `redacted`. */
  constructor({keepDir, redaction, redacted}) {
    this.#fd = openSync(join(keepDir, 'floor-history.jsonl'), 'a', 0o600)
    this.#redaction = redaction
    this.#redacted = redacted
  }

  attachRelay(relay) {
    relay.setRecorder({
      begin: (body) => this.#begin(body),
      finish: (entry, answer, ms) => {
        entry.answer = answer
        entry.ms = ms
        this.#changed(entry)
      },
    })
  }

  decorate() {}

  close() {
    this.#flush()
    closeSync(this.#fd)
  }

  #begin(body) {
    const entry = {
      seq: ++this.#seq,
      time: Date.now(),
      json: body.toString('utf8').replace(this.#redaction, this.#redacted),
      answer: null,
      ms: 0,
    }
    this.#kept.push(entry)
    if (this.#kept.length > LIMIT) this.#kept.shift()
    this.#changed(entry)
    return entry
  }

  #changed(entry) {
    this.#dirty.add(entry)
    this.#timer ??= setTimeout(() => this.#flush(), 100)
  }

  #flush() {
    this.#timer = undefined
    let text = ''
    for (const e of this.#dirty)
      text += `{"seq":${e.seq},"time":${e.time},"ms":${e.ms},"answer":${JSON.stringify(e.answer)},"update":${e.json}}\n`
    this.#dirty.clear()
    if (text) writeSync(this.#fd, text)
  }
}

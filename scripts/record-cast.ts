/**
 * Turns what util-linux `script -m classic -T TIMING -O LOG` recorded into an asciicast v2 file
 * (https://docs.asciinema.org/manual/asciicast/v2/): a header line, then one `[seconds, "o", data]`
 * line per chunk the program wrote, with the real delays `script` measured. Used by
 * scripts/record-dev.sh; nothing is made up: every byte and every delay comes from the run.
 *
 *   npx tsx scripts/record-cast.ts LOG TIMING WIDTH HEIGHT TITLE > out.cast
 */
import {readFileSync} from 'node:fs'

const [log, timing, width, height, title] = process.argv.slice(2)
if (!log || !timing || !width || !height) {
  process.stderr.write('usage: record-cast.ts LOG TIMING WIDTH HEIGHT [TITLE]\n')
  process.exit(2)
}

const bytes = readFileSync(log)
// `script` writes one header line ("Script started on …") before the recorded output.
let at = bytes.indexOf(0x0a) + 1
const lines = [
  JSON.stringify({
    version: 2,
    width: Number(width),
    height: Number(height),
    timestamp: Math.floor(Date.now() / 1000),
    title,
    env: {TERM: 'xterm-256color', SHELL: '/bin/bash'},
  }),
]
let clock = 0
let pending = Buffer.alloc(0)
for (const entry of readFileSync(timing, 'utf8').split('\n')) {
  const m = /^(\d+(?:\.\d+)?) (\d+)$/.exec(entry.trim())
  if (!m) continue
  clock += Number(m[1])
  // A chunk may end inside a UTF-8 character: carry the incomplete tail to the next chunk.
  let chunk = Buffer.concat([pending, bytes.subarray(at, at + Number(m[2]))])
  at += Number(m[2])
  let cut = chunk.length
  for (let back = 1; back <= Math.min(3, chunk.length); back++) {
    const b = chunk[chunk.length - back]
    if ((b & 0xc0) === 0x80) continue // a continuation byte: look further back
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1
    if (need > back) cut = chunk.length - back
    break
  }
  pending = chunk.subarray(cut)
  chunk = chunk.subarray(0, cut)
  if (chunk.length > 0) lines.push(JSON.stringify([Number(clock.toFixed(6)), 'o', chunk.toString('utf8')]))
}
process.stdout.write(lines.join('\n') + '\n')

/**
 * The emulator's message store past its bound (50,000 messages): a put that also forgets the oldest message must cost
 * what a put below the bound costs. (A new Map iterator per forgotten message walked every slot deleted at the Map's
 * front: 14 µs a put past the bound, against 0.3 µs below it.)
 *
 *   npx tsx bench/message-store.ts
 *
 * Prints µs per put below the bound (the baseline, same run) and past it, and the ratio; target ≤ 3× by the median of three runs (it also forgets a
 * message; the linear walk was ~45×).
 */
import {MessageStore} from '../src/emulator/state/messages.js'

const BOUND = 50_000
const PAST = 150_000

const message = (messageId: number) => ({message_id: messageId, date: 0, chat: {id: 1}, text: 'x'})

function run(): {below: number; past: number} {
  const store = new MessageStore()
  let t0 = performance.now()
  for (let i = 1; i <= BOUND; i++) store.put(message(i), false)
  const below = ((performance.now() - t0) * 1000) / BOUND
  t0 = performance.now()
  for (let i = BOUND + 1; i <= BOUND + PAST; i++) store.put(message(i), false)
  const past = ((performance.now() - t0) * 1000) / PAST
  return {below, past}
}

run() // warm-up
const runs = [run(), run(), run()]
for (const [i, r] of runs.entries())
  console.log(
    `run ${i + 1}: ${r.below.toFixed(2)} µs a put below the bound, ${r.past.toFixed(2)} µs past it: ${(r.past / r.below).toFixed(2)}×`,
  )
const median = runs.map((r) => r.past / r.below).sort((a, b) => a - b)[1]
console.log(`${median <= 3 ? '✓' : '✗'} a put past the bound costs ${median.toFixed(2)}× one below it (target ≤ 3×)`)

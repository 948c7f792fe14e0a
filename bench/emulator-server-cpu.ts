/**
 * The server's own CPU per Bot API call, apart from the client's: the emulator and the floor server
 * (bench/emulator-floor.ts, which answers and does nothing else) each run in a process of their own and get
 * the same sequential `sendMessage` calls over one kept-alive loopback connection from a raw-socket client
 * in this process. CPU is read from /proc over the measured calls only (after a warm-up), split into user
 * and system time of the main thread and the time of the process's other threads (the garbage collector's
 * helpers, the compiler).
 *
 *   npx tsx bench/emulator-server-cpu.ts [--calls 20000] [--rounds 3]
 *
 * Read with bench/emulator-throughput.ts: there both servers share a process with the client, whose cost is
 * most of a round trip. Here the difference between the two rows is what the emulator itself does per call
 * (parameters, checks, formatting, storing and recording the message, the answer), and the system time is
 * what one more read and write on loopback costs whoever serves it. Loopback only; Linux (/proc) only.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import net from 'node:net'
import {createInterface} from 'node:readline'
import {fileURLToPath} from 'node:url'

import {cpuTimes, threadIds} from './proc-cpu.js'

const CHATS = 50

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? Number(process.argv[i + 1]) : fallback
}

/** The child: serve with the emulator or the floor, print where, then wait to be killed. */
async function serve(kind: string): Promise<void> {
  if (kind === 'floor') {
    const {startFloorServer} = await import('./emulator-floor.js')
    const floor = await startFloorServer()
    console.log(JSON.stringify({apiRoot: floor.apiRoot, token: floor.token}))
    return
  }
  const {BotApiEmulator} = await import('../src/emulator/index.js')
  const emu = await BotApiEmulator.start()
  const token = emu.createBot().token
  // The chats the calls go to: a private chat with each user, known once the user wrote.
  for (let u = 0; u < CHATS; u++) emu.sendUserMessage(token, {text: 'hi', userId: 1000 + u})
  console.log(JSON.stringify({apiRoot: emu.apiRoot, token}))
}

/** CPU ms used so far by each thread of a process. */
function threadTimes(pid: number): Map<number, {user: number; sys: number}> {
  const out = new Map<number, {user: number; sys: number}>()
  for (const tid of threadIds(pid)) {
    const t = cpuTimes(pid, tid)
    if (t) out.set(tid, t) // else a thread that ended
  }
  return out
}

interface Figures {
  user: number
  sys: number
  other: number
}

/** Start a server process, warm it up, then time `calls` sequential sendMessage calls; µs per call. */
async function measure(kind: 'emulator' | 'floor', calls: number): Promise<Figures> {
  const child: ChildProcess = spawn(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url), '--serve', kind],
    {stdio: ['ignore', 'pipe', 'inherit']},
  )
  try {
    const info = await new Promise<{apiRoot: string; token: string}>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the ${kind} server did not start within 30 s`)), 30_000)
      createInterface({input: child.stdout!}).on('line', (line) => {
        if (!line.startsWith('{')) return
        clearTimeout(timer)
        resolve(JSON.parse(line) as {apiRoot: string; token: string})
      })
      child.once('exit', (code) => reject(new Error(`the ${kind} server exited with ${code}`)))
    })
    const url = new URL(info.apiRoot)
    const socket = net.connect({host: url.hostname, port: Number(url.port), noDelay: true})
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve)
      socket.once('error', reject)
    })
    let waiting: ((ok: boolean) => void) | undefined
    let buffered: Buffer = Buffer.alloc(0)
    socket.on('data', (chunk: Buffer) => {
      buffered = buffered.length > 0 ? Buffer.concat([buffered, chunk]) : chunk
      const end = buffered.indexOf('\r\n\r\n')
      if (end < 0) return
      const head = buffered.toString('latin1', 0, end)
      const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0)
      if (buffered.length < end + 4 + length) return
      buffered = buffered.subarray(end + 4 + length)
      const done = waiting
      waiting = undefined
      done?.(/^HTTP\/1\.1 200 /.test(head))
    })
    socket.on('error', () => waiting?.(false))
    const call = (i: number) =>
      new Promise<boolean>((resolve) => {
        waiting = resolve
        const body = JSON.stringify({chat_id: 1000 + (i % CHATS), text: `re: m${i}`})
        socket.write(
          `POST /bot${info.token}/sendMessage HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        )
      })
    for (let i = 0; i < Math.min(5000, calls); i++)
      if (!(await call(i))) throw new Error(`the ${kind} server refused a sendMessage`)
    const before = threadTimes(child.pid!)
    for (let i = 0; i < calls; i++) if (!(await call(i))) throw new Error(`the ${kind} server refused a sendMessage`)
    const after = threadTimes(child.pid!)
    socket.destroy()
    const figures: Figures = {user: 0, sys: 0, other: 0}
    for (const [tid, t] of after) {
      const b = before.get(tid) ?? {user: 0, sys: 0}
      if (tid === child.pid) {
        figures.user += t.user - b.user
        figures.sys += t.sys - b.sys
      } else figures.other += t.user - b.user + t.sys - b.sys
    }
    const us = (ms: number) => (ms * 1000) / calls
    return {user: us(figures.user), sys: us(figures.sys), other: us(figures.other)}
  } finally {
    child.kill()
  }
}

async function main(): Promise<void> {
  if (process.platform !== 'linux') {
    console.error('This bench reads CPU times from /proc: Linux only.')
    process.exit(2)
  }
  const calls = option('calls', 20_000)
  const rounds = option('rounds', 3)
  console.log(
    `Server CPU per sendMessage (µs), ${calls} sequential calls on one kept-alive loopback connection, each server in its own process; ${rounds} rounds, interleaved\n`,
  )
  console.log('round  server      main user  main sys  other threads  total')
  const totals: Record<'emulator' | 'floor', number[]> = {emulator: [], floor: []}
  const users: Record<'emulator' | 'floor', number[]> = {emulator: [], floor: []}
  for (let round = 1; round <= rounds; round++) {
    for (const kind of round % 2 === 1 ? (['emulator', 'floor'] as const) : (['floor', 'emulator'] as const)) {
      const f = await measure(kind, calls)
      const total = f.user + f.sys + f.other
      totals[kind].push(total)
      users[kind].push(f.user)
      console.log(
        `${String(round).padStart(5)}  ${kind.padEnd(10)} ${f.user.toFixed(1).padStart(10)} ${f.sys.toFixed(1).padStart(9)} ${f.other.toFixed(1).padStart(14)} ${total.toFixed(1).padStart(6)}`,
      )
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
  console.log('')
  console.log(
    `medians: emulator ${median(totals.emulator).toFixed(1)} µs, floor ${median(totals.floor).toFixed(1)} µs per call (${(median(totals.emulator) / median(totals.floor)).toFixed(2)}×); ` +
      `user time on the main thread: emulator ${median(users.emulator).toFixed(1)} µs, floor ${median(users.floor).toFixed(1)} µs`,
  )
}

const serveArg = process.argv.indexOf('--serve')
if (serveArg > 0) await serve(process.argv[serveArg + 1])
else await main()

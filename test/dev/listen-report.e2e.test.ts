/**
 * Issue 31 item 16: the bot says when its server listens. bot dev's preload (dist/dev/imports/
 * preload.cjs, in the bot's NODE_OPTIONS) reports `<pid> <port>` on the session's socket
 * (src/dev/imports/listens.ts) from Node's `net.server.listen` tracing channel, so the wait for
 * PORT ends then instead of at the next connect poll. Real Node processes (directly and under
 * `sh -c`, as a dev:bot script runs), the real preload and socket; what is not a report is dropped.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {createConnection} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {resolveBotCommand} from '../../src/dev/bot/command.js'
import {BotProcess, pollPause} from '../../src/dev/bot/process.js'
import {ListenReports} from '../../src/dev/imports/listens.js'
import {freePort} from '../../src/lib/free-port.js'
import {PROJECT_ROOT} from '../support/cli.js'
import {waitFor} from '../support/wait.js'

const PRELOAD = join(PROJECT_ROOT, 'dist', 'dev', 'imports', 'preload.cjs')
const SERVER = `require('node:http').createServer((q, s) => s.end('ok')).listen(Number(process.env.PORT), () => console.log('up'))`

const cleanups: Array<() => void> = []
afterEach(() => {
  for (const c of cleanups.splice(0)) c()
})

/** Writes `text` to the report socket at `path` and resolves once the connection is closed (or refused). */
function sendRaw(path: string, text: string): Promise<void> {
  return new Promise<void>((resolve) => {
    const s = createConnection(path)
    s.on('error', () => resolve())
    s.on('close', () => resolve())
    s.end(text)
  })
}

/**
 * Starts SERVER as a bot with the preload reporting to `r`, and waits for its PORT with `wait` (polls set ten minutes
 * apart, so only the report can end the wait in time): the host that answered, or 'exited'.
 */
async function reportedBotHost(
  r: ListenReports,
  wait: {intervalMs?: number; reportedIntervalMs?: number},
): Promise<string | undefined> {
  const port = await freePort()
  const bot = new BotProcess({
    command: resolveBotCommand([process.execPath, '-e', SERVER], tmpdir()),
    cwd: tmpdir(),
    env: {...process.env, ...r.env(), PORT: String(port), NODE_OPTIONS: `--require "${PRELOAD}"`},
  })
  cleanups.push(() => bot.kill())
  return Promise.race([bot.waitListening(port, {...wait, signals: r}), bot.exited.then(() => 'exited')])
}

function reports(): ListenReports {
  const dir = mkdtempSync(join(tmpdir(), 'bot-listen-report-'))
  const r = new ListenReports(dir)
  cleanups.push(() => {
    r.close()
    rmSync(dir, {recursive: true, force: true})
  })
  return r
}

function run(file: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  // In a group of its own: the cleanup reaches the server under sh -c too.
  const child = spawn(file, args, {env: {...process.env, ...env}, stdio: ['ignore', 'pipe', 'inherit'], detached: true})
  cleanups.push(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL')
    } catch {
      // gone already
    }
  })
  return child
}

const lines = (child: ChildProcess) => {
  let out = ''
  child.stdout!.on('data', (d) => {
    out += d
  })
  return () => out
}

describe('the bot says when its server listens (preload → listens.ts)', () => {
  it('a Node server on PORT is reported with its pid, directly and under sh -c', async () => {
    const r = reports()
    expect(r.path).toBeDefined()
    for (const wrapped of [false, true]) {
      const port = await freePort()
      const heard: number[] = []
      const off = r.on(port, (pid) => heard.push(pid))
      const env = {...r.env(), PORT: String(port), NODE_OPTIONS: `--require "${PRELOAD}"`}
      const child = wrapped
        ? run('sh', ['-c', `"${process.execPath}" -e "${SERVER}"; :`], env)
        : run(process.execPath, ['-e', SERVER], env)
      const out = lines(child)
      await waitFor(() => heard.length > 0, {what: `the report (${wrapped ? 'sh -c' : 'direct'})`})
      off()
      if (!wrapped) expect(heard).toEqual([child.pid])
      // Under sh -c the server is the shell's child: another pid, and not the shell's.
      else expect(heard[0]).not.toBe(child.pid)
      await waitFor(() => out().includes('up'), {what: 'the server up'})
    }
  })

  it('without BOT_DEV_LISTEN the preload says nothing, and the server runs as before', async () => {
    const r = reports()
    const port = await freePort()
    const heard: number[] = []
    r.on(port, (pid) => heard.push(pid))
    // A second server, reported: the socket works (the first one, up before it, had nothing to say).
    const sentinelPort = await freePort()
    const sentinel: number[] = []
    r.on(sentinelPort, (pid) => sentinel.push(pid))
    const quiet = run(process.execPath, ['-e', SERVER], {PORT: String(port), NODE_OPTIONS: `--require "${PRELOAD}"`})
    const out = lines(quiet)
    await waitFor(() => out().includes('up'), {what: 'the unreported server up'})
    run(process.execPath, ['-e', SERVER], {
      ...r.env(),
      PORT: String(sentinelPort),
      NODE_OPTIONS: `--require "${PRELOAD}"`,
    })
    await waitFor(() => sentinel.length > 0, {what: 'the sentinel report'})
    expect(heard).toEqual([])
  })

  it('what is not a report (garbage, too long, a port nobody waits for) wakes nothing and breaks nothing', async () => {
    const r = reports()
    const port = await freePort()
    const heard: number[] = []
    r.on(port, (pid) => heard.push(pid))
    const send = (text: string) => sendRaw(r.path!, text)
    await send('hello\n')
    await send(`${'9'.repeat(100)} ${port}\n`)
    await send(`12 ${port}`) // no end of line
    await send(`12 ${port + 1}\n`)
    await send(`77 ${port}\n`)
    await waitFor(() => heard.length > 0, {what: 'the one real report'})
    expect(heard).toEqual([77])
  })

  it("the bot process's wait for PORT ends at the report, not at its next poll (here 10 minutes away)", async () => {
    const r = reports()
    // The server listens on `::` (both families): whichever of the two connects first after the report answers.
    expect(['127.0.0.1', '::1']).toContain(await reportedBotHost(r, {intervalMs: 600_000}))
  })

  it('a report makes the session hear them: later waits poll only now and then, and still end at the report', async () => {
    const r = reports()
    expect(r.heard).toBe(false)
    expect(pollPause({signals: r})).toBe(20)
    // Garbage is no report.
    await sendRaw(r.path!, 'hello\n')
    expect(r.heard).toBe(false)
    const first = await freePort()
    const heard: number[] = []
    r.on(first, (pid) => heard.push(pid))
    run(process.execPath, ['-e', SERVER], {...r.env(), PORT: String(first), NODE_OPTIONS: `--require "${PRELOAD}"`})
    await waitFor(() => heard.length > 0, {what: 'the first report'})
    expect(r.heard).toBe(true)
    expect(pollPause({signals: r})).toBe(250)
    expect(pollPause({signals: r, intervalMs: 500})).toBe(500)
    expect(pollPause({intervalMs: 20})).toBe(20)
    // The next bot's wait: its polls ten minutes apart, it ends at the report.
    expect(['127.0.0.1', '::1']).toContain(await reportedBotHost(r, {reportedIntervalMs: 600_000}))
  })
})

/**
 * A throwaway Redis for tests and benches: Debian's redis-server on 127.0.0.1 and a free port,
 * nothing saved to disk, stopped by `stop()`. CI installs redis-server with apt-get (.ci/run).
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {connect} from 'node:net'
import {freePort} from '../../src/lib/free-port.js'
import {waitFor} from './wait.js'

export const REDIS_SERVER = process.env.REDIS_SERVER ?? '/usr/bin/redis-server'

export interface RedisServer {
  url: string
  port: number
  child: ChildProcess
  output: () => string
  stop(): Promise<void>
}

/** Send one inline command and read the first reply line (e.g. PING → "+PONG"). */
export function redisCommand(port: number, command: string, timeoutMs = 2000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({host: '127.0.0.1', port})
    let data = ''
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`redis ${command}: no answer within ${timeoutMs} ms`))
    }, timeoutMs)
    socket.on('connect', () => socket.write(`${command}\r\n`))
    socket.on('data', (d) => {
      data += d.toString('utf8')
      if (data.includes('\r\n')) {
        clearTimeout(timer)
        socket.end()
        resolve(data.split('\r\n')[0])
      }
    })
    socket.on('error', (err) => {
      clearTimeout(timer)
      reject(err)
    })
  })
}

export async function startRedis(timeoutMs = 15_000): Promise<RedisServer> {
  const port = await freePort()
  const child = spawn(
    REDIS_SERVER,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let output = ''
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (output = (output + d).slice(-20_000)))
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (output = (output + d).slice(-20_000)))
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()))
  let gone = false
  void exited.then(() => (gone = true))
  const stop = async () => {
    if (gone) return
    child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
    await exited
    clearTimeout(timer)
  }
  try {
    // (an error: not listening yet)
    await waitFor(async () => gone || (await redisCommand(port, 'PING', 1000)) === '+PONG', {
      what: () => `redis-server to answer PING:\n${output}`,
      timeout: timeoutMs,
      interval: 50,
    })
  } catch (error) {
    await stop()
    throw error
  }
  if (gone) throw new Error(`redis-server exited before answering:\n${output}`)
  return {url: `redis://127.0.0.1:${port}`, port, child, output: () => output, stop}
}

/**
 * A scaffolded bot in production shape, on loopback: Redis, N instances of the built bot
 * (`node dist/main.js`, webhook mode) and nginx in front of them, round robin. Used by the e2e
 * test and by bench/templates-scale.ts. Every process is started here and stopped by `stop()`.
 */
import {cliEnv} from '../support/cli.js'
import {startNginx, type NginxServer} from '../support/nginx.js'
import {startRedis, type RedisServer} from '../support/redis.js'
import {startProcess, type RunningProcess} from './support.js'
import {freePort} from '../../src/lib/free-port.js'

export interface Instance {
  port: number
  process: RunningProcess
  /** SIGTERM, then wait for the exit (SIGKILL after `ms`). */
  stop(ms?: number): Promise<{code: number | null; signal: NodeJS.Signals | null}>
}

export interface ClusterOptions {
  /** The scaffolded and built project. */
  dir: string
  token: string
  apiRoot: string
  instances: number
  /** Start Redis and give its URL to the instances (else sessions stay in memory). */
  redis?: boolean
  /** Put nginx in front (else `url` is the first instance's). */
  nginx?: boolean
  path?: string
  secret?: string
  env?: Record<string, string>
}

export interface Cluster {
  /** Where Telegram (the emulator) posts: nginx's URL + path, or the single instance's. */
  webhookUrl: string
  secret: string
  instances: Instance[]
  redis?: RedisServer
  nginx?: NginxServer
  stop(): Promise<void>
}

export function startInstance(dir: string, env: Record<string, string>): Promise<Instance> {
  return (async () => {
    const port = Number(env.PORT)
    const process = startProcess(globalThis.process.execPath, ['dist/main.js'], {cwd: dir, env: cliEnv({env})})
    const instance: Instance = {
      port,
      process,
      async stop(ms = 15_000) {
        if (process.child.exitCode === null && process.child.signalCode === null) process.child.kill('SIGTERM')
        const timer = setTimeout(() => process.child.kill('SIGKILL'), ms)
        const exit = await process.exited
        clearTimeout(timer)
        return exit
      },
    }
    try {
      await process.waitForOutput(/is running \(webhook/, 30_000)
    } catch (err) {
      await instance.stop(2000)
      throw err
    }
    return instance
  })()
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const path = options.path ?? '/tg/hook'
  const secret = options.secret ?? 'cluster-secret_0123456789'
  const instances: Instance[] = []
  let redis: RedisServer | undefined
  let nginx: NginxServer | undefined
  const stop = async () => {
    await nginx?.stop().catch(() => {})
    await Promise.all(instances.map((i) => i.stop(5000).catch(() => {})))
    await redis?.stop().catch(() => {})
  }
  try {
    if (options.redis) redis = await startRedis()
    const ports = await Promise.all(Array.from({length: options.instances}, () => freePort()))
    const started = await Promise.allSettled(
      ports.map((port) =>
        startInstance(options.dir, {
          BOT_TOKEN: options.token,
          BOT_API_ROOT: options.apiRoot,
          BOT_MODE: 'webhook',
          PORT: String(port),
          WEBHOOK_PATH: path,
          WEBHOOK_SECRET: secret,
          ...(redis ? {REDIS_URL: redis.url} : {}),
          ...options.env,
        }),
      ),
    )
    for (const s of started) if (s.status === 'fulfilled') instances.push(s.value)
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected')
    if (failed) throw failed.reason
    if (options.nginx) nginx = await startNginx({upstreams: ports})
    const base = nginx ? nginx.url : `http://127.0.0.1:${ports[0]}`
    return {webhookUrl: `${base}${path}`, secret, instances, redis, nginx, stop}
  } catch (err) {
    await stop()
    throw err
  }
}

/** setWebhook on the emulator (local mode: http and any port are fine). */
export async function setWebhook(
  apiRoot: string,
  token: string,
  url: string,
  secret: string,
  maxConnections?: number,
): Promise<void> {
  const res = await fetch(`${apiRoot}/bot${token}/setWebhook`, {
    method: 'POST',
    headers: {'content-type': 'application/json'},
    body: JSON.stringify({url, secret_token: secret, ...(maxConnections ? {max_connections: maxConnections} : {})}),
  })
  const body = (await res.json()) as {ok: boolean; description?: string}
  if (!body.ok) throw new Error(`setWebhook failed: ${body.description}`)
}

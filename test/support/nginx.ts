/**
 * A throwaway nginx load balancer for tests and benches: Debian's nginx (nginx-light) in the
 * foreground with its own prefix in a temporary folder, listening on 127.0.0.1 and a free port,
 * round robin over the given upstream ports, retrying the next upstream on a connection error or a
 * timeout, and an access log that records which upstream served each request. CI installs nginx
 * with apt-get (.ci/run).
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {connect} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {freePort} from '../../src/lib/free-port.js'
import {waitFor} from './wait.js'

export const NGINX = process.env.NGINX ?? '/usr/sbin/nginx'

export interface AccessLogEntry {
  method: string
  path: string
  status: number
  /** Every upstream tried, in order ("127.0.0.1:4001, 127.0.0.1:4002" when the first failed). */
  upstreams: string[]
  /** The status each upstream answered, in the same order ("502" style codes for failures). */
  upstreamStatuses: string[]
}

export interface NginxServer {
  url: string
  port: number
  prefix: string
  child: ChildProcess
  output: () => string
  /** The access log so far, one entry per request. */
  accessLog(): AccessLogEntry[]
  stop(): Promise<void>
}

export interface NginxOptions {
  /** Upstream ports on 127.0.0.1. */
  upstreams: number[]
  /** proxy_connect_timeout / proxy_read_timeout, seconds. */
  timeoutSeconds?: number
}

function config(port: number, prefix: string, options: NginxOptions): string {
  const t = options.timeoutSeconds ?? 30
  return `daemon off;
master_process off;
worker_processes 1;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log warn;
events { worker_connections 1024; }
http {
  client_body_temp_path ${prefix}/tmp/body;
  proxy_temp_path ${prefix}/tmp/proxy;
  fastcgi_temp_path ${prefix}/tmp/fastcgi;
  uwsgi_temp_path ${prefix}/tmp/uwsgi;
  scgi_temp_path ${prefix}/tmp/scgi;
  log_format upstream '$request_method|$uri|$status|$upstream_addr|$upstream_status';
  access_log ${prefix}/access.log upstream;
  upstream bots {
${options.upstreams.map((p) => `    server 127.0.0.1:${p} max_fails=0;`).join('\n')}
    keepalive 16;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://bots;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_next_upstream error timeout;
      proxy_next_upstream_tries 0;
      proxy_connect_timeout ${t}s;
      proxy_read_timeout ${t}s;
    }
  }
}
`
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({host: '127.0.0.1', port})
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

export async function startNginx(options: NginxOptions, timeoutMs = 15_000): Promise<NginxServer> {
  const port = await freePort()
  const prefix = mkdtempSync(join(tmpdir(), 'bot-nginx-'))
  mkdirSync(join(prefix, 'tmp'))
  writeFileSync(join(prefix, 'nginx.conf'), config(port, prefix, options))
  writeFileSync(join(prefix, 'access.log'), '')
  const child = spawn(NGINX, ['-p', prefix, '-c', join(prefix, 'nginx.conf'), '-e', join(prefix, 'error.log')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (output = (output + d).slice(-20_000)))
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (output = (output + d).slice(-20_000)))
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()))
  let gone = false
  void exited.then(() => (gone = true))
  const stop = async () => {
    if (!gone) {
      child.kill('SIGQUIT') // graceful: finish the requests in flight
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
      await exited
      clearTimeout(timer)
    }
    rmSync(prefix, {recursive: true, force: true})
  }
  try {
    await waitFor(async () => gone || (await listening(port)), {
      what: () => `nginx to listen:\n${output}`,
      timeout: timeoutMs,
      interval: 50,
    })
  } catch (error) {
    await stop()
    throw error
  }
  if (gone)
    throw new Error(`nginx exited before listening:\n${output}\n${readFileSync(join(prefix, 'error.log'), 'utf8')}`)
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    prefix,
    child,
    output: () => output,
    accessLog: () =>
      readFileSync(join(prefix, 'access.log'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const [method, path, status, upstreams, upstreamStatuses] = line.split('|')
          return {
            method,
            path,
            status: Number(status),
            upstreams: upstreams.split(/,\s*/),
            upstreamStatuses: upstreamStatuses.split(/,\s*/),
          }
        }),
    stop,
  }
}

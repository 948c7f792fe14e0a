#!/usr/bin/env node
/**
 * A loopback stand-in for `cloudflared tunnel --no-autoupdate --url http://127.0.0.1:PORT`.
 *
 * It prints cloudflared's real log lines on stderr (format and order from cloudflared's source,
 * cloudflare/cloudflared cmd/cloudflared/tunnel/quick_tunnel.go), listens on a loopback port, prints that address as
 * the quick tunnel's URL in cloudflared's banner box, and forwards every request to --url (a tiny HTTP proxy). Like a
 * fresh trycloudflare host, the URL works only a moment after it is printed: until then requests get Cloudflare's 530
 * ("error code: 1033"), or their connection is reset.
 *
 * Run it as an executable named `cloudflared` first on PATH (a symlink), or through BOT_CLOUDFLARED.
 *
 * Environment:
 *   FAKE_CLOUDFLARED_DELAY_MS     URL printed → reachable (default 500)
 *   FAKE_CLOUDFLARED_UNREACHABLE  530 (default) | reset: how it answers before that
 *   FAKE_CLOUDFLARED_REGISTER_MS  URL printed → "Registered tunnel connection" (default 100)
 *   FAKE_CLOUDFLARED_FAIL         429 | request | network | edge: fail at start with cloudflared's real lines
 *   FAKE_CLOUDFLARED_NEVER_REGISTER=1  print the URL, then only QUIC dial errors, forever
 *   FAKE_CLOUDFLARED_EXIT_AFTER_MS     exit (code 1) this long after registering
 *   FAKE_CLOUDFLARED_IGNORE_TERM=1     ignore SIGTERM and SIGINT (only SIGKILL ends it)
 *   FAKE_CLOUDFLARED_MAX_INFLIGHT      quick tunnels' limit of requests in flight, then 429 (default 200)
 *   FAKE_CLOUDFLARED_ARGV_FILE         write argv, the pid and the environment there (JSON)
 *   FAKE_CLOUDFLARED_NEVER_REACHABLE=1 never forward (530 forever)
 *   FAKE_CLOUDFLARED_UNREACHABLE_REQUESTS  instead of DELAY_MS: the first N requests get the 530 (with
 *                                 UNREACHABLE=reset: the first N connections are reset), then it forwards (counted,
 *                                 where a delay races a loaded machine)
 */
import http from 'node:http'
import {randomUUID} from 'node:crypto'
import {writeFileSync} from 'node:fs'

const env = process.env
const num = (name, def) => (env[name] !== undefined && env[name] !== '' ? Number(env[name]) : def)

function ts() {
  return new Date().toISOString().replace(/\.\d+Z$/, 'Z')
}
function log(level, message) {
  process.stderr.write(`${ts()} ${level} ${message}\n`)
}
const inf = (m) => log('INF', m)
const err = (m) => log('ERR', m)

const argv = process.argv.slice(2)
if (env.FAKE_CLOUDFLARED_ARGV_FILE)
  writeFileSync(env.FAKE_CLOUDFLARED_ARGV_FILE, JSON.stringify({argv, pid: process.pid, env}))

function flag(name) {
  const i = argv.indexOf(name)
  if (i >= 0) return argv[i + 1]
  const eq = argv.find((a) => a.startsWith(`${name}=`))
  return eq ? eq.slice(name.length + 1) : undefined
}
const origin = flag('--url')
if (argv[0] !== 'tunnel' || !origin) {
  process.stderr.write('Incorrect Usage: fake-cloudflared expects `tunnel [--no-autoupdate] --url URL`\n')
  process.exit(1)
}
let target
try {
  target = new URL(origin)
} catch {
  process.stderr.write(`failed to parse origin url ${origin}\n`)
  process.exit(1)
}

const terms =
  'Thank you for trying Cloudflare Tunnel. Doing so, without a Cloudflare account, is a quick way to experiment and try it out. However, be aware that these account-less Tunnels have no uptime guarantee, are subject to the Cloudflare Online Services Terms of Use (https://www.cloudflare.com/website-terms/), and Cloudflare reserves the right to investigate your use of Tunnels for violations of such terms. If you intend to use Tunnels in production you should use a pre-created named tunnel by following: https://developers.cloudflare.com/cloudflare-one/connections/connect-apps'
inf(terms)
inf('Requesting new quick Tunnel on trycloudflare.com...')

const fail = env.FAKE_CLOUDFLARED_FAIL
if (fail === '429') {
  err(
    'Error unmarshaling QuickTunnel response: error code: 1015 error="invalid character \'e\' looking for beginning of value" status_code="429 Too Many Requests"',
  )
  process.stderr.write("failed to unmarshal quick Tunnel: invalid character 'e' looking for beginning of value\n")
  process.exit(1)
}
if (fail === 'network') {
  process.stderr.write(
    'failed to request quick Tunnel: Post "https://api.trycloudflare.com/tunnel": dial tcp: lookup api.trycloudflare.com on 127.0.0.53:53: no such host\n',
  )
  process.exit(1)
}
if (fail === 'request') {
  process.stderr.write('failed to request quick Tunnel: Post "https://api.trycloudflare.com/tunnel": EOF\n')
  process.exit(1)
}

// The public side: a loopback proxy to --url.
const delayMs = num('FAKE_CLOUDFLARED_DELAY_MS', 500)
const maxInflight = num('FAKE_CLOUDFLARED_MAX_INFLIGHT', 200)
let reachableAt = Infinity
let inflight = 0
let publicUrl = ''

const server = http.createServer((req, res) => {
  try {
    handle(req, res)
  } catch {
    res.destroy()
  }
})
const unreachableRequests = num('FAKE_CLOUDFLARED_UNREACHABLE_REQUESTS', undefined)
const resets = env.FAKE_CLOUDFLARED_UNREACHABLE === 'reset'
let connections = 0
let requests = 0
server.on('connection', (socket) => {
  connections++
  socket.on('error', () => {})
  const early = unreachableRequests === undefined ? Date.now() < reachableAt : connections <= unreachableRequests
  if (early && resets) socket.destroy()
})
server.on('clientError', (_e, socket) => socket.destroy())

function handle(req, res) {
  requests++
  const unreachable =
    unreachableRequests === undefined ? Date.now() < reachableAt : !resets && requests <= unreachableRequests
  if (unreachable || env.FAKE_CLOUDFLARED_NEVER_REACHABLE === '1') {
    res.writeHead(530, {'content-type': 'text/plain; charset=UTF-8', 'cf-ray': 'fake-530'})
    res.end('error code: 1033')
    req.resume()
    return
  }
  if (inflight >= maxInflight) {
    res.writeHead(429, {'content-type': 'text/plain'})
    res.end('Too Many Requests')
    req.resume()
    return
  }
  inflight++
  let done = false
  const finish = () => {
    if (!done) {
      done = true
      inflight--
    }
  }
  res.on('close', finish)
  const headers = {
    ...req.headers,
    'cf-connecting-ip': '127.0.0.1',
    'x-forwarded-for': '127.0.0.1',
    'x-forwarded-proto': 'https',
    'cf-ray': `${randomUUID().slice(0, 16)}-FRA`,
  }
  const upstream = http.request(
    {
      host: target.hostname.replace(/^\[|\]$/g, ''),
      port: target.port || 80,
      method: req.method,
      path: req.url,
      headers,
    },
    (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers)
      up.pipe(res)
      up.on('error', () => res.destroy())
    },
  )
  upstream.on('error', (e) => {
    err(
      `Request failed error="Unable to reach the origin service. The service may be down or it may not be responding to traffic from cloudflared: ${e.code ?? e.message}" connIndex=0 dest=${publicUrl}${req.url} event=0 ip=198.41.200.13 type=http`,
    )
    if (!res.headersSent) res.writeHead(502, {'content-type': 'text/html'})
    res.end('<html><body><h1>Bad gateway</h1> Error code 502</body></html>')
  })
  req.pipe(upstream)
  req.on('error', () => upstream.destroy())
}

function box(lines) {
  const width = Math.max(...lines.map((l) => l.length)) + 4
  const border = `+${'-'.repeat(width)}+`
  return [border, ...lines.map((l) => `|  ${l.padEnd(width - 2)}|`), border]
}

server.listen(0, '127.0.0.1', () => {
  const {port} = server.address()
  publicUrl = `http://127.0.0.1:${port}`
  for (const line of box([
    'Your quick Tunnel has been created! Visit it at (it may take some time to be reachable):',
    publicUrl,
  ]))
    inf(line)
  const printedAt = Date.now()
  if (env.FAKE_CLOUDFLARED_NEVER_REACHABLE !== '1') reachableAt = printedAt + delayMs
  inf(
    'Cannot determine default configuration path. No file [config.yml config.yaml] in [~/.cloudflared ~/.cloudflare-warp ~/cloudflare-warp /etc/cloudflared /usr/local/etc/cloudflared]',
  )
  inf('Version 2026.8.2 (Checksum 0000000000000000000000000000000000000000000000000000000000000000)')
  inf(`GOOS: ${process.platform}, GOVersion: go1.24.6, GoArch: ${process.arch}`)
  inf(`Settings: map[ha-connections:1 no-autoupdate:true protocol:quic url:${origin}]`)
  inf(
    'cloudflared will not automatically update when run from the shell. To enable auto-updates, run cloudflared as a service: https://developers.cloudflare.com/cloudflare-one/connections/connect-apps/configure-tunnels/local-management/as-a-service/',
  )
  inf(`Generated Connector ID: ${randomUUID()}`)
  inf('Initial protocol quic')
  inf('Starting metrics server on 127.0.0.1:20241/metrics')

  if (fail === 'edge' || env.FAKE_CLOUDFLARED_NEVER_REGISTER === '1') {
    let tries = 0
    const dial = () => {
      err(
        'Failed to dial a quic connection error="failed to dial to edge with quic: timeout: no recent network activity" connIndex=0 event=0 ip=198.41.192.7',
      )
      inf(`Retrying connection in up to ${2 ** Math.min(++tries, 5)}s connIndex=0 event=0 ip=198.41.192.7`)
      if (fail === 'edge' && tries >= 2) {
        err('initial tunnel connection failed error="there was a problem with the connection to the edge"')
        inf('Initiating shutdown')
        process.exit(1)
      }
    }
    setInterval(dial, 200)
    return
  }
  setTimeout(
    () => {
      inf(
        `Registered tunnel connection connIndex=0 connection=${randomUUID()} event=0 ip=198.41.200.13 location=fra08 protocol=quic`,
      )
      const exitAfter = num('FAKE_CLOUDFLARED_EXIT_AFTER_MS', undefined)
      if (exitAfter !== undefined) {
        setTimeout(() => {
          err('Serve tunnel error error="timeout: no recent network activity" connIndex=0 event=0 ip=198.41.200.13')
          process.exit(1)
        }, exitAfter)
      }
    },
    num('FAKE_CLOUDFLARED_REGISTER_MS', 100),
  )
})

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    if (env.FAKE_CLOUDFLARED_IGNORE_TERM === '1') return
    inf(`Initiating graceful shutdown due to signal ${signal === 'SIGTERM' ? 'terminated' : 'interrupt'} ...`)
    server.close()
    server.closeAllConnections?.()
    process.exit(0)
  })
}

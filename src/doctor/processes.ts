/**
 * Other processes of this user (every user's, for root) that hold a bot token in their environment
 * or command line: on Linux from /proc/<pid>/environ and /proc/<pid>/cmdline, on macOS from
 * `ps eww`. Each is classified (holder-kind.ts): only one connected to the Bot API uses the token.
 * The token is never returned: commands come back with it replaced.
 */
import {execFile} from 'node:child_process'
import {readdir, readFile, readlink, stat} from 'node:fs/promises'
import {basename, join} from 'node:path'

import {parse as parseDotenv} from 'dotenv'

import {redact, REDACTED} from '../telegram/index.js'
import {maskUrl} from '../lib/mask-url.js'
import {classifyHolder, type HolderKind} from './holder-kind.js'
import {apiEndpoints, type ApiEndpoints} from './api-endpoints.js'
import {connectionsOf} from '../session-store/proc-net.js'

export interface TokenHolder {
  pid: number
  /** ISO time the process started, when known. */
  startedAt?: string
  /** Its command line, token replaced, shortened. */
  command: string
  /** Where the token was found: environment variable names, 'command line', or '.env in its working directory'. */
  where: string[]
  /** What it is: only an 'api-client' is one to stop with kill. */
  kind: HolderKind
  /** The same in words. */
  what: string
}

/** A process whose environment could not be read, and why. */
export interface Unreadable {
  pid: number
  /** Its command line, token replaced, shortened. */
  command: string
  reason: string
}

export interface ScanResult {
  /** False when this platform cannot be scanned. */
  supported: boolean
  holders: TokenHolder[]
  /** Processes that could hold the token but could not be read. */
  unreadable: Unreadable[]
}

export interface ScanOptions {
  /** The api root whose connections mark a process as using the token. */
  apiRoot?: string
  /** The environment naming a proxy to that api root. */
  env?: NodeJS.ProcessEnv
}

const OTHER_USER = 'owned by another user; run as that user or root'
const DENIED = 'access denied: a setuid program, or one that protects itself from inspection; run as root to include it'
const DENIED_ROOT = 'access denied even to root: a security policy, or a process outside this container'

const MAX_COMMAND = 160

function needles(token: string): string[] {
  const out = [token]
  const secret = token.slice(token.indexOf(':') + 1)
  if (secret.length >= 20 && secret !== token) out.push(secret)
  return out
}

/** Flags whose value is a secret whatever it looks like (`-t`: the token, for many bot scripts). */
const SECRET_FLAGS = new Set(['--secret-token', '--restore-secret', '--token', '-t'])
/**
 * A flag, variable or header whose name says it carries a secret: secret, token, password, passwd,
 * pass/passphrase, pw/pwd, key, auth(orization), cookie, bearer, hmac, session, cred(entials), dsn,
 * signature.
 */
const SECRET_NAME =
  /secret|token|pass(?:word|wd|phrase)?(?![a-z])|pwd?(?![a-z])|(?<![a-z])pw|key|auth|cookie|bearer|hmac|session|cred|dsn|signature|private/i
export const MASKED = '<secret>'

/** `scheme://user:password@` (or `scheme://secret@`) anywhere in a word: the credentials part. */
const URL_CREDENTIALS = /\b([a-z][a-z\d+.-]*:\/\/)([^\s/?#@]*)@/gi
/** An http(s) URL in a word: its path and query can be secrets (a webhook's random path). */
const HTTP_URL = /\bhttps?:\/\/[^\s"'<>]+/gi
/** An HTTP header as one word (`Authorization: Bearer x`, `-HCookie:a=b`): name, then value. */
const HEADER = /^(-H)?([A-Za-z][A-Za-z0-9-]*):\s*(.*)$/s
/** Words after which the next one is a credential (`Authorization: Bearer X` split by the shell). */
const SCHEME_WORDS = new Set(['bearer', 'basic', 'token', 'bot'])

/**
 * A word's secret shapes masked: http(s) URLs as every webhook URL is shown (lib/mask-url.ts: the
 * origin, a short first path segment and 4 characters of the rest; credentials `…@`, a query `?…`),
 * other URLs' credentials (`postgres://u:<secret>@db`).
 */
function maskShapes(word: string): string {
  if (!word.includes('://')) return word
  return word
    .replace(HTTP_URL, (url) => (/^https?:\/\/[^/?#@]*\/?$/i.test(url) ? url : maskUrl(url)))
    .replace(URL_CREDENTIALS, (_m, scheme: string, userinfo: string) => {
      if (userinfo === '…') return `${scheme}…@`
      const colon = userinfo.indexOf(':')
      return colon === -1 ? `${scheme}${MASKED}@` : `${scheme}${userinfo.slice(0, colon)}:${MASKED}@`
    })
}

/**
 * The words of a command line with the value of every secret-bearing argument replaced by
 * MASKED: `--secret-token X`, `--restore-secret X`, `--token X`, `-t X` (also `--flag=X`), any
 * flag, `NAME=value` pair or header whose name says it carries a secret (SECRET_NAME: `--api-key
 * X`, `-auth=X`, `DB_PASSWORD=X`, `--passphrase=X`, `--dsn=X`, `Authorization: Bearer X`); and by
 * shape whatever the name: credentials in URLs (`postgres://u:<secret>@db`), URL paths and queries
 * masked as every webhook URL is (lib/mask-url.ts: `https://host/hook/AbCd…`). A value already
 * redacted as the token (`<token>`) stays so. What other processes were started with is what people
 * paste into issues: `bot doctor` shows it masked.
 */
export function maskSecretArgs(argv: readonly string[]): string[] {
  const out: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]
    const flag = /^(-{1,2}[^=\s]+)(=.*)?$/s.exec(word)
    if (flag) {
      const name = flag[1]
      const known = SECRET_FLAGS.has(name.toLowerCase()) || SECRET_FLAGS.has(name)
      if (!known && !SECRET_NAME.test(name)) {
        out.push(maskShapes(word))
        continue
      }
      if (flag[2] !== undefined) {
        out.push(flag[2] === `=${REDACTED}` ? word : `${name}=${MASKED}`)
        continue
      }
      out.push(word)
      // The next word is its value, unless (for a name that only looks secret) it is another flag.
      const next = argv[i + 1]
      if (next !== undefined && next !== '--' && (known || !next.startsWith('-'))) {
        out.push(next === REDACTED ? next : MASKED) // the token, already shown as <token>
        i++
      }
      continue
    }
    const pair = /^([A-Za-z_][A-Za-z0-9_.-]*)=(.*)$/s.exec(word)
    if (pair && SECRET_NAME.test(pair[1]) && pair[2] !== '' && pair[2] !== REDACTED) {
      out.push(`${pair[1]}=${MASKED}`)
      continue
    }
    const header = HEADER.exec(word)
    if (header && SECRET_NAME.test(header[2]) && !word.includes('://')) {
      if (header[3] !== '' && header[3] !== REDACTED) {
        out.push(`${header[1] ?? ''}${header[2]}: ${MASKED}`)
        continue
      }
      // `Authorization:` alone: its value is the following word(s): `Bearer X` or `X`.
      out.push(word)
      if (SCHEME_WORDS.has(argv[i + 1]?.toLowerCase() ?? '')) out.push(argv[++i])
      if (argv[i + 1] !== undefined && argv[i + 1] !== REDACTED) {
        out.push(MASKED)
        i++
      }
      continue
    }
    out.push(maskShapes(word))
  }
  return out
}

function shorten(argv: readonly string[], token: string, max = MAX_COMMAND): string {
  const clean = redact(maskSecretArgs(argv.map((word) => redact(word, token))).join(' '), token)
    .replace(/\s+/g, ' ')
    .trim()
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean
}

/** pid → parent pid, for excluding our own ancestors (the shell that ran us has the token too). */
async function parentOf(pid: number): Promise<number | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return Number(fields[1])
  } catch {
    return undefined
  }
}

async function linuxAncestors(): Promise<Set<number>> {
  const out = new Set<number>([process.pid])
  let pid: number | undefined = process.ppid
  for (let i = 0; i < 64 && pid && pid > 1 && !out.has(pid); i++) {
    out.add(pid)
    pid = await parentOf(pid)
  }
  return out
}

let bootTimeMs: number | undefined
async function bootTime(): Promise<number | undefined> {
  if (bootTimeMs !== undefined) return bootTimeMs
  try {
    const m = /^btime (\d+)$/m.exec(await readFile('/proc/stat', 'utf8'))
    if (m) bootTimeMs = Number(m[1]) * 1000
  } catch {
    // not available
  }
  return bootTimeMs
}

/** Clock ticks per second of /proc/<pid>/stat's starttime: 100 on every Linux in practice (USER_HZ). */
const USER_HZ = 100

async function linuxStart(pid: number): Promise<string | undefined> {
  const boot = await bootTime()
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const ticks = Number(fields[19])
    if (boot === undefined || !Number.isFinite(ticks)) return undefined
    return new Date(boot + (ticks / USER_HZ) * 1000).toISOString()
  } catch {
    return undefined
  }
}

/** Runtimes a bot runs in: a process of these whose working directory has a .env with the token probably loaded it (dotenv). */
const RUNTIME = /^(node|nodejs|bun|deno|tsx|ts-node|python[\d.]*|ruby|php|java)$/

/** Whether `<dir>/.env` holds the token, cached per directory. */
function dotenvHolder(find: string[]): (dir: string) => Promise<boolean> {
  const cache = new Map<string, Promise<boolean>>()
  return (dir) => {
    let hit = cache.get(dir)
    if (!hit) {
      hit = readFile(join(dir, '.env'), 'utf8').then(
        (text) => Object.values(parseDotenv(text)).some((v) => find.some((n) => v.includes(n))),
        () => false,
      )
      cache.set(dir, hit)
    }
    return hit
  }
}

/**
 * Run `fn` over `items` with at most `limit` at a time. The file reads go through libuv's small
 * thread pool, which DNS lookups share: an unbounded burst would delay the API checks running
 * alongside.
 */
async function eachLimited<T>(items: readonly T[], fn: (item: T) => Promise<void>, limit = 8): Promise<void> {
  let next = 0
  const worker = async () => {
    while (next < items.length) await fn(items[next++])
  }
  await Promise.all(Array.from({length: Math.min(limit, items.length)}, worker))
}

async function argvOf(pid: number): Promise<string[]> {
  return (await readFile(`/proc/${pid}/cmdline`, 'latin1').catch(() => '')).split('\0').filter(Boolean)
}

/** `unreadable`: why its environment and descriptors cannot be read, when they cannot. */
async function classifyLinux(
  pid: number,
  argv: string[],
  api: ApiEndpoints | undefined,
  unreadable: string | undefined,
) {
  const cwd = await readlink(`/proc/${pid}/cwd`).catch(() => undefined)
  const ppid = await parentOf(pid)
  const parent =
    ppid && ppid > 1
      ? {pid: ppid, argv: await argvOf(ppid), cwd: await readlink(`/proc/${ppid}/cwd`).catch(() => undefined)}
      : undefined
  const connections = unreadable ? undefined : await connectionsOf(pid)
  return classifyHolder({argv, cwd, parent, connections, api, noConnections: unreadable})
}

async function scanLinux(token: string, exclude: Set<number>, options: ScanOptions): Promise<ScanResult> {
  const uid = process.getuid?.()
  const root = uid === 0
  const find = needles(token)
  const inDotenv = dotenvHolder(find)
  const api = options.apiRoot ? await apiEndpoints(options.apiRoot, options.env ?? process.env) : undefined
  const holders: TokenHolder[] = []
  const unreadable: Unreadable[] = []
  const names = await readdir('/proc')
  await eachLimited(names, async (name) => {
    if (!/^\d+$/.test(name)) return
    const pid = Number(name)
    if (exclude.has(pid)) return
    try {
      // Another user's process: its command line is readable, its environment is not (unless root).
      const mine = uid === undefined || root || (await stat(`/proc/${pid}`)).uid === uid
      const argv = await argvOf(pid)
      const command = argv.join(' ')
      const where: string[] = []
      if (find.some((n) => command.includes(n))) where.push('command line')
      let denied = !mine
      if (mine) {
        const environ = await readFile(`/proc/${pid}/environ`, 'latin1').catch((error: NodeJS.ErrnoException) => {
          denied = error.code === 'EACCES' || error.code === 'EPERM'
          return '' // kernel threads have none; a process that exited meanwhile is gone
        })
        for (const entry of environ.split('\0')) {
          const eq = entry.indexOf('=')
          if (eq > 0 && find.some((n) => entry.includes(n, eq + 1))) where.push(entry.slice(0, eq))
        }
      }
      // A bot that loads .env itself (dotenv) has the token in neither: look at its working directory.
      if (where.length === 0 && mine && !denied && argv[0] && RUNTIME.test(basename(argv[0]))) {
        const cwd = await readlink(`/proc/${pid}/cwd`).catch(() => undefined)
        if (cwd && (await inDotenv(cwd))) where.push(`${join(cwd, '.env')} (its working directory)`)
      }
      const reason = !denied ? undefined : !mine ? OTHER_USER : root ? DENIED_ROOT : DENIED
      if (where.length === 0) {
        // Unread: worth a line when it could be a bot (another user's runtime; any of ours).
        if (reason && (mine || (argv[0] && RUNTIME.test(basename(argv[0])))))
          unreadable.push({pid, command: shorten(argv.length ? argv : [`[pid ${pid}]`], token, 80), reason})
        return
      }
      const kind = await classifyLinux(pid, argv, api, reason)
      holders.push({
        pid,
        startedAt: await linuxStart(pid),
        command: shorten(argv.length ? argv : [`[pid ${pid}]`], token),
        where,
        ...kind,
      })
    } catch {
      // the process exited while we looked
    }
  })
  holders.sort((a, b) => a.pid - b.pid)
  unreadable.sort((a, b) => a.pid - b.pid)
  return {supported: true, holders, unreadable}
}

function run(cmd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, {maxBuffer: 64 * 1024 * 1024, timeout: 10_000}, (error, stdout) =>
      error ? reject(error) : resolve(stdout),
    )
  })
}

/** macOS/BSD: `ps eww` appends the environment to the command; a second `ps` without it tells the two apart. */
async function scanPs(token: string, exclude: Set<number>): Promise<ScanResult> {
  const uid = String(process.getuid?.() ?? '')
  const find = needles(token)
  const [withEnv, plain] = await Promise.all([
    run('ps', ['eww', '-U', uid, '-o', 'pid=,ppid=,lstart=,command=']),
    run('ps', ['-ww', '-U', uid, '-o', 'pid=,ppid=,lstart=,command=']),
  ])
  const parse = (text: string) => {
    const rows = new Map<number, {ppid: number; start: string; rest: string}>()
    for (const line of text.split('\n')) {
      const m = /^\s*(\d+)\s+(\d+)\s+(\w{3}\s+\w{3}\s+\d+\s+[\d:]+\s+\d{4})\s+(.*)$/.exec(line)
      if (m) rows.set(Number(m[1]), {ppid: Number(m[2]), start: m[3], rest: m[4]})
    }
    return rows
  }
  const envRows = parse(withEnv)
  const plainRows = parse(plain)
  // Our ancestors, from the ps table itself.
  const skip = new Set(exclude)
  let pid: number | undefined = process.ppid
  for (let i = 0; i < 64 && pid && pid > 1 && !skip.has(pid); i++) {
    skip.add(pid)
    pid = plainRows.get(pid)?.ppid
  }
  const holders: TokenHolder[] = []
  for (const [p, row] of envRows) {
    if (skip.has(p) || !find.some((n) => row.rest.includes(n))) continue
    const command = plainRows.get(p)?.rest ?? ''
    const inCommand = find.some((n) => command.includes(n))
    const start = new Date(row.start)
    const argv = command.split(/\s+/).filter(Boolean)
    const parentRow = plainRows.get(row.ppid)
    const kind = await classifyHolder({
      argv,
      parent: parentRow ? {pid: row.ppid, argv: parentRow.rest.split(/\s+/).filter(Boolean)} : undefined,
      noConnections: 'its connections are only inspected on Linux',
    })
    holders.push({
      pid: p,
      startedAt: Number.isNaN(start.getTime()) ? undefined : start.toISOString(),
      command: shorten(command ? command.split(/\s+/) : [`[pid ${p}]`], token),
      where: inCommand ? ['command line'] : ['environment'],
      ...kind,
    })
  }
  holders.sort((a, b) => a.pid - b.pid)
  return {supported: true, holders, unreadable: []}
}

/**
 * Every process of this user, except this one and its ancestors, whose environment or command line
 * holds `token`, classified; with `apiRoot`, a connection to it marks a process as using the token.
 */
export async function findTokenHolders(token: string, options: ScanOptions = {}): Promise<ScanResult> {
  if (process.platform === 'linux') return scanLinux(token, await linuxAncestors(), options)
  if (process.platform === 'darwin' || process.platform === 'freebsd' || process.platform === 'openbsd')
    return scanPs(token, new Set([process.pid]))
  return {supported: false, holders: [], unreadable: []}
}

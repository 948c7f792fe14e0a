/**
 * Loaded into the bot's Node processes under `bot dev` (NODE_OPTIONS `--require`, see
 * imports.ts): it tells the session which files of the project the bot loads, so that the file
 * watcher restarts it for those and not for files it writes (as `tsx watch` watches what was
 * imported). Each file under the project (not in node_modules) is appended once, as a line, to
 * the file named by BOT_DEV_IMPORTS. ES modules are seen through module hooks (hooks.ts, with
 * `module.register`; after tsx's, see watchEsModules), CommonJS through `Module.prototype.load`. Where `module.register` is
 * missing (Node before 18.19 / 20.6) nothing is reported, and the session watches by extension.
 * It must never break the bot: every step is guarded, and it loads nothing but Node's own modules.
 *
 * With BOT_DEV_LISTEN (a Unix socket in the same private folder, see listens.ts) it also says when
 * a server of the bot listens: `<pid> <port>` on a connection of its own, from Node's
 * `net.server.listen` tracing channel (node:diagnostics_channel; its asyncEnd comes once the
 * server listens). The session then sees the bot up at once instead of at its next connect poll.
 * A Node without that channel says nothing, and the session's poll finds the port as before.
 */
import {subscribe} from 'node:diagnostics_channel'
import {appendFileSync} from 'node:fs'
import Module from 'node:module'
import {sep} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'
import {isMainThread} from 'node:worker_threads'

type Registrar = (...args: unknown[]) => unknown
type Next = (first: string, context?: unknown) => unknown
const loader = Module as unknown as {
  register?: Registrar
  registerHooks?: Registrar
  prototype: {load: (this: unknown, filename: string) => unknown}
}

/** The values of `--import` in this process's arguments and in NODE_OPTIONS (split at spaces: enough to find tsx). */
function imports(): string[] {
  const args = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)]
  const values: string[] = []
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--import' && i + 1 < args.length) values.push(args[++i])
    else if (args[i].startsWith('--import=')) values.push(args[i].slice('--import='.length))
  }
  return values.map((v) => v.replace(/^"|"$/g, ''))
}

/** tsx's loader comes with `--import` (`tsx`, `tsx/esm`, or the path tsx's CLI gives its child): it registers hooks of its own. */
const importsTsx = (): boolean =>
  imports().some((v) => v === 'tsx' || v === 'tsx/esm' || /[\\/]node_modules[\\/]tsx[\\/]/.test(v))

/**
 * How ES modules are seen: hooks registered with `module.register` run in a thread of their own
 * (hooks.ts); registered before tsx's, they would also carry tsx's own loading through that thread
 * (about 50 ms more on each start of a TypeScript bot, bench/restart-order.ts). So when tsx comes
 * with `--import`, ours follow its registration, the same way: after its `module.register`
 * (Node 20) in that thread, after its `module.registerHooks` (newer Node) in this one, as
 * synchronous hooks (hooks of both kinds at once slow every module, or fail on Node 22).
 * Otherwise ours are registered at once, with `module.register`, in the main thread.
 */
function watchEsModules(register: Registrar, data: {file: string; root: string}, report: (path: string) => void): void {
  const offThread = () =>
    register(pathToFileURL(`${__dirname}${sep}hooks.js`).href, {parentURL: pathToFileURL(__filename).href, data})
  if (!importsTsx()) {
    // Worker threads get this preload too (NODE_OPTIONS): one a library starts for itself (esbuild's,
    // which tsx waits on for every file it compiles; pino's) is not the bot, and hooks there would hold
    // up its start.
    if (isMainThread) offThread()
    return
  }
  const noteUrl = (url: unknown) => {
    try {
      if (typeof url === 'string' && url.startsWith('file:')) report(fileURLToPath(url))
    } catch {
      // a URL that is no path: the bot goes on
    }
  }
  const inThread = {
    resolve(specifier: string, context: unknown, next: Next) {
      const resolved = next(specifier, context) as {url?: unknown} | undefined
      noteUrl(resolved?.url)
      return resolved
    },
    load(url: string, context: unknown, next: Next) {
      noteUrl(url)
      return next(url, context)
    },
  }
  const {registerHooks} = loader
  let done = false
  const after = (own: Registrar, ours: () => unknown) =>
    function (this: unknown, ...args: unknown[]) {
      const result = own.apply(this, args)
      if (!done) {
        done = true
        loader.register = register
        if (registerHooks) loader.registerHooks = registerHooks
        try {
          ours()
        } catch {
          // no hooks: the files the bot loads as ES modules go unreported
        }
      }
      return result
    }
  loader.register = after(register, offThread)
  if (typeof registerHooks === 'function') loader.registerHooks = after(registerHooks, () => registerHooks.call(loader, inThread))
}

const file = process.env.BOT_DEV_IMPORTS
const root = process.env.BOT_DEV_IMPORTS_ROOT

if (file && root && typeof loader.register === 'function') {
  try {
    const seen = new Set<string>()
    const under = root.endsWith(sep) ? root : root + sep
    const report = (path: string) => {
      if (seen.has(path) || !path.startsWith(under) || path.includes(`${sep}node_modules${sep}`)) return
      seen.add(path)
      try {
        appendFileSync(file, `${path}\n`)
      } catch {
        // the session is gone, or the file cannot be written: the bot goes on
      }
    }
    watchEsModules(loader.register, {file, root}, report)
    // CommonJS modules: seen in this thread, through Module.prototype.load.
    const proto = loader.prototype
    const load = proto.load
    proto.load = function (this: unknown, filename: string) {
      try {
        if (typeof filename === 'string') report(filename)
      } catch {
        // the bot goes on
      }
      return load.call(this, filename)
    }
  } catch {
    // no hooks: the session watches by extension
  }
}

const listenSocket = process.env.BOT_DEV_LISTEN

if (listenSocket && typeof subscribe === 'function') {
  try {
    subscribe('tracing:net.server.listen:asyncEnd', (message) => {
      try {
        const server = (message as {server?: {address?: () => unknown}}).server
        const address = server?.address?.()
        if (!address || typeof address !== 'object' || typeof (address as {port?: unknown}).port !== 'number') return
        const {createConnection} = require('node:net') as typeof import('node:net')
        const socket = createConnection(listenSocket)
        socket.on('error', () => {})
        socket.unref()
        socket.end(`${process.pid} ${(address as {port: number}).port}\n`)
      } catch {
        // the session is gone: the bot goes on
      }
    })
  } catch {
    // no such channel: the session polls
  }
}

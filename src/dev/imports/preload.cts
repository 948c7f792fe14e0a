/**
 * Loaded into the bot's Node processes under `bot dev` (NODE_OPTIONS `--require`, see
 * imports.ts): it tells the session which files of the project the bot loads, so that the file
 * watcher restarts it for those and not for files it writes (as `tsx watch` watches what was
 * imported). Each file under the project (not in node_modules) is appended once, as a line, to
 * the file named by BOT_DEV_IMPORTS. ES modules are seen through module hooks (hooks.ts, with
 * `module.register`), CommonJS through `Module.prototype.load`. Where `module.register` is
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
import {pathToFileURL} from 'node:url'

const file = process.env.BOT_DEV_IMPORTS
const root = process.env.BOT_DEV_IMPORTS_ROOT
const register = (Module as unknown as {register?: (specifier: string, options: unknown) => void}).register

if (file && root && typeof register === 'function') {
  try {
    // The module hooks run in a thread of their own: they report ES modules (the entry too).
    register(pathToFileURL(`${__dirname}${sep}hooks.js`).href, {parentURL: pathToFileURL(__filename).href, data: {file, root}})
    const seen = new Set<string>()
    const under = `${root.endsWith(sep) ? root : root + sep}`
    const proto = (Module as unknown as {prototype: {load: (this: unknown, filename: string) => unknown}}).prototype
    const load = proto.load
    proto.load = function (this: unknown, filename: string) {
      try {
        if (typeof filename === 'string' && !seen.has(filename) && filename.startsWith(under) && !filename.includes(`${sep}node_modules${sep}`)) {
          seen.add(filename)
          appendFileSync(file, `${filename}\n`)
        }
      } catch {
        // the session is gone, or the file cannot be written: the bot goes on
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

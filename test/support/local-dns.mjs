/**
 * Host names only this machine knows (what /etc/hosts would give), injected into a process instead
 * of editing the machine's files: `node --import test/support/local-dns.mjs …` with
 * BOT_TEST_HOSTS="lt.lan.test=127.0.0.1,heldout.lt.test=127.0.0.1", or installLocalHosts() in a test.
 *
 * - dns.lookup (what net, http and fetch use) and dns/promises' lookup answer those names; any other `*.test` name is
 *   ENOTFOUND (the reserved TLD never resolves); everything else goes to the real resolver.
 * - The public resolvers (dns.Resolver / dns.promises.Resolver, what asks 1.1.1.1 and 8.8.8.8) do
 *   not know those names, as the real ones would not: ENOTFOUND. Every query they get is appended to
 *   BOT_TEST_PUBLIC_DNS_LOG (one name a line) when set, so a test sees what was sent out.
 */
import dns from 'node:dns'
import {appendFileSync} from 'node:fs'
import {syncBuiltinESMExports} from 'node:module'

function notFound(hostname, syscall) {
  return Object.assign(new Error(`${syscall} ENOTFOUND ${hostname}`), {
    code: 'ENOTFOUND',
    errno: -3008,
    syscall,
    hostname,
  })
}

/** Install the names of `hosts` (name → address); public queries are logged to `log` when given. */
export function installLocalHosts(hosts, log) {
  const known = new Map(Object.entries(hosts).map(([name, address]) => [name.toLowerCase(), address]))
  const local = (name) => known.has(name) || name.endsWith('.test') || name.endsWith('.test.')
  const realLookup = dns.lookup
  dns.lookup = function lookup(hostname, options, callback) {
    if (typeof options === 'function') [callback, options] = [options, {}]
    if (typeof options === 'number') options = {family: options}
    const name = String(hostname).toLowerCase()
    if (!local(name)) return realLookup.call(this, hostname, options, callback)
    const address = known.get(name)
    if (!address) return process.nextTick(callback, notFound(hostname, 'getaddrinfo'))
    const family = address.includes(':') ? 6 : 4
    if (options?.all) return process.nextTick(callback, null, [{address, family}])
    return process.nextTick(callback, null, address, family)
  }
  // dns/promises' lookup too (an ESM `import {lookup}` sees it after syncBuiltinESMExports).
  const realPromisedLookup = dns.promises.lookup
  dns.promises.lookup = (hostname, options) =>
    new Promise((resolve, reject) =>
      dns.lookup(hostname, options ?? {}, (error, address, family) =>
        error ? reject(error) : resolve(Array.isArray(address) ? address : {address, family}),
      ),
    )
  const note = (hostname) => {
    if (log) appendFileSync(log, `${hostname}\n`)
  }
  const originals = []
  for (const method of ['resolve4', 'resolve6', 'resolve']) {
    const promised = dns.promises.Resolver.prototype[method]
    const callbacked = dns.Resolver.prototype[method]
    originals.push([method, promised, callbacked])
    dns.promises.Resolver.prototype[method] = function (hostname, ...rest) {
      note(hostname)
      if (local(String(hostname).toLowerCase())) return Promise.reject(notFound(hostname, `query${method.slice(7)}`))
      return promised.call(this, hostname, ...rest)
    }
    dns.Resolver.prototype[method] = function (hostname, ...rest) {
      note(hostname)
      const callback = rest.at(-1)
      if (local(String(hostname).toLowerCase()) && typeof callback === 'function')
        return process.nextTick(callback, notFound(hostname, `query${method.slice(7)}`))
      return callbacked.call(this, hostname, ...rest)
    }
  }
  syncBuiltinESMExports()
  return () => {
    dns.lookup = realLookup
    dns.promises.lookup = realPromisedLookup
    for (const [method, promised, callbacked] of originals) {
      dns.promises.Resolver.prototype[method] = promised
      dns.Resolver.prototype[method] = callbacked
    }
    syncBuiltinESMExports()
  }
}

const fromEnv = process.env.BOT_TEST_HOSTS
if (fromEnv)
  installLocalHosts(
    Object.fromEntries(fromEnv.split(',').map((pair) => pair.split('=').map((s) => s.trim()))),
    process.env.BOT_TEST_PUBLIC_DNS_LOG,
  )

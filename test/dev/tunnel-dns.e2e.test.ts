/**
 * The public-DNS wait of the readiness proof is for `*.trycloudflare.com` only.
 * A self-hosted localtunnel server on names only this network knows (the real localtunnel client
 * against the loopback localtunnel server; the names come from a resolver injected into the
 * processes, as /etc/hosts would give them) must work, with no name sent to public resolvers; and
 * `--tunnel auto` falls back to the bridge at once on an answer that waiting does not change.
 */
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {PROJECT_ROOT} from '../support/cli.js'
import {startLocaltunnelServer, type LocaltunnelServer} from '../support/lt-server.js'
import {waitFor} from '../support/wait.js'
import {devWorld, startDev, type DevWorld} from './helpers.js'

const PRELOAD = join(PROJECT_ROOT, 'test', 'support', 'local-dns.mjs')
const HOSTS = {'lt.lan.test': '127.0.0.1', 'heldout.lt.test': '127.0.0.1'}
const HOSTS_ENV = Object.entries(HOSTS)
  .map(([name, address]) => `${name}=${address}`)
  .join(',')

let world: DevWorld
let lt: LocaltunnelServer
beforeEach(async () => {
  // The emulator (Telegram) resolves the tunnel's name too, from its own hosts table.
  world = await devWorld({hosts: HOSTS})
  // A self-hosted localtunnel server whose tunnels live under a name only this network resolves.
  lt = await startLocaltunnelServer({publicHost: 'heldout.lt.test'})
})
afterEach(async () => {
  await lt.close()
  await world.close()
})

/** `bot dev` with the injected resolver; what it asked public DNS goes to `dnsLog`. */
function dev(args: string[]) {
  const dnsLog = join(world.dir, 'public-dns.log')
  const cli = startDev(world, {
    tunnel: false,
    args: ['--no-watch', ...args],
    env: {BOT_TEST_HOSTS: HOSTS_ENV, BOT_TEST_PUBLIC_DNS_LOG: dnsLog},
    nodeArgs: ['--import', PRELOAD],
  })
  const asked = () => (existsSync(dnsLog) ? readFileSync(dnsLog, 'utf8').split('\n').filter(Boolean) : [])
  return {cli, asked}
}

describe('a self-hosted localtunnel server on a name only local resolution knows', () => {
  it('passes the readiness proof at once, and no host name is sent to public resolvers', async () => {
    const ltHost = lt.url.replace('127.0.0.1', 'lt.lan.test')
    const {cli, asked} = dev([
      '--tunnel',
      'localtunnel',
      '--no-fallback',
      '--tunnel-host',
      ltHost,
      // (a deadline on a failure only: "at once" is the readiness line itself, a loaded machine may take seconds)
      '--tunnel-timeout',
      '60000',
    ])
    const out = await cli.waitForOutput(/Ready: updates reach the bot through http:\/\/heldout\.lt\.test:\d+/, {
      timeoutMs: 20_000,
    })
    expect(out).toMatch(/✓ Tunnel http:\/\/heldout\.lt\.test:\d+ \(answers\)/)
    expect(world.emu.webhook(world.token)?.url).toMatch(/^http:\/\/heldout\.lt\.test:\d+\/webhook\//)
    const update = world.emu.sendUserMessage(world.token, {text: '/start'})
    await waitFor(() => world.recorded().includes(update.update_id), {what: 'the update through the tunnel'})
    cli.kill('SIGINT')
    const r = await cli.exited
    expect(r.code, r.stderr).toBe(0)
    expect(asked()).toEqual([])
  })
})

describe('--tunnel auto falls back to the bridge at once on an answer that cannot change', () => {
  for (const [what, host] of [
    ['no such host (ENOTFOUND)', () => 'http://nosuch.lan.test:3000'],
    ['connection refused', () => `${lt.url.replace('heldout.lt.test', '127.0.0.1')}`],
  ] as const) {
    it(what, async () => {
      if (what === 'connection refused') await lt.kill()
      // Not at the start-up deadline (the same answer would come every second until then): with a deadline of 60 s,
      // longer than this test may last, the fallback can only come from the answer itself, however loaded the machine.
      const {cli} = dev(['--tunnel', 'auto', '--tunnel-host', host(), '--tunnel-timeout', '60000'])
      const out = await cli.waitForOutput(/Ready: updates reach the bot through the polling bridge/, {
        timeoutMs: 30_000,
      })
      expect(out).toMatch(/! No tunnel works \(the localtunnel server .* cannot be reached/)
      // No webhook had been set: the line does not say one was deleted.
      expect(out).toMatch(/Updates now arrive by polling through `bot dev` \(pending updates kept\)/)
      expect(out).not.toMatch(/webhook deleted/)
      const update = world.emu.sendUserMessage(world.token, {text: '/start'})
      await waitFor(() => world.recorded().includes(update.update_id), {what: 'the update through the bridge'})
      cli.kill('SIGINT')
      expect((await cli.exited).code).toBe(0)
    })
  }
})

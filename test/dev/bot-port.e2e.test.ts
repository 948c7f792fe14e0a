/**
 * The bot's webhook port is probed, released, then listened on by the bot: in between, the kernel
 * may hand that very port to one of the session's own listeners (port 0) or connections (a source
 * port), and the bot died with EADDRINUSE (seen in CI: "Relay on :44171 → bot on port 44171").
 * Reproduced for certain in a network namespace whose ephemeral range is 9 ports wide: before the
 * fix most runs failed; now the bot's port comes from outside that range and every run passes.
 * Needs `npm run build` and unprivileged user namespaces (`unshare -rn`).
 */
import {spawnSync} from 'node:child_process'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {candidatePorts, ephemeralRange} from '../../src/lib/free-port.js'
import {BIN, PROJECT_ROOT, cliEnv} from '../support/cli.js'

const BOT = join(PROJECT_ROOT, 'test', 'fixtures', 'bots', 'echo-bot.mjs')
// A user + network namespace whose loopback can be brought up (`ip` from iproute2, which .ci/run installs).
const NETNS_LO_UP = 'PATH="$PATH:/usr/sbin:/sbin" ip link set lo up'
const canUnshare = spawnSync('unshare', ['-rn', 'sh', '-c', NETNS_LO_UP]).status === 0

describe('the bot port is never one the kernel hands out meanwhile', () => {
  it('candidates lie outside the ephemeral range, shuffled, and there are none only when there is no room', () => {
    const range = {low: 32_768, high: 60_999}
    const ports = candidatePorts(range, 500)
    expect(ports).toHaveLength(500)
    for (const p of ports) expect(p < range.low || p > range.high).toBe(true)
    expect(new Set(ports).size).toBe(500)
    expect(candidatePorts(range, 500)).not.toEqual(ports) // another order each time
    expect(candidatePorts({low: 1024, high: 65_000})).toEqual([])
    expect(ephemeralRange('/nonexistent')).toBeUndefined()
  })

  it.skipIf(!canUnshare)(
    'bot dev --offline in a 9-port ephemeral range: 8 runs, the bot listens every time',
    () => {
      const script = [
        NETNS_LO_UP,
        "echo '40000 40008' > /proc/sys/net/ipv4/ip_local_port_range",
        `printf '/start\\nhello\\n' | "${process.execPath}" "${BIN}" dev --offline --no-watch -- "${process.execPath}" "${BOT}"`,
      ].join('\n')
      const failures: string[] = []
      for (let run = 0; run < 8; run++) {
        const result = spawnSync('unshare', ['-rn', 'sh', '-c', script], {
          env: cliEnv(),
          encoding: 'utf8',
          timeout: 90_000, // bounds a hung run only: at load 20 a run takes tens of seconds
        })
        const output = `${result.stdout}${result.stderr}`
        const port = Number(/webhook over loopback on port (\d+)/.exec(output)?.[1])
        if (result.status !== 0 || !(port < 40_000 || port > 40_008))
          failures.push(`run ${run}: exit ${result.status}, port ${port}\n${output}`)
      }
      expect(failures, failures.join('\n---\n')).toEqual([])
    },
    // eight runs one after the other, each bounded above: a bound on a failure only
    600_000,
  )
})

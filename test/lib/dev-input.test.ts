/** The pure parts of `bot dev`'s input checks (the CLI cases are in test/commands/bad-input.e2e.test.ts). */
import {once} from 'node:events'
import {createServer, type AddressInfo} from 'node:net'

import {describe, expect, it} from 'vitest'

import {checkPorts} from '../../src/cli/ports.js'
import {probePort} from '../../src/lib/free-port.js'
import {checkDevInput, commandAfterDashes, MAX_TIMER_MS} from '../../src/cli/dev-input.js'
import {UsageError} from '../../src/lib/errors.js'

const ok = {argv: [], holdTimeout: 30, nonEmpty: {}}

describe('checkDevInput', () => {
  it('`--` needs a command after it', () => {
    expect(commandAfterDashes(['--mode', 'polling'])).toBeUndefined()
    expect(commandAfterDashes(['--', 'node', 'bot.js'])).toEqual(['node', 'bot.js'])
    expect(() => commandAfterDashes(['--'])).toThrow(UsageError)
    expect(() => commandAfterDashes(['--', ''])).toThrow(/No bot command after `--`/)
  })

  it('--hold-timeout: positive, and within the timer limit', () => {
    expect(() => checkDevInput({...ok, holdTimeout: Math.floor(MAX_TIMER_MS / 1000)})).not.toThrow()
    for (const bad of [Math.floor(MAX_TIMER_MS / 1000) + 1, 0, -1, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => checkDevInput({...ok, holdTimeout: bad}), String(bad)).toThrow(/--hold-timeout .* out of range/)
  })

  it('an explicit empty flag is refused, naming it; an absent one is fine', () => {
    expect(() =>
      checkDevInput({...ok, argv: ['--public-url', ''], nonEmpty: {'public-url': ['', 'BOT_PUBLIC_URL']}}),
    ).toThrow(/^--public-url is empty/)
    expect(() =>
      checkDevInput({...ok, argv: ['--subdomain=  '], nonEmpty: {subdomain: ['  ', 'BOT_TUNNEL_SUBDOMAIN']}}),
    ).toThrow(/^--subdomain is empty/)
    expect(() =>
      checkDevInput({...ok, nonEmpty: {'tunnel-host': [undefined, 'BOT_TUNNEL_HOST']}, env: {}}),
    ).not.toThrow()
  })

  it('a variable that is set but empty is refused too (it would mean a public localtunnel nobody asked for)', () => {
    const nonEmpty = {'public-url': [undefined, 'BOT_PUBLIC_URL'] as [undefined, string]}
    expect(() => checkDevInput({...ok, nonEmpty, env: {BOT_PUBLIC_URL: ''}})).toThrow(/^BOT_PUBLIC_URL is empty/)
    let error: unknown
    try {
      checkDevInput({...ok, nonEmpty, env: {BOT_PUBLIC_URL: ' '}})
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(UsageError)
    expect((error as UsageError).fix).toMatch(/remove it from the environment/)
    expect(() => checkDevInput({...ok, nonEmpty, env: {}})).not.toThrow()
  })
})

describe('checkPorts', () => {
  it('free ports pass; a busy one or the same port twice is a UsageError naming the flag', async () => {
    const server = createServer()
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    const busy = (server.address() as AddressInfo).port
    try {
      expect(await probePort(busy)).toBe('EADDRINUSE')
      await expect(checkPorts({port: busy})).rejects.toThrow(new RegExp(`^--port ${busy} is already in use`))
      await expect(checkPorts({relayPort: busy})).rejects.toThrow(new RegExp(`^--relay-port ${busy} is already in use`))
      await expect(checkPorts({port: 40001, relayPort: 40001})).rejects.toThrow(/both 40001/)
    } finally {
      await new Promise((r) => server.close(r))
    }
    // Released: now free, and checking it leaves it free.
    await expect(checkPorts({port: busy})).resolves.toBeUndefined()
    expect(await probePort(busy)).toBeUndefined()
    await expect(checkPorts({})).resolves.toBeUndefined()
  })
})

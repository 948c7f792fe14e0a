/** --tunnel auto|cloudflared|localtunnel|none, with PATH and BOT_CLOUDFLARED as given. */
import {chmodSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {
  chooseTunnelProvider,
  cloudflaredAvailable,
  findExecutable,
  PROVIDERS,
  resolveTunnelChoice,
  TunnelError,
} from '../../src/tunnel/index.js'
import {FAKE_CLOUDFLARED, fakeCloudflaredBin, type FakeBin} from './fake-cloudflared.js'
import {startEchoServer} from './helpers.js'

let bin: FakeBin
beforeAll(() => {
  bin = fakeCloudflaredBin()
})
afterAll(() => bin.remove())

const noCloudflared = {PATH: path.dirname(process.execPath)}

describe('chooseTunnelProvider', () => {
  it('auto: cloudflared when it is on PATH', async () => {
    const env = bin.env({FAKE_CLOUDFLARED_DELAY_MS: '0'})
    expect(findExecutable('cloudflared', env)).toBe(path.join(bin.dir, 'cloudflared'))
    const provider = chooseTunnelProvider('auto', env)
    expect(provider?.name).toBe('cloudflared')
    // …and it runs that one.
    const echo = await startEchoServer()
    try {
      const tunnel = await provider!.open({port: echo.port})
      await tunnel.close()
      expect(tunnel.provider).toBe('cloudflared')
    } finally {
      await echo.close()
    }
  })

  it('auto: cloudflared when BOT_CLOUDFLARED is set, even if PATH has none', () => {
    expect(chooseTunnelProvider('auto', {...noCloudflared, BOT_CLOUDFLARED: FAKE_CLOUDFLARED})?.name).toBe(
      'cloudflared',
    )
  })

  it('auto: localtunnel when cloudflared is nowhere (also a non-executable file named cloudflared)', () => {
    expect(cloudflaredAvailable(noCloudflared)).toBe(false)
    expect(chooseTunnelProvider('auto', noCloudflared)?.name).toBe('localtunnel')
    const dir = mkdtempSync(path.join(tmpdir(), 'not-cf-'))
    try {
      writeFileSync(path.join(dir, 'cloudflared'), '#!/bin/sh\n', {mode: 0o644})
      expect(chooseTunnelProvider('auto', {PATH: dir, BOT_CLOUDFLARED: ''})?.name).toBe('localtunnel')
      chmodSync(path.join(dir, 'cloudflared'), 0o755)
      expect(chooseTunnelProvider('auto', {PATH: dir, BOT_CLOUDFLARED: ''})?.name).toBe('cloudflared')
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })

  it('explicit names are taken as given; localtunnel gets its config; none is null', () => {
    expect(chooseTunnelProvider('cloudflared', noCloudflared)?.name).toBe('cloudflared')
    const lt = chooseTunnelProvider('localtunnel', bin.env(), {
      host: 'http://127.0.0.1:9',
      subdomain: 'mybot-dev',
    }) as unknown as {name: string; host: string; subdomain: string}
    expect([lt.name, lt.host, lt.subdomain]).toEqual(['localtunnel', 'http://127.0.0.1:9', 'mybot-dev'])
    expect(chooseTunnelProvider('none', bin.env())).toBeNull()
    // auto with a localtunnel server or subdomain asked for: localtunnel, even where cloudflared could run
    const withCloudflared = {...noCloudflared, BOT_CLOUDFLARED: FAKE_CLOUDFLARED}
    expect(chooseTunnelProvider('auto', withCloudflared)?.name).toBe('cloudflared')
    expect(chooseTunnelProvider('auto', withCloudflared, {subdomain: 'mybot-dev'})?.name).toBe('localtunnel')
    expect(chooseTunnelProvider('auto', withCloudflared, {host: 'http://127.0.0.1:9'})?.name).toBe('localtunnel')
    expect(resolveTunnelChoice(' Auto ', noCloudflared)).toBe('localtunnel')
    expect(Object.keys(PROVIDERS)).toContain('cloudflared')
  })

  it('an unknown name is bad input (exit 2) listing the choices', () => {
    let err: unknown
    try {
      chooseTunnelProvider('ngrok', noCloudflared)
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(TunnelError)
    expect((err as TunnelError).exitCode).toBe(2)
    expect((err as TunnelError).message).toBe('"ngrok" is not a tunnel provider')
    expect((err as TunnelError).fix).toBe('use one of auto, cloudflared, localtunnel, none')
  })
})

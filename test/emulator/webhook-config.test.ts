import {describe, expect, it} from 'vitest'
import {setup} from './helpers.js'
import {waitFor} from '../support/wait.js'

const ok = (description: string) => `{"ok":true,"result":true,"description":"${description}"}`
const bad = (description: string) => `{"ok":false,"error_code":400,"description":"${description}"}`

describe('setWebhook / deleteWebhook', () => {
  it('answers the exact descriptions, with the "nothing changed" rule', async () => {
    const {api} = await setup({timeScale: 0}) // no rate limits
    const url = 'http://127.0.0.1:9/hook'
    expect((await api('deleteWebhook')).text).toBe(ok('Webhook is already deleted'))
    expect((await api('setWebhook', {url})).text).toBe(ok('Webhook was set'))
    expect((await api('setWebhook', {url})).text).toBe(ok('Webhook is already set'))
    expect((await api('setWebhook', {url, allowed_updates: ['message']})).text).toBe(ok('Webhook is already set'))
    expect((await api('getWebhookInfo')).json.result.allowed_updates).toEqual(['message']) // saved on that path
    expect((await api('setWebhook', {url, secret_token: 's1'})).text).toBe(ok('Webhook was set'))
    expect((await api('setWebhook', {url, secret_token: 's1', max_connections: 5})).text).toBe(ok('Webhook was set'))
    expect((await api('setWebhook', {url, secret_token: 's1', max_connections: 5, ip_address: '127.0.0.1'})).text).toBe(
      ok('Webhook was set'),
    )
    expect((await api('setWebhook', {url, secret_token: 's1', max_connections: 5, ip_address: '127.0.0.1'})).text).toBe(
      ok('Webhook is already set'),
    )
    expect((await api('deleteWebhook')).text).toBe(ok('Webhook was deleted'))
    expect((await api('deleteWebhook')).text).toBe(ok('Webhook is already deleted'))
  })

  it('treats a missing or empty url as delete', async () => {
    const {api} = await setup({timeScale: 0})
    await api('setWebhook', {url: 'http://127.0.0.1:9/a'})
    expect((await api('setWebhook', {url: ''})).text).toBe(ok('Webhook was deleted'))
    await api('setWebhook', {url: 'http://127.0.0.1:9/b'})
    expect((await api('setWebhook', {})).text).toBe(ok('Webhook was deleted'))
    expect((await api('setWebhook')).text).toBe(ok('Webhook is already deleted'))
  })

  it('keeps pending updates unless drop_pending_updates, which clears the queue even when nothing was set', async () => {
    const {api, emu, token} = await setup({timeScale: 0})
    emu.sendUserMessage(token, {text: 'a'})
    await api('setWebhook', {url: 'http://127.0.0.1:9/a'})
    await api('deleteWebhook')
    expect(emu.pendingUpdates(token)).toHaveLength(1)
    expect((await api('deleteWebhook', {drop_pending_updates: true})).text).toBe(ok('Webhook is already deleted'))
    expect(emu.pendingUpdates(token)).toHaveLength(0)
    emu.sendUserMessage(token, {text: 'b'})
    expect((await api('setWebhook', {url: 'http://127.0.0.1:9/a', drop_pending_updates: true})).text).toBe(
      ok('Webhook was set'),
    )
    expect(emu.pendingUpdates(token)).toHaveLength(0)
  })

  it('validates the url and the secret token (after removing the old webhook, as the server does)', async () => {
    const {api, emu, token} = await setup({timeScale: 0})
    expect((await api('setWebhook', {url: 'ftp://example.org/x'})).text).toBe(
      bad('Bad Request: invalid webhook URL specified'),
    )
    expect((await api('setWebhook', {url: 'http://127.0.0.1:9/x', secret_token: 'a'.repeat(257)})).text).toBe(
      bad('Bad Request: secret token is too long'),
    )
    await api('setWebhook', {url: 'http://127.0.0.1:9/ok'})
    expect((await api('setWebhook', {url: 'http://127.0.0.1:9/x', secret_token: 'bad secret!'})).text).toBe(
      bad('Bad Request: secret token contains unallowed characters'),
    )
    expect(emu.webhook(token)).toBeUndefined()
    expect(
      (await api('setWebhook', {url: 'http://127.0.0.1:9/x', secret_token: 'A-z_0'.repeat(51) + 'a'})).json.description,
    ).toBe('Webhook was set')
  })

  it('applies the cloud rules when local is false', async () => {
    const {api} = await setup({local: false, timeScale: 0})
    const set = (params: Record<string, unknown>) => api('setWebhook', params).then((r) => r.text)
    expect(await set({url: 'https://example.org:3000/x', ip_address: '149.154.167.220'})).toBe(
      bad('Bad Request: bad webhook: Webhook can be set up only on ports 80, 88, 443 or 8443'),
    )
    expect(await set({url: 'http://example.org/x', ip_address: '149.154.167.220'})).toBe(
      bad('Bad Request: bad webhook: An HTTPS URL must be provided for webhook'),
    )
    expect(await set({url: 'https://127.0.0.1/x'})).toBe(
      bad('Bad Request: bad webhook: IP address 127.0.0.1 is reserved'),
    )
    expect(await set({url: 'https://example.org/x', ip_address: '10.1.2.3'})).toBe(
      bad('Bad Request: bad webhook: IP address 10.1.2.3 is reserved'),
    )
    expect(await set({url: 'https://example.org/x', ip_address: 'nope'})).toBe(
      bad('Bad Request: bad webhook: Invalid IP address specified'),
    )
    expect(await set({url: 'https://[::1]:8443/x'})).toBe(
      bad('Bad Request: bad webhook: IPv6-only addresses are not allowed'),
    )
    // no scheme means https
    expect(await set({url: 'example.org:88/x', ip_address: '149.154.167.220'})).toBe(ok('Webhook was set'))
    const info = (await api('getWebhookInfo')).json.result
    expect(info.max_connections).toBe(40)
    expect(info.ip_address).toBe('149.154.167.220')
    await api('deleteWebhook')
  })

  it('clamps max_connections: 1..100 (default 40) in the cloud, 1..100000 (default 100) locally', async () => {
    const cloud = await setup({local: false, timeScale: 0})
    const mc = async (s: typeof cloud, value?: number) => {
      await s.api('setWebhook', {
        url: 'https://example.org/x',
        ip_address: '149.154.167.220',
        ...(value === undefined ? {} : {max_connections: value}),
      })
      const result = (await s.api('getWebhookInfo')).json.result.max_connections
      await s.api('deleteWebhook')
      return result
    }
    expect([await mc(cloud), await mc(cloud, 0), await mc(cloud, 500)]).toEqual([40, 1, 100])
    const local = await setup({timeScale: 0})
    expect([await mc(local), await mc(local, -3), await mc(local, 500), await mc(local, 10 ** 7)]).toEqual([
      100, 1, 500, 100000,
    ])
  })

  it('rate-limits a second non-empty setWebhook within 1 s', async () => {
    const {api} = await setup({timeScale: 1})
    const t0 = Date.now()
    await api('setWebhook', {url: 'http://127.0.0.1:9/a'})
    expect((await api('setWebhook', {url: 'http://127.0.0.1:9/b'})).status).toBe(429)
    expect((await api('deleteWebhook')).status).toBe(200) // an empty url is not limited
    await waitFor(async () => (await api('setWebhook', {url: 'http://127.0.0.1:9/c'})).status === 200, {
      what: 'the limit to pass',
      timeout: 3000,
    })
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000)
  })

  it('accepts a certificate upload (multipart) and reports has_custom_certificate', async () => {
    const {base, api, emu, token} = await setup({timeScale: 0})
    const form = new FormData()
    form.set('url', 'https://127.0.0.1:8443/x')
    form.set('certificate', new Blob(['-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n']), 'cert.pem')
    const res = await fetch(`${base}/setWebhook`, {method: 'POST', body: form})
    expect(await res.text()).toBe(ok('Webhook was set'))
    expect((await api('getWebhookInfo')).json.result.has_custom_certificate).toBe(true)
    expect(emu.webhook(token)?.hasCustomCertificate).toBe(true)
    const big = new FormData()
    big.set('url', 'https://127.0.0.1:8443/y')
    big.set('certificate', new Blob([Buffer.alloc((3 << 20) + 1)]), 'big.pem')
    expect(await (await fetch(`${base}/setWebhook`, {method: 'POST', body: big})).text()).toBe(
      bad(`Bad Request: certificate size is too big (${(3 << 20) + 1} bytes)`),
    )
  })
})

describe('getWebhookInfo', () => {
  it('shows only url, has_custom_certificate and pending_update_count without a webhook', async () => {
    const {api, emu, token} = await setup()
    expect((await api('getWebhookInfo')).text).toBe(
      '{"ok":true,"result":{"url":"","has_custom_certificate":false,"pending_update_count":0}}',
    )
    emu.sendUserMessage(token, {text: 'x'})
    expect((await api('getWebhookInfo')).json.result.pending_update_count).toBe(1)
  })

  it('orders the fields as the server does, with ip_address and allowed_updates when set', async () => {
    const {api, emu, token} = await setup()
    await api('setWebhook', {
      url: 'http://localhost:9/hook',
      max_connections: 7,
      allowed_updates: ['message', 'chat_member'],
    })
    emu.sendUserMessage(token, {text: 'x'})
    await waitFor(() => emu.getWebhookInfo(token).last_error_date, {
      what: 'a delivery error (nothing listens on port 9)',
    })
    const info = (await api('getWebhookInfo')).json.result
    expect(Object.keys(info)).toEqual([
      'url',
      'has_custom_certificate',
      'pending_update_count',
      'last_error_date',
      'last_error_message',
      'max_connections',
      'ip_address',
      'allowed_updates',
    ])
    expect(info.last_error_message).toBe('Connection refused')
    expect(info.pending_update_count).toBe(1)
    expect(info).toMatchObject({
      url: 'http://localhost:9/hook',
      max_connections: 7,
      allowed_updates: ['message', 'chat_member'],
    })
    expect(['127.0.0.1', '::1']).toContain(info.ip_address)
    expect(emu.getWebhookInfo(token)).toEqual(expect.objectContaining({url: 'http://localhost:9/hook'}))
  })
})

/**
 * A Mini App's CloudStorage (the table's web_app_cloud_storage): values kept per bot and user, answered as
 * telegram-web-app.js reads them, bad keys and values refused in our words.
 */
import {describe, expect, it} from 'vitest'
import {control} from './bots.js'
import {setup} from './helpers.js'

describe('web_app_cloud_storage: POST /_emulator/bots/{token}/web_apps/cloud_storage', () => {
  it('saves, reads, lists and deletes values per user', async () => {
    const {emu, token} = await setup()
    const call = async (body: Record<string, unknown>) => control(emu, token, '/web_apps/cloud_storage', body)

    expect((await call({user_id: 7, method: 'saveStorageValue', params: {key: 'theme', value: 'dark'}})).json).toEqual({
      result: true,
    })
    expect((await call({user_id: 7, method: 'saveStorageValue', params: {key: 'n', value: ''}})).json.result).toBe(true)
    expect((await call({user_id: 7, method: 'getStorageValues', params: {keys: ['theme', 'missing']}})).json).toEqual({
      result: {theme: 'dark', missing: ''},
    })
    expect((await call({user_id: 7, method: 'getStorageKeys'})).json).toEqual({result: ['theme', 'n']})
    // another user of the same bot has their own storage
    expect((await call({user_id: 8, method: 'getStorageKeys'})).json).toEqual({result: []})
    expect((await call({user_id: 8, method: 'getStorageValues', params: {keys: ['theme']}})).json.result).toEqual({
      theme: '',
    })
    expect((await call({user_id: 7, method: 'deleteStorageValues', params: {keys: ['theme']}})).json.result).toBe(true)
    expect((await call({user_id: 7, method: 'getStorageKeys'})).json.result).toEqual(['n'])
  })

  it('refuses a bad key, a long value, an unknown method, and a 1025th key', async () => {
    const {emu, token} = await setup()
    const call = async (body: Record<string, unknown>) => control(emu, token, '/web_apps/cloud_storage', body)
    const badKey = await call({method: 'saveStorageValue', params: {key: 'a b', value: 'x'}})
    expect(badKey.status).toBe(400)
    expect(JSON.stringify(badKey.json)).toContain('key must be 1-128 characters')
    const long = await call({method: 'saveStorageValue', params: {key: 'k', value: 'x'.repeat(4097)}})
    expect(long.status).toBe(400)
    expect(JSON.stringify(long.json)).toContain('4096')
    const unknown = await call({method: 'dropEverything'})
    expect(unknown.status).toBe(400)
    // the first 1024 through the JavaScript API (the same table entry), the 1025th through the route
    for (let i = 0; i < 1024; i++)
      expect(
        emu.act(token, 'web_app_cloud_storage', {method: 'saveStorageValue', params: {key: `k${i}`, value: 'v'}}),
      ).toBe(true)
    const full = await call({method: 'saveStorageValue', params: {key: 'one_more', value: 'v'}})
    expect(full.status).toBe(400)
    expect(JSON.stringify(full.json)).toContain('1024 keys')
    // an existing key may still be overwritten
    expect((await call({method: 'saveStorageValue', params: {key: 'k0', value: 'w'}})).status).toBe(200)
  })
})

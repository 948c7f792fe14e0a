import {describe, expect, it} from 'vitest'

import {inspectToken} from '../../src/telegram/index.js'
import {binDirs as binDirsUpFrom} from '../../src/dev/bot/command.js'
import {OFFLINE_TOKEN, startOfflineBackend} from '../../src/offline/offline-env.js'

describe('startOfflineBackend', () => {
  it('starts the emulator in local mode with the fixed fake bot on loopback', async () => {
    const backend = await startOfflineBackend({chatId: -100, userId: 5})
    try {
      expect(backend.apiRoot).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      expect(backend.token).toBe(OFFLINE_TOKEN)
      expect(backend.bot).toEqual({token: OFFLINE_TOKEN, id: 1234567890, username: 'offline_dev_bot'})
      expect(backend.user).toEqual({userId: 5, chatId: -100, firstName: 'You', username: 'offline_user'})
      const res = await fetch(`${backend.apiRoot}/bot${backend.token}/getMe`)
      expect(await res.json()).toMatchObject({
        ok: true,
        result: {id: 1234567890, is_bot: true, username: 'offline_dev_bot'},
      })
      // Local mode: an http webhook on any port is accepted (the cloud would refuse it).
      const set = await fetch(
        `${backend.apiRoot}/bot${backend.token}/setWebhook?url=${encodeURIComponent('http://127.0.0.1:1/hook')}`,
      )
      expect(await set.json()).toEqual({ok: true, result: true, description: 'Webhook was set'})
    } finally {
      await backend.stop()
      await backend.stop() // idempotent
    }
  })

  it('uses a token every library accepts, and that says it is fake', () => {
    expect(inspectToken(OFFLINE_TOKEN)).toEqual({valid: true, botId: 1234567890})
    expect(OFFLINE_TOKEN).toMatch(/OFFLINE.*NOT-A-REAL-SECRET/)
  })

  it('rejects ids that are not ids', async () => {
    await expect(startOfflineBackend({chatId: 0})).rejects.toThrow('chat id 0 is not a non-zero integer id')
    await expect(startOfflineBackend({userId: -3})).rejects.toThrow('user id -3 must be positive')
    await expect(startOfflineBackend({userId: 1.5})).rejects.toThrow('user id 1.5 is not a non-zero integer id')
  })
})

describe('binDirsUpFrom', () => {
  it('lists node_modules/.bin from the folder up to the root, nearest first (as npm run does)', () => {
    expect(binDirsUpFrom('/a/b')).toEqual(['/a/b/node_modules/.bin', '/a/node_modules/.bin', '/node_modules/.bin'])
  })
})

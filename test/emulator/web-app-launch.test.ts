/**
 * A Mini App launched as a Telegram web client launches it (the table's launch_web_app): the launch URL's hash
 * parameters, and initData signed with the bot's token, checked here by an implementation written from
 * core.telegram.org/bots/webapps ("Validating data received via the Mini App") and by @telegram-apps/init-data-node
 * as a third party; a tampered copy fails both. The third-party `signature` is there, signed by the emulator's own
 * Ed25519 key (apps on @telegram-apps/sdk refuse initData without one).
 */
import {createHmac} from 'node:crypto'
import {isValid} from '@telegram-apps/init-data-node'
import {describe, expect, it} from 'vitest'
import {control} from './bots.js'
import {setup} from './helpers.js'

const APP = 'https://app.example/shop?x=1'

/** The documented check: the fields but hash, `key=value` sorted by key, joined by \n; HMAC keyed by HMAC("WebAppData", token). */
function signedByToken(initData: string, token: string): boolean {
  const params = new URLSearchParams(initData)
  const hash = params.get('hash')
  params.delete('hash')
  const dataCheckString = [...params.entries()]
    .map(([key, value]) => `${key}=${value}`)
    .sort()
    .join('\n')
  const secretKey = createHmac('sha256', 'WebAppData').update(token).digest()
  return hash !== null && createHmac('sha256', secretKey).update(dataCheckString).digest('hex') === hash
}

/** The same data with the user's first name changed, the hash kept. */
function tampered(initData: string): string {
  const params = new URLSearchParams(initData)
  const user = JSON.parse(params.get('user') ?? '{}') as Record<string, unknown>
  params.set('user', JSON.stringify({...user, first_name: 'Mallory'}))
  return params.toString()
}

function launchParams(url: string): URLSearchParams {
  return new URLSearchParams(new URL(url).hash.slice(1))
}

describe('launch_web_app: POST /_emulator/bots/{token}/web_apps/open', () => {
  it("from the menu button: the app's URL with the launch parameters, a query_id, initData signed with the token", async () => {
    const {emu, token, api} = await setup()
    const menu = {type: 'web_app', text: 'Shop', web_app: {url: APP}}
    expect((await api('setChatMenuButton', {menu_button: menu})).json.ok).toBe(true)
    const described = await control(emu, token, '/users/42', {
      first_name: 'Ada',
      username: 'ada_l',
      language_code: 'en',
    })
    expect(described.status).toBe(200)

    const opened = await control(emu, token, '/web_apps/open', {user_id: 42})
    expect(opened.status).toBe(200)
    const {url, init_data: initData, query_id: queryId} = opened.json
    expect(Object.keys(opened.json).sort()).toEqual(['init_data', 'query_id', 'url'])
    expect(url.startsWith(`${APP}#tgWebAppData=`)).toBe(true)
    const hash = launchParams(url)
    expect(hash.get('tgWebAppData')).toBe(initData)
    expect(hash.get('tgWebAppVersion')).toMatch(/^\d+\.\d+$/)
    expect(hash.get('tgWebAppPlatform')).toBe('weba')
    expect(JSON.parse(hash.get('tgWebAppThemeParams') ?? '')).toMatchObject({bg_color: expect.stringMatching(/^#/)})
    expect(hash.has('tgWebAppStartParam')).toBe(false)

    const data = new URLSearchParams(initData)
    expect(data.get('query_id')).toBe(queryId)
    expect(JSON.parse(data.get('user') ?? '')).toEqual({
      id: 42,
      first_name: 'Ada',
      username: 'ada_l',
      language_code: 'en',
      allows_write_to_pm: true,
    })
    expect(Math.abs(Number(data.get('auth_date')) - Date.now() / 1000)).toBeLessThan(60)
    expect(data.has('start_param')).toBe(false)

    expect(signedByToken(initData, token)).toBe(true)
    expect(signedByToken(tampered(initData), token)).toBe(false)
    expect(signedByToken(initData, emu.createBot().token)).toBe(false)
    expect(isValid(initData, token)).toBe(true)
    expect(isValid(tampered(initData), token)).toBe(false)
    // signature: Ed25519 (64 bytes, base64url) by the emulator's own key; the hash covers it like any field
    const signature = data.get('signature') ?? ''
    expect(Buffer.from(signature, 'base64url').length).toBe(64)
    expect(signature).toMatch(/^[\w-]+$/)
    const resigned = new URLSearchParams(initData)
    resigned.set('signature', Buffer.alloc(64).toString('base64url'))
    expect(isValid(resigned.toString(), token)).toBe(false)

    // the query is the bot's to answer, once
    const result = {type: 'article', id: '1', title: 'Done', input_message_content: {message_text: 'Bought'}}
    expect((await api('answerWebAppQuery', {web_app_query_id: queryId, result})).json.ok).toBe(true)
    expect((await api('answerWebAppQuery', {web_app_query_id: queryId, result})).json.ok).toBe(false)
  })

  it('with a start parameter or in a group: a direct-link launch (chat_type, chat_instance, start_param), no query_id', async () => {
    const {emu, token} = await setup()
    const direct = await control(emu, token, '/web_apps/open', {url: APP, user_id: 7, start_param: 'ref_7'})
    expect(direct.status).toBe(200)
    expect(direct.json.query_id).toBeUndefined()
    expect(launchParams(direct.json.url).get('tgWebAppStartParam')).toBe('ref_7')
    const data = new URLSearchParams(direct.json.init_data)
    expect(data.get('start_param')).toBe('ref_7')
    expect(data.get('chat_type')).toBe('sender')
    expect(data.get('chat_instance')).toMatch(/^-?\d+$/)
    expect(data.has('query_id')).toBe(false)
    expect(signedByToken(direct.json.init_data, token)).toBe(true)
    expect(isValid(direct.json.init_data, token)).toBe(true)

    const group = await control(emu, token, '/web_apps/open', {url: APP, chat_id: -1001234567890})
    const groupData = new URLSearchParams(group.json.init_data)
    expect(groupData.get('chat_type')).toBe('supergroup')
    expect(group.json.query_id).toBeUndefined()
    expect(signedByToken(group.json.init_data, token)).toBe(true)
  })

  it('bad input: one line saying what to fix, in our words', async () => {
    const {emu, token} = await setup()
    const cases: Array<[unknown, string]> = [
      [{}, 'url is required: the bot has no web_app menu button to open (setChatMenuButton with a web_app button)'],
      [{url: 'ftp://app.example'}, 'url "ftp://app.example" must be an http(s) URL'],
      [{url: APP, user_id: 'x'}, 'user_id "x" must be an integer'],
      [{url: APP, chat_id: 0}, 'chat_id must not be 0'],
      [{url: APP, start_param: 7}, 'start_param must be a string of up to 512 characters'],
      [{url: APP, theme: 'dark'}, 'unknown field "theme"; the fields are url, user_id, chat_id, start_param'],
    ]
    for (const [body, error] of cases) {
      expect(await control(emu, token, '/web_apps/open', body), JSON.stringify(body)).toEqual({
        status: 400,
        json: {error},
      })
    }
  })

  it('the conversation API: user.launchWebApp() opens the menu button’s app as that user', async () => {
    const {emu, token, api} = await setup()
    await api('setChatMenuButton', {menu_button: {type: 'web_app', text: 'Shop', web_app: {url: APP}}})
    const ada = emu.user(token, {id: 5, firstName: 'Ada'})
    const launch = ada.launchWebApp()
    expect(launch.queryId).toMatch(/\S/)
    expect(JSON.parse(new URLSearchParams(launch.initData).get('user') ?? '').id).toBe(5)
    expect(isValid(launch.initData, token)).toBe(true)
    const linked = ada.launchWebApp({url: 'http://localhost:5173/', startParam: 'x'})
    expect(linked.url.startsWith('http://localhost:5173/#tgWebAppData=')).toBe(true)
    expect(linked.queryId).toBeUndefined()
  })
})

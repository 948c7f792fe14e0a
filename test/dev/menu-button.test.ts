/**
 * The session's hold on the default menu button (src/dev/menu-button.ts) against the emulator's Bot API: recorded
 * before it is set, put back on exit, left alone when someone changed it meanwhile, moved to a new URL keeping the
 * first button as the one to put back.
 */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {restoreMenuButton, SessionMenuButton} from '../../src/dev/menu-button.js'
import {BotApiEmulator} from '../../src/emulator/index.js'
import type {SessionState} from '../../src/session-store/state.js'
import {BotApi} from '../../src/telegram/index.js'

let emu: BotApiEmulator
let api: BotApi
beforeEach(async () => {
  emu = await BotApiEmulator.start({timeScale: 0.01})
  const bot = emu.createBot({username: 'menu_test_bot'})
  api = new BotApi({token: bot.token, apiRoot: emu.apiRoot})
})
afterEach(async () => {
  await emu.stop()
})

const SHOP = {type: 'web_app', text: 'Shop', web_app: {url: 'https://shop.example.com/'}}

function held() {
  const saved: Array<Partial<SessionState>> = []
  return {menu: new SessionMenuButton(api, (patch) => saved.push(patch)), saved}
}

describe('SessionMenuButton', () => {
  it('records the previous button before setting ours, keeps it across a move, puts it back on exit', async () => {
    await api.call('setChatMenuButton', {menu_button: SHOP})
    const {menu, saved} = held()
    await menu.set('https://one.example.com/app/')
    expect(saved[0]).toEqual({menuButton: {url: 'https://one.example.com/app/', previous: SHOP}})
    expect(await api.call('getChatMenuButton')).toEqual({
      type: 'web_app',
      text: 'Open app',
      web_app: {url: 'https://one.example.com/app/'},
    })
    await menu.set('https://two.example.com/app/')
    expect(saved[1]).toEqual({menuButton: {url: 'https://two.example.com/app/', previous: SHOP}})
    expect(await menu.restore(3000)).toBe('restored')
    expect(await api.call('getChatMenuButton')).toEqual(SHOP)
    expect(saved.at(-1)).toEqual({menuButton: undefined})
    expect(await menu.restore(3000)).toBe('nothing')
  })

  it('the default button comes back as the default (setChatMenuButton without menu_button)', async () => {
    await api.call('setChatMenuButton', {menu_button: {type: 'default'}})
    const before = await api.call('getChatMenuButton')
    const {menu} = held()
    await menu.set('https://one.example.com/app/')
    expect(await menu.restore(3000)).toBe('restored')
    expect(await api.call('getChatMenuButton')).toEqual(before)
  })

  it('a button someone else set during the session is left as it is', async () => {
    const {menu} = held()
    await menu.set('https://one.example.com/app/')
    await api.call('setChatMenuButton', {menu_button: SHOP})
    expect(await menu.restore(3000)).toBe('left-foreign')
    expect(await api.call('getChatMenuButton')).toEqual(SHOP)
  })

  it('a dead session’s record is repaired only while the button is still its own', async () => {
    await api.call('setChatMenuButton', {
      menu_button: {type: 'web_app', text: 'Open app', web_app: {url: 'https://dead.example.com/app/'}},
    })
    expect(await restoreMenuButton(api, {url: 'https://other.example.com/app/', previous: SHOP})).toBe('left-foreign')
    expect(await restoreMenuButton(api, {url: 'https://dead.example.com/app/', previous: SHOP})).toBe('restored')
    expect(await api.call('getChatMenuButton')).toEqual(SHOP)
  })
})

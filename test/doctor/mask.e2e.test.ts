/**
 * `bot doctor` never prints a webhook's secret path or query whole (text and --json): the delivery
 * check shows the URL masked, and so does the sessions check for a `bot dev` that died with its
 * webhook set. A real process against the emulator on loopback.
 */
import {spawn} from 'node:child_process'
import {randomBytes} from 'node:crypto'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {writeState} from '../../src/session-store/state.js'
import {BotApi} from '../../src/telegram/index.js'
import {doctorWorld, expectNoToken, report, type DoctorWorld} from './helpers.js'

let world: DoctorWorld
beforeAll(async () => {
  world = await doctorWorld()
})
afterAll(async () => {
  await world.close()
})

describe('bot doctor masks webhook paths', () => {
  it('delivery and sessions show /webhook/<4 characters>… and ?…, in text and --json', async () => {
    const bot = world.emu.createBot({username: 'mask_doctor_bot'})
    const random = randomBytes(12).toString('base64url')
    const query = randomBytes(9).toString('hex')
    const url = `http://127.0.0.1:9/webhook/${random}?k=${query}`
    const masked = `http://127.0.0.1:9/webhook/${random.slice(0, 4)}…?…`
    await new BotApi({token: bot.token, apiRoot: world.emu.apiRoot}).setWebhook({url})
    // A `bot dev` that died (a pid we saw exit) with its webhook still set.
    const gone = spawn(process.execPath, ['-e', '0'])
    const deadPid = gone.pid!
    await new Promise((r) => gone.on('exit', r))
    writeState(
      {
        version: 1,
        botId: bot.id,
        botUsername: bot.username,
        pid: deadPid,
        startedAt: new Date().toISOString(),
        cwd: '/tmp/mask-bot',
        mode: 'webhook',
        apiRoot: world.emu.apiRoot,
        webhook: {url},
      },
      world.stateDir,
    )

    const leaks = (text: string) => text.includes(random.slice(0, 5)) || text.includes(query)
    const text = await world.doctor(['--no-probe'], {BOT_TOKEN: bot.token})
    expect(text.code).toBe(1)
    expect(text.stdout).toContain(`mode: webhook → ${masked} (`)
    expect(text.stdout).toContain(`is gone but its webhook is still set (${masked})`)
    expect(leaks(text.stdout) || leaks(text.stderr)).toBe(false)
    expectNoToken(text, bot.token)

    const json = await world.doctor(['--no-probe', '--json'], {BOT_TOKEN: bot.token})
    expect(json.code).toBe(1)
    const checks = report(json).byId
    expect(checks.delivery.detail).toContain(`mode: webhook → ${masked} (`)
    expect(checks.sessions.detail).toContain(`(${masked})`)
    expect(leaks(json.stdout) || leaks(json.stderr)).toBe(false)
  })
})

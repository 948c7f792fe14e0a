/**
 * `bot doctor` masks the value of every secret-bearing argument of the processes it lists (issue 20,
 * item 6), in text and --json: a real process holding the token, started with
 * `--secret-token s3cr3t_VALUE --restore-secret another_SECRET --api-key=… DB_PASSWORD=…`.
 */
import {spawn} from 'node:child_process'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {doctorWorld, expectNoToken, report, type DoctorWorld} from './helpers.js'

let world: DoctorWorld
beforeAll(async () => {
  world = await doctorWorld()
})
afterAll(async () => {
  await world.close()
})

const VALUES = ['s3cr3t_VALUE', 'another_SECRET', 'k3y_VALUE', 'pw_VALUE']

describe("bot doctor and other processes' command lines", () => {
  it('shows the flags and names, never their secret values, in text and --json', async () => {
    const bot = world.emu.createBot({username: 'masked_args_bot'})
    const argv = [
      '-c',
      'sleep 300; :',
      'sh',
      '--secret-token',
      VALUES[0],
      '--restore-secret',
      VALUES[1],
      `--api-key=${VALUES[2]}`,
      `DB_PASSWORD=${VALUES[3]}`,
      '--port',
      '8080',
    ]
    const holder = spawn('sh', argv, {env: {...process.env, BOT_TOKEN: bot.token}, stdio: 'ignore'})
    try {
      await new Promise<void>((resolve, reject) => {
        holder.once('spawn', resolve)
        holder.once('error', reject)
      })
      const masked =
        'sh -c sleep 300; : sh --secret-token <secret> --restore-secret <secret> --api-key=<secret> DB_PASSWORD=<secret> --port 8080'
      const text = await world.doctor(['--only', 'local-pollers'], {BOT_TOKEN: bot.token})
      expect(text.stdout).toContain(`pid ${holder.pid}, `)
      expect(text.stdout).toContain(masked)
      const json = await world.doctor(['--only', 'local-pollers', '--json'], {BOT_TOKEN: bot.token})
      expect(report(json).byId['local-pollers'].detail).toContain(masked)
      for (const result of [text, json]) {
        for (const value of VALUES) expect(result.stdout + result.stderr).not.toContain(value)
        expectNoToken(result, bot.token)
      }
    } finally {
      holder.kill('SIGKILL')
    }
  }, 60_000)
})

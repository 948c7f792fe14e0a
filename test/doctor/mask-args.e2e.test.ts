/**
 * `bot doctor` masks the value of every secret-bearing argument of the processes it lists (issue 20,
 * item 6), in text and --json: a real process holding the token, started with
 * `--secret-token s3cr3t_VALUE --restore-secret another_SECRET --api-key=… DB_PASSWORD=…`; and by
 * shape, whatever the flag's name (issue 31, item 6): credentials in URLs, a webhook URL's path,
 * authorization headers, `-t X`, and flags named like --passphrase, --cookie, --pw, --dsn….
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
  })

  it('masks by shape too: URL credentials, webhook paths, headers, and every secret-sounding name', async () => {
    const bot = world.emu.createBot({username: 'masked_shapes_bot'})
    const secrets = {
      url: 'PGPASS_1',
      hook: 'HookPath2secret',
      passphrase: 'PHRASE_3',
      cookie: 'COOKIE_4',
      pw: 'PW_5',
      bearer: 'BEARER_6',
      hmac: 'HMAC_7',
      session: 'SESSION_8',
      cred: 'CRED_9',
      dsn: 'DSN_10',
      header: 'AUTHHDR_11',
      split: 'SPLIT_12',
      t: 'TFLAG_13',
      redis: 'REDIS_14',
    }
    const argv = [
      '-c',
      'sleep 300; :',
      'sh',
      `postgres://u:${secrets.url}@db/app`,
      `--webhook-url=https://example.com/hook/${secrets.hook}`,
      `--passphrase=${secrets.passphrase}`,
      `--cookie=${secrets.cookie}`,
      `--pw=${secrets.pw}`,
      `--bearer=${secrets.bearer}`,
      `--hmac=${secrets.hmac}`,
      `--session=${secrets.session}`,
      `--cred=${secrets.cred}`,
      `--dsn=${secrets.dsn}`,
      `Authorization: Bearer ${secrets.header}`,
      'Authorization:',
      'Bearer',
      secrets.split,
      '-t',
      secrets.t,
      `redis://:${secrets.redis}@cache:6379`,
      '--port',
      '8080',
    ]
    const holder = spawn('sh', argv, {env: {...process.env, BOT_TOKEN: bot.token}, stdio: 'ignore'})
    try {
      await new Promise<void>((resolve, reject) => {
        holder.once('spawn', resolve)
        holder.once('error', reject)
      })
      const text = await world.doctor(['--only', 'local-pollers'], {BOT_TOKEN: bot.token})
      const json = await world.doctor(['--only', 'local-pollers', '--json'], {BOT_TOKEN: bot.token})
      expect(text.stdout).toContain(`pid ${holder.pid}, `)
      // What is kept: enough to recognise the command (shown up to 160 characters).
      const detail = report(json).byId['local-pollers'].detail as string
      expect(detail).toContain(
        'sh -c sleep 300; : sh postgres://u:<secret>@db/app --webhook-url=https://example.com/hook/Hook… --passphrase=<secret>',
      )
      for (const result of [text, json]) {
        for (const value of Object.values(secrets)) expect(result.stdout + result.stderr).not.toContain(value)
        expectNoToken(result, bot.token)
      }
    } finally {
      holder.kill('SIGKILL')
    }
  })
})

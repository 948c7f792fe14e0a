/**
 * Secrets out of argv and out of the bot's environment, as real processes:
 * - `bot emulator` takes its token from BOT_EMULATOR_TOKEN: nothing in its command line (what `ps`
 *   shows every user) holds it;
 * - `--restore-secret` and `bot webhook set --secret-token` (and `bot emulator --token`) given as
 *   flags print one line saying argv is visible to other users, naming the variable to use;
 * - the bot gets none of `bot dev`'s own settings (BOT_RESTORE_SECRET above all);
 * - a TypeScript bot run with tsx leaves no world-readable transpile cache in $TMPDIR.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {BotApiEmulator} from '../../src/emulator/index.js'
import {devWorld, startDev, type DevWorld} from '../dev/helpers.js'
import {BIN, cliEnv, PROJECT_ROOT, runCli, startCli, type RunningCli} from '../support/cli.js'
import {waitFor} from '../support/wait.js'

const TOKEN = '5550001:AAH-emulatorTokenFromTheEnv_0123456789'
const running: RunningCli[] = []
const children: ChildProcess[] = []
let world: DevWorld | undefined
let emu: BotApiEmulator | undefined
afterEach(async () => {
  for (const p of running.splice(0)) p.kill('SIGKILL')
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL')
  await world?.close()
  world = undefined
  await emu?.stop()
  emu = undefined
})

const ARGV_LINE =
  /^! --([a-z-]+) is in the command line, which every user of this machine can read \(ps, \/proc\): set ([A-Z_]+) in the environment \(or \.env\) instead\.$/m

describe('secrets out of argv', () => {
  it('bot emulator takes its token from BOT_EMULATOR_TOKEN: it works, is never printed, and is not in the command line', async () => {
    const p = startCli(['emulator', '--port', '0', '--json'], {env: {BOT_EMULATOR_TOKEN: TOKEN}, timeoutMs: 90_000})
    running.push(p)
    await p.waitForOutput(/\n/, {stream: 'stdout', timeoutMs: 15_000})
    const info = JSON.parse(p.stdout().split('\n')[0]) as {apiRoot: string}
    const me = (await (await fetch(`${info.apiRoot}/bot${TOKEN}/getMe`)).json()) as {ok: boolean; result: {id: number}}
    expect(me).toMatchObject({ok: true, result: {id: 5550001}})
    const cmdline = readFileSync(`/proc/${p.child.pid}/cmdline`, 'utf8')
    expect(cmdline).not.toContain(TOKEN.split(':')[1])
    p.kill('SIGTERM')
    const result = await p.exited
    expect(result.stdout + result.stderr).not.toContain(TOKEN.split(':')[1])
    expect(result.stderr).not.toMatch(ARGV_LINE)
  })

  it('bot emulator --token and bot webhook set --secret-token print the argv warning naming the variable; from the environment, none', async () => {
    const p = startCli(['emulator', '--port', '0', '--json', '--token', TOKEN], {timeoutMs: 90_000})
    running.push(p)
    await p.waitForOutput(/\n/, {stream: 'stdout', timeoutMs: 15_000})
    p.kill('SIGTERM')
    const emulator = await p.exited
    expect(emulator.stderr).toMatch(ARGV_LINE)
    expect(ARGV_LINE.exec(emulator.stderr)!.slice(1)).toEqual(['token', 'BOT_EMULATOR_TOKEN'])

    emu = await BotApiEmulator.start()
    const {token} = emu.createBot()
    const set = (args: string[], env: Record<string, string> = {}) =>
      runCli(['webhook', 'set', 'http://127.0.0.1:9/hook', '--api-root', emu!.apiRoot, ...args], {
        env: {BOT_TOKEN: token, ...env},
      })
    const flag = await set(['--secret-token', 'prod_Secret_123'])
    expect(flag.code, flag.stderr).toBe(0)
    const warnings = flag.stderr.split('\n').filter((l) => ARGV_LINE.test(l))
    expect(warnings).toHaveLength(1)
    expect(ARGV_LINE.exec(warnings[0])!.slice(1)).toEqual(['secret-token', 'WEBHOOK_SECRET'])
    expect(flag.stdout + flag.stderr).not.toContain('prod_Secret_123')
    expect(emu.webhook(token)).toMatchObject({secretToken: 'prod_Secret_123'})
    const fromEnv = await set([], {WEBHOOK_SECRET: 'prod_Secret_456'})
    expect(fromEnv.code, fromEnv.stderr).toBe(0)
    expect(fromEnv.stderr).not.toMatch(ARGV_LINE)
    expect(emu.webhook(token)).toMatchObject({secretToken: 'prod_Secret_456'})
  })

  it('bot dev --restore-secret prints the warning naming BOT_RESTORE_SECRET; the bot gets neither it nor bot dev’s own settings', async () => {
    world = await devWorld()
    const out = join(world.dir, 'env.json')
    const bot = join(world.dir, 'env-bot.mjs')
    writeFileSync(
      bot,
      `import {writeFileSync} from 'node:fs'
import http from 'node:http'
writeFileSync(process.env.ENV_OUT, JSON.stringify(process.env))
http.createServer((req, res) => res.end()).listen(Number(process.env.PORT), '127.0.0.1')
`,
    )
    const dev = startDev(world, {
      bot: ['node', bot],
      args: ['--no-watch', '--tunnel', 'none', '--restore-secret', 'prod_restore_789'],
      env: {
        ENV_OUT: out,
        BOT_TUNNEL_HOST: 'http://127.0.0.1:9',
        BOT_EMULATOR_TOKEN: TOKEN,
        BOT_EMULATOR_PORT: '9',
      },
    })
    await dev.waitForOutput(/Ready/, {timeoutMs: 20_000})
    await waitFor(() => existsSync(out), {what: 'the bot to write its environment'})
    const env = JSON.parse(readFileSync(out, 'utf8')) as Record<string, string>
    dev.kill('SIGINT')
    const result = await dev.exited
    expect(result.code, result.stderr).toBe(0)
    const warnings = result.stderr.split('\n').filter((l) => ARGV_LINE.test(l))
    expect(warnings).toHaveLength(1)
    expect(ARGV_LINE.exec(warnings[0])!.slice(1)).toEqual(['restore-secret', 'BOT_RESTORE_SECRET'])
    expect(result.stdout + result.stderr).not.toContain('prod_restore_789')
    // The bot's environment: the contract, none of bot dev's own settings.
    expect(env.BOT_TOKEN).toBe(world.token)
    expect(env.WEBHOOK_SECRET).toMatch(/^[A-Za-z0-9_-]+$/)
    for (const name of [
      'BOT_STATE_DIR',
      'BOT_TUNNEL_HOST',
      'BOT_PUBLIC_URL',
      'BOT_EMULATOR_TOKEN',
      'BOT_RESTORE_SECRET',
    ])
      expect(env[name], name).toBeUndefined()
    expect(JSON.stringify(env)).not.toContain('prod_restore_789')
  })

  it('BOT_RESTORE_SECRET from the environment does not reach the bot either (offline too), and tsx caches nothing world-readable', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bot-tsx-'))
    const project = join(dir, 'project')
    const tmp = join(dir, 'tmp')
    mkdirSync(join(project, 'src'), {recursive: true})
    mkdirSync(tmp)
    // tsx as the project's own dependency (the repository's node_modules).
    symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(project, 'node_modules'))
    const out = join(dir, 'env.json')
    writeFileSync(
      join(project, 'src', 'main.ts'),
      `import {writeFileSync} from 'node:fs'
import http from 'node:http'
const port: number = Number(process.env.PORT)
http.createServer((req, res) => res.end()).listen(port, '127.0.0.1', () => writeFileSync(process.env.ENV_OUT as string, JSON.stringify(process.env)))
`,
    )
    const child = spawn(process.execPath, [BIN, 'dev', '--offline', '--no-watch'], {
      cwd: project,
      env: cliEnv({
        env: {
          BOT_STATE_DIR: join(dir, 'state'),
          BOT_RESTORE_SECRET: 'prod_restore_from_env',
          ENV_OUT: out,
          TMPDIR: tmp,
        },
      }),
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    children.push(child)
    let stderr = ''
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    child.stdout!.resume()
    await waitFor(() => existsSync(out), {what: () => `the TypeScript bot to start\n${stderr}`, timeout: 30_000})
    const env = JSON.parse(readFileSync(out, 'utf8')) as Record<string, string>
    expect(env.BOT_RESTORE_SECRET).toBeUndefined()
    expect(env.BOT_STATE_DIR).toBeUndefined()
    expect(env.TSX_DISABLE_CACHE).toBe('1')
    // tsx ran (the bot is TypeScript) and left no cache of its code in the shared temp folder.
    const uid = process.getuid?.() ?? 0
    const cache = join(tmp, `tsx-${uid}`)
    const cached = existsSync(cache) ? readdirSync(cache) : []
    expect(cached, `cache files in ${cache}`).toEqual([])
    child.stdin!.end()
    await new Promise((resolve) => child.on('close', resolve))
    expect(stderr).not.toMatch(ARGV_LINE)
  })
})

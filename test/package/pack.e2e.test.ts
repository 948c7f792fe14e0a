/**
 * The published package, as a user gets it: `npm pack` (the tarball of the current build),
 * `npm i -g --prefix <tmp> ./bot-cli-*.tgz` (dependencies from the npm registry), then the
 * installed `bot` runs every command from a folder outside this repository, including
 * `bot init x --no-git -y` (with its install) and `printf … | bot dev --offline` in the new
 * project, as the README's first command does.
 *
 * Needs a build (`npm run build`; `npm test` does it) and the npm registry.
 */
import {spawn, spawnSync} from 'node:child_process'
import {mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {delimiter, dirname, join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {PROJECT_ROOT} from '../support/paths.js'

const work = realpathSync(mkdtempSync(join(tmpdir(), 'bot-pack-')))
const prefix = join(work, 'prefix')
const bot = join(prefix, 'bin', 'bot')
const version = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {version: string}).version

/** The environment of a user's shell: nothing of this test run (npm_*, BOT_*, vitest), the install first on PATH. */
function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (
      !/^(npm_|BOT_|WEBHOOK_|TELEGRAM_|NODE_CHANNEL_|VITEST|NODE_ENV$|NODE_OPTIONS$|NODE_PATH$|PORT$|INIT_CWD$|FORCE_COLOR$)/i.test(
        k,
      )
    )
      env[k] = v
  }
  env.PATH = [join(prefix, 'bin'), dirname(process.execPath), process.env.PATH ?? ''].join(delimiter)
  env.NO_COLOR = '1'
  env.HOME = join(work, 'home')
  env.XDG_CACHE_HOME = join(work, 'home', '.cache')
  env.XDG_STATE_HOME = join(work, 'home', '.state')
  // Keep the user's npm cache (a fresh HOME would otherwise download everything again).
  env.npm_config_cache = process.env.npm_config_cache ?? join(process.env.HOME ?? work, '.npm')
  // …and the user's npm settings (a registry mirror, a proxy).
  env.npm_config_userconfig = process.env.npm_config_userconfig ?? join(process.env.HOME ?? work, '.npmrc')
  return {...env, ...extra}
}

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

function run(
  command: string,
  args: string[],
  options: {cwd?: string; input?: string; timeoutMs?: number; env?: Record<string, string>} = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? work,
      env: userEnv(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.stdin.on('error', () => {})
    child.stdin.end(options.input ?? '')
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(
        new Error(
          `${command} ${args.join(' ')} took over ${options.timeoutMs ?? 60_000} ms\nstdout: ${stdout}\nstderr: ${stderr}`,
        ),
      )
    }, options.timeoutMs ?? 60_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({code, stdout, stderr})
    })
  })
}

let tarball = ''
let contents: string[] = []

beforeAll(async () => {
  mkdirSync(join(work, 'home'), {recursive: true})
  // --ignore-scripts: the build is there already (prepack would rebuild dist/ under other tests' feet).
  const pack = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
    cwd: PROJECT_ROOT,
    timeoutMs: 120_000,
  })
  expect(pack.code, pack.stderr).toBe(0)
  const [info] = JSON.parse(pack.stdout) as Array<{filename: string; files: Array<{path: string}>}>
  tarball = join(work, info.filename)
  contents = info.files.map((f) => f.path)
  const install = await run('npm', ['install', '--global', '--prefix', prefix, '--no-audit', '--no-fund', tarball], {
    timeoutMs: 300_000,
  })
  expect(install.code, install.stderr).toBe(0)
}, 420_000)

afterAll(() => {
  spawnSync('rm', ['-rf', work])
})

describe('npm pack', () => {
  it('is named bot-cli and ships what bot needs and nothing else', () => {
    expect(tarball).toMatch(new RegExp(`bot-cli-${version.replaceAll('.', '\\.')}\\.tgz$`))
    for (const f of [
      'package.json',
      'README.md',
      'bin/run.js',
      'oclif.manifest.json',
      'dist/index.js',
      'dist/commands/dev.js',
      'dist/cli/fast/start.js',
      'dist/hooks/not-found.js',
      'dist/emulator/index.js',
      // bot trigger's fixtures, read by the built CLI next to dist/control/fixtures.js
      'dist/control/fixtures/payment.json',
      'dist/control/fixtures/reaction.json',
      'dist/control/fixtures/member-joined.json',
      'templates/_shared/gitignore',
      'templates/_shared/tsconfig.json',
      'templates/grammy/package.json',
      'templates/gramio/src/main.ts',
      'templates/telegraf/src/bot.ts',
      'docs/emulator.md', // `bot emulator` points to it
    ]) {
      expect(contents).toContain(f)
    }
    const top = new Set(contents.map((f) => f.split('/')[0]))
    expect([...top].sort()).toEqual([
      'LICENSE',
      'README.md',
      'bin',
      'dist',
      'docs',
      'oclif.manifest.json',
      'package.json',
      'templates',
    ])
    // No tests of bot itself (the templates' own tests are template files: they ship).
    const ours = contents.filter((f) => !f.startsWith('templates/'))
    expect(
      ours.filter((f) => /(^|\/)(test|tests|__tests__|node_modules)\/|\.test\.[jt]s$|^src\/|^bin\/dev\.js$/.test(f)),
    ).toEqual([])
    expect(contents.filter((f) => f.includes('node_modules/'))).toEqual([])
  })

  it('builds before packing (prepack)', () => {
    const pjson = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>
    }
    expect(pjson.scripts.prepack).toBe('npm run build')
  })
})

describe('the installed bot', () => {
  it('answers --version, help and -h on every command', async () => {
    const v = await run(bot, ['--version'])
    expect(v.code).toBe(0)
    expect(v.stdout).toMatch(new RegExp(`^bot-cli/${version.replaceAll('.', '\\.')} `))
    const help = await run(bot, ['--help'])
    expect(help.code).toBe(0)
    for (const c of ['autocomplete', 'dev', 'doctor', 'emulator', 'help', 'init'])
      expect(help.stdout).toMatch(new RegExp(`^  ${c} `, 'm'))
    // The fast path and oclif agree in the installed layout too.
    const oclifHelp = await run(bot, ['--help'], {env: {BOT_NO_FAST_START: '1'}})
    expect(oclifHelp.stdout).toBe(help.stdout)
    const results = await Promise.all(
      ['dev', 'doctor', 'emulator', 'init', 'webhook set', 'webhook info', 'webhook delete', 'autocomplete'].map(
        async (c) => [c, await run(bot, [...c.split(' '), '-h'])] as const,
      ),
    )
    for (const [c, r] of results) {
      expect(r.code, `${c}: ${r.stderr}`).toBe(0)
      expect(r.stdout).toContain(`$ bot ${c}`)
    }
    // bot trigger's fixtures are found in the installed package.
    const list = await run(bot, ['trigger', '--list'])
    expect(list.code, list.stderr).toBe(0)
    expect(list.stdout).toMatch(/^bot trigger payment +A user pays/m)
    expect(list.stdout).toContain(`Fixtures: ${realpathSync(prefix)}`)
    const payment = await run(bot, ['trigger', 'payment', '--help'])
    expect(payment.stdout).toContain('pre_checkout_query.currency = "{{invoice.currency}}"')
    const devHelp = await run(bot, ['help', 'dev'])
    expect(devHelp.stdout).toContain('--offline')
    const typo = await run(bot, ['dvv'])
    expect(typo.code).toBe(2)
    expect(typo.stderr).toContain('Did you mean dev?')
  }, 120_000)

  it('runs bot emulator, bot webhook and bot doctor against it', async () => {
    const emulator = spawn(bot, ['emulator', '--port', '0', '--json'], {
      cwd: work,
      env: userEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    try {
      const started = await new Promise<{apiRoot: string; token: string}>((resolve, reject) => {
        let out = ''
        const timer = setTimeout(() => reject(new Error(`bot emulator did not start: ${out}`)), 60_000)
        emulator.stdout.on('data', (d: Buffer) => {
          out += d.toString()
          const line = out.split('\n').find((l) => l.startsWith('{'))
          if (line && out.includes('\n')) {
            clearTimeout(timer)
            resolve(JSON.parse(line) as {apiRoot: string; token: string})
          }
        })
        emulator.on('exit', (code) => reject(new Error(`bot emulator exited ${code}: ${out}`)))
      })
      const env = {BOT_API_ROOT: started.apiRoot, BOT_TOKEN: started.token}
      const set = await run(bot, ['webhook', 'set', 'http://127.0.0.1:9/hook', '--yes'], {env})
      expect(set.code, set.stderr).toBe(0)
      const info = await run(bot, ['webhook', 'info', '--json'], {env})
      expect(info.code, info.stderr).toBe(0)
      expect(info.stdout).toContain('127.0.0.1:9')
      const del = await run(bot, ['webhook', 'delete'], {env})
      expect(del.code, del.stderr).toBe(0)
      const doctor = await run(bot, ['doctor', '--only', 'token,delivery', '--json'], {env})
      expect(doctor.code, doctor.stderr).toBe(0)
      const report = JSON.parse(doctor.stdout) as {ok: boolean; checks: Array<{id: string; status: string}>}
      expect(report.checks.map((c) => c.id)).toEqual(['token', 'delivery'])
      expect(report.ok).toBe(true)
    } finally {
      emulator.kill('SIGINT')
    }
  }, 120_000)

  it('installs as a devDependency from the tarball, and bot-cli/emulator imports (examples/bot-tests)', async () => {
    const project = join(work, 'user-project')
    mkdirSync(project)
    writeFileSync(join(project, 'package.json'), JSON.stringify({name: 'user-project', private: true, type: 'module'}))
    const install = await run('npm', ['install', '--save-dev', '--no-audit', '--no-fund', tarball], {
      cwd: project,
      timeoutMs: 300_000,
    })
    expect(install.code, install.stderr).toBe(0)
    const script = [
      `import {BotApiEmulator} from 'bot-cli/emulator'`,
      `const emu = await BotApiEmulator.start()`,
      `const {token} = emu.createBot({username: 'my_test_bot'})`,
      `const me = await (await fetch(emu.apiRoot + '/bot' + token + '/getMe')).json()`,
      `console.log(me.result.username)`,
      `await emu.stop()`,
    ].join('\n')
    writeFileSync(join(project, 'check.mjs'), script)
    const r = await run(process.execPath, ['check.mjs'], {cwd: project})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.trim()).toBe('my_test_bot')
    const local = await run(join(project, 'node_modules', '.bin', 'bot'), ['--version'], {cwd: project})
    expect(local.stdout).toMatch(/^bot-cli\//)
  }, 320_000)

  it('bot init x --no-git -y installs a project, and bot dev --offline runs it (piped)', async () => {
    const init = await run(bot, ['init', 'x', '--no-git', '-y'], {timeoutMs: 300_000})
    expect(init.code, `${init.stdout}\n${init.stderr}`).toBe(0)
    const project = join(work, 'x')
    const pjson = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as {
      name: string
      devDependencies?: Record<string, string>
    }
    expect(pjson.name).toBe('x')
    // bot-cli is not on npm yet: the project points at the installed copy.
    if (pjson.devDependencies?.['bot-cli'])
      expect(pjson.devDependencies['bot-cli']).toBe(`file:${join(prefix, 'lib', 'node_modules', 'bot-cli')}`)
    const dev = await run(bot, ['dev', '--offline'], {cwd: project, input: '/start\nhello\n', timeoutMs: 120_000})
    expect(dev.code, dev.stderr).toBe(0)
    expect(dev.stdout).toContain('you › hello')
    expect(dev.stdout).toMatch(/bot › .*hello/)
  }, 480_000)
})

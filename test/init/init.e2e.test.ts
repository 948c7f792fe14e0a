/**
 * `bot init` as a real process (`node bin/run.js init …`): files, substitutions, refusals,
 * the token in .env only, --json. Needs a build (npm run build).
 */
import {execFileSync} from 'node:child_process'
import {existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {join, relative} from 'node:path'

import {describe, expect, it} from 'vitest'

import {parseJsonOutput} from '../support/cli.js'
import {TEMPLATES, init, tempDir} from './support.js'

// A well-formed token; bot init never calls the API, so no emulator is needed here.
const TOKEN = '7000000001:AAH3x9Yq_example-Secret_part_0123456789'
const SECRET_PART = TOKEN.split(':')[1]

function filesUnder(dir: string): string[] {
  const out: string[] = []
  const walk = (d: string) => {
    for (const e of readdirSync(d, {withFileTypes: true})) {
      if (e.name === '.git') continue
      const full = join(d, e.name)
      if (e.isDirectory()) walk(full)
      else out.push(relative(dir, full))
    }
  }
  walk(dir)
  return out.sort()
}

const COMMON_FILES = [
  '.dockerignore',
  '.env.example',
  '.github/workflows/test.yml',
  '.gitignore',
  'Dockerfile',
  'README.md',
  'app/index.html',
  'package.json',
  'src/bot.ts',
  'src/config.ts',
  'src/dice.ts',
  'src/http.ts',
  'src/lifecycle.ts',
  'src/main.ts',
  'src/shop.ts',
  'src/storage-error.ts',
  'src/storage.ts',
  'src/tasks.ts',
  'src/web-app.ts',
  'test/bot.test.ts',
  'test/buy.chat.yml',
  'test/start.chat.yml',
  'tsconfig.json',
]
// GramIO's session plugin is not on the registry: the template has its own (src/session.ts).
const OWN_FILES: Record<string, string[]> = {grammy: [], gramio: ['src/session.ts'], telegraf: []}
const expectedFiles = (template: string) => [...COMMON_FILES, ...OWN_FILES[template]].sort()
/** The default template's files. */
const EXPECTED_FILES = expectedFiles('grammy')

const FRAMEWORK_DEP = {
  grammy: ['grammy', '1.46.0'],
  gramio: ['gramio', '0.10.0'],
  telegraf: ['telegraf', '4.16.3'],
} as const

describe('bot init: files and substitutions', () => {
  for (const template of TEMPLATES) {
    it(`creates a ${template} project with its name substituted`, async () => {
      const root = tempDir()
      const r = await init([join(root, 'x'), '--template', template, '--no-install', '--no-git', '--yes'])
      expect(r.code, r.stderr).toBe(0)
      const dir = join(root, 'x')
      const files = expectedFiles(template)
      expect(filesUnder(dir)).toEqual(files)

      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
      expect(pkg.name).toBe('x')
      expect(pkg.type).toBe('module')
      expect(pkg.scripts).toMatchObject({
        dev: 'bot dev',
        'dev:bot': 'node --import tsx src/main.ts',
        start: 'node dist/main.js',
        build: 'tsc',
        typecheck: 'tsc --noEmit',
      })
      const [dep, version] = FRAMEWORK_DEP[template]
      expect(pkg.dependencies[dep]).toBe(version)
      // Exact pins only: a range could install a version the template was never run with.
      // bot-cli is this CLI itself: `file:` its folder until it is published.
      const {'bot-cli': cli, ...pinned} = {...pkg.dependencies, ...pkg.devDependencies} as Record<string, string>
      for (const v of Object.values(pinned)) expect(v).toMatch(/^\d+\.\d+\.\d+(-[\w.]+)?$/)
      expect(cli).toMatch(/^(file:\/.+|\d+\.\d+\.\d+)$/)

      const readme = readFileSync(join(dir, 'README.md'), 'utf8')
      expect(readme.startsWith('# x\n')).toBe(true)
      expect(readme).toContain('npm install')
      expect(readme).toContain('bot webhook set https://')
      for (const f of files) expect(readFileSync(join(dir, f), 'utf8')).not.toMatch(/\{\{\s*\w+\s*\}\}/)

      expect(readFileSync(join(dir, '.gitignore'), 'utf8')).toMatch(/^\.env$/m)
      expect(existsSync(join(dir, '.env'))).toBe(false)
      expect(existsSync(join(dir, '.git'))).toBe(false)
      expect(r.stdout).toContain(`✓ Created`)
      expect(r.stdout).toMatch(/cd .*x/)
      expect(r.stdout).toMatch(/^\s+bot dev\s/m)
      expect(r.stdout).toMatch(/^\s+bot dev --offline\s/m)
    })
  }

  it('defaults to grammy and to the package manager that ran it', async () => {
    const root = tempDir()
    const r = await init(
      ['my-bot', '--no-install', '--no-git', '--yes'],
      {npm_config_user_agent: 'pnpm/9.12.0 npm/? node/v20.20.2 linux x64'},
      root,
    )
    expect(r.code, r.stderr).toBe(0)
    const pkg = JSON.parse(readFileSync(join(root, 'my-bot', 'package.json'), 'utf8'))
    expect(pkg.dependencies.grammy).toBe('1.46.0')
    expect(r.stdout).toMatch(/^\s+cd my-bot$/m)
    expect(r.stdout).toMatch(/^\s+pnpm install\s/m)
    expect(readFileSync(join(root, 'my-bot', 'README.md'), 'utf8')).toContain('pnpm install')
  })

  it('bot init . uses the current folder and its name', async () => {
    const cwd = join(tempDir(), 'here-bot')
    mkdirSync(cwd)
    const r = await init(['.', '--no-install', '--no-git', '--yes', '--json'], {}, cwd)
    expect(r.code, r.stderr).toBe(0)
    const out = parseJsonOutput<{dir: string; name: string; next: string[]}>(r)
    expect(out).toMatchObject({dir: cwd, name: 'here-bot'})
    expect(out.next[0]).toBe('npm install') // no `cd` step
    expect(filesUnder(cwd)).toEqual(EXPECTED_FILES)
  })

  it('--json prints {dir, template, installed, git, next} and nothing else', async () => {
    const root = tempDir()
    const r = await init([join(root, 'jbot'), '-t', 'telegraf', '--no-install', '--no-git', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const out = parseJsonOutput<Record<string, unknown>>(r)
    expect(out).toMatchObject({
      dir: join(root, 'jbot'),
      template: 'telegraf',
      installed: false,
      git: false,
      name: 'jbot',
    })
    expect(out.next).toEqual([
      `cd ${join(root, 'jbot')}`,
      'npm install',
      'cp .env.example .env',
      'bot dev',
      'bot dev --offline',
    ])
  })

  it('creates a git repository with an initial commit that leaves .env out', async () => {
    const root = tempDir()
    const gitEnv = {
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@example.invalid',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@example.invalid',
    }
    const r = await init([join(root, 'g'), '--no-install', '--yes', '--token', TOKEN, '--json'], gitEnv)
    expect(r.code, r.stderr).toBe(0)
    expect(parseJsonOutput<{git: boolean}>(r).git).toBe(true)
    const tracked = execFileSync('git', ['ls-files'], {cwd: join(root, 'g'), encoding: 'utf8'})
      .trim()
      .split('\n')
      .sort()
    expect(tracked).toEqual(EXPECTED_FILES)
    expect(tracked).not.toContain('.env')
  })
})

describe('bot init: refusals', () => {
  /** Exit 2, one "✗ …" line and a fix, nothing on stdout. */
  const expectUsage = (r: {code: number | null; stdout: string; stderr: string}, message: RegExp) => {
    expect(r.code, r.stderr).toBe(2)
    const lines = r.stderr.trim().split('\n')
    expect(lines, r.stderr).toHaveLength(2)
    expect(lines[0]).toMatch(/^✗ /)
    expect(lines[0]).toMatch(message)
    expect(r.stdout).toBe('')
  }

  it("'' as the folder: exit 2, nothing written in the current folder", async () => {
    const cwd = tempDir()
    const r = await init(['', '--no-install', '--no-git', '--yes'], {}, cwd)
    expectUsage(r, /The project folder is empty/)
    expect(readdirSync(cwd)).toEqual([])
  })

  it('a folder through a file in the path (somefile/sub): exit 2 naming the file, nothing written', async () => {
    const root = tempDir()
    writeFileSync(join(root, 'somefile'), 'mine')
    const r = await init(['somefile/sub', '--no-install', '--no-git', '--yes'], {}, root)
    expectUsage(r, /Cannot create somefile\/sub: somefile is a file, not a folder/)
    expect(readdirSync(root)).toEqual(['somefile'])
    expect(readFileSync(join(root, 'somefile'), 'utf8')).toBe('mine')
  })

  it('a folder in /proc: exit 2 before any write', async () => {
    const r = await init(['/proc/bot-init-test-x', '--no-install', '--no-git', '--yes'])
    expectUsage(r, /Cannot create \/proc\/bot-init-test-x: \/proc is on proc/)
    expect(existsSync('/proc/bot-init-test-x')).toBe(false)
  })

  it('--force never writes through a symlinked folder that leads out of DIR (exit 2 naming the link, nothing written)', async () => {
    const root = tempDir()
    const dir = join(root, 'project')
    const outside = join(root, 'outside')
    mkdirSync(dir)
    mkdirSync(outside)
    writeFileSync(join(dir, 'notes.txt'), 'mine')
    symlinkSync(outside, join(dir, 'src'))
    const r = await init(['project', '--force', '--no-install', '--no-git', '--yes'], {}, root)
    expectUsage(r, /project\/src is a symbolic link to outside, outside project: bot init does not write through it/)
    expect(readdirSync(outside)).toEqual([])
    expect(readdirSync(dir).sort()).toEqual(['notes.txt', 'src'])
  })

  it('a dangling symlinked folder is refused too; a link that stays inside DIR is fine', async () => {
    const root = tempDir()
    const dangling = join(root, 'dangling')
    mkdirSync(dangling)
    symlinkSync(join(root, 'nowhere'), join(dangling, 'src'))
    const r = await init([dangling, '--force', '--no-install', '--no-git', '--yes'])
    expectUsage(r, /src is a symbolic link to a missing path/)
    expect(existsSync(join(root, 'nowhere'))).toBe(false)

    symlinkSync(join(root, 'gone'), join(root, 'link'))
    expectUsage(
      await init([join(root, 'link'), '--no-install', '--no-git', '--yes']),
      /link is a symbolic link to a missing path/,
    )
    expect(existsSync(join(root, 'gone'))).toBe(false)

    const inner = join(root, 'inner')
    mkdirSync(join(inner, 'code'), {recursive: true})
    symlinkSync(join(inner, 'code'), join(inner, 'src'))
    const ok = await init([inner, '--force', '--no-install', '--no-git', '--yes'])
    expect(ok.code, ok.stderr).toBe(0)
    expect(existsSync(join(inner, 'code', 'bot.ts'))).toBe(true)
  })

  it('refuses a non-empty folder without --force and writes nothing', async () => {
    const root = tempDir()
    const dir = join(root, 'busy')
    mkdirSync(dir)
    writeFileSync(join(dir, 'notes.txt'), 'mine')
    const r = await init([dir, '--no-install', '--no-git', '--yes'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('is not empty')
    expect(r.stderr).toContain('notes.txt')
    expect(r.stderr).toContain('--force')
    expect(readdirSync(dir)).toEqual(['notes.txt'])
  })

  it('with --force adds the template next to other files', async () => {
    const root = tempDir()
    const dir = join(root, 'busy')
    mkdirSync(dir)
    writeFileSync(join(dir, 'notes.txt'), 'mine')
    const r = await init([dir, '--force', '--no-install', '--no-git', '--yes'])
    expect(r.code, r.stderr).toBe(0)
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('mine')
    expect(filesUnder(dir)).toEqual([...EXPECTED_FILES, 'notes.txt'].sort())
  })

  it('never overwrites an existing file, even with --force, and then writes nothing at all', async () => {
    const root = tempDir()
    const dir = join(root, 'busy')
    mkdirSync(join(dir, 'src'), {recursive: true})
    writeFileSync(join(dir, 'package.json'), '{"name":"mine"}')
    writeFileSync(join(dir, 'src', 'main.ts'), '// mine')
    const r = await init([dir, '--force', '--no-install', '--no-git', '--yes'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('package.json')
    expect(r.stderr).toContain('src/main.ts')
    expect(r.stderr).toContain('never overwrites')
    expect(readFileSync(join(dir, 'package.json'), 'utf8')).toBe('{"name":"mine"}')
    expect(readFileSync(join(dir, 'src', 'main.ts'), 'utf8')).toBe('// mine')
    expect(filesUnder(dir)).toEqual(['package.json', 'src/main.ts'])
  })

  it('an invalid package name (from the folder) exits 2 with nothing written', async () => {
    const root = tempDir()
    for (const bad of ['My Bot', '.hidden', 'http', 'a/b/c'.replace(/\//g, '\\')]) {
      const r = await init([join(root, bad), '--no-install', '--no-git', '--yes'])
      expect(r.code, `${bad}: ${r.stderr}`).toBe(2)
      expect(r.stderr).toMatch(/is not a valid package name/)
      expect(r.stderr).toMatch(/--name/)
    }
    expect(readdirSync(root)).toEqual([])
  })

  it('an invalid --name exits 2 with nothing written; a valid --name is used', async () => {
    const root = tempDir()
    const bad = await init([join(root, 'ok'), '--name', 'Upper', '--no-install', '--no-git', '--yes'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('uppercase')
    expect(existsSync(join(root, 'ok'))).toBe(false)
    const good = await init([join(root, 'My Bot'), '--name', '@me/my-bot', '--no-install', '--no-git', '--yes'])
    expect(good.code, good.stderr).toBe(0)
    expect(JSON.parse(readFileSync(join(root, 'My Bot', 'package.json'), 'utf8')).name).toBe('@me/my-bot')
    expect(good.stdout).toContain(`cd '${join(root, 'My Bot')}'`)
  })

  it('an unknown template exits 2', async () => {
    const root = tempDir()
    const r = await init([join(root, 'x'), '--template', 'botkit', '--no-install', '--no-git', '--yes'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/grammy/)
    expect(existsSync(join(root, 'x'))).toBe(false)
  })
})

describe('bot init: the token', () => {
  it('--token writes .env with mode 0600, and the token appears in no output', async () => {
    const root = tempDir()
    for (const json of [false, true]) {
      const dir = join(root, json ? 'tj' : 't')
      const r = await init([dir, '--token', TOKEN, '--no-install', '--no-git', '--yes', ...(json ? ['--json'] : [])])
      expect(r.code, r.stderr).toBe(0)
      expect(readFileSync(join(dir, '.env'), 'utf8')).toBe(`BOT_TOKEN=${TOKEN}\n`)
      expect(statSync(join(dir, '.env')).mode & 0o777).toBe(0o600)
      for (const text of [r.stdout, r.stderr]) {
        expect(text).not.toContain(TOKEN)
        expect(text).not.toContain(SECRET_PART)
      }
      // The token goes to .env only: no other file holds it.
      for (const f of EXPECTED_FILES) expect(readFileSync(join(dir, f), 'utf8')).not.toContain(SECRET_PART)
      if (!json) expect(r.stdout).not.toContain('cp .env.example .env')
    }
  })

  it('a malformed --token exits 2, is not echoed, and nothing is written', async () => {
    const root = tempDir()
    const bad = 'bot7000000001:AAH3x9Yq_example-Secret_part_0123456789'
    const r = await init([join(root, 'x'), '--token', bad, '--no-install', '--no-git', '--yes'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('does not look like a bot token')
    expect(r.stdout + r.stderr).not.toContain(SECRET_PART)
    expect(existsSync(join(root, 'x'))).toBe(false)
  })
})

describe('bot init: a failed install', () => {
  it('keeps the files and says how to retry', async () => {
    const root = tempDir()
    // A real npm that can reach nothing: offline mode with an empty cache fails with ENOTCACHED.
    const env = {
      npm_config_offline: 'true',
      npm_config_cache: join(root, 'empty-cache'),
      npm_config_registry: 'http://127.0.0.1:9/',
    }
    const r = await init([join(root, 'x'), '--pm', 'npm', '--no-git', '--yes'], env)
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('Could not install dependencies')
    expect(r.stderr).toContain(`cd ${join(root, 'x')} && npm install`)
    expect(filesUnder(join(root, 'x')).filter((f) => !f.startsWith('node_modules'))).toEqual(
      expect.arrayContaining(EXPECTED_FILES),
    )
    expect(r.stdout).toMatch(/^\s+npm install\s/m)
  })
})

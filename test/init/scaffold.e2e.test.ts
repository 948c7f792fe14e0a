/** The pure parts of src/scaffold: names, package managers, substitution, the all-or-nothing write. */
import {execFileSync} from 'node:child_process'
import {existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {planCopy, substitute, writePlan} from '../../src/scaffold/copy.js'
import {
  detectPackageManager,
  listTemplates,
  nextSteps,
  packageNameProblem,
  planProject,
  suggestPackageName,
  TEMPLATE_NAMES,
} from '../../src/scaffold/index.js'
import {templateLayers} from '../../src/scaffold/templates.js'
import {tempDir} from './support.js'

describe('package names', () => {
  it('accepts what npm accepts for a new package', () => {
    for (const ok of ['my-bot', 'bot2', 'a.b', 'x_y', '@me/my-bot', 'tilde~ok'])
      expect(packageNameProblem(ok), ok).toBeUndefined()
  })
  it('names the rule a bad name breaks', () => {
    expect(packageNameProblem('')).toBe('it is empty')
    expect(packageNameProblem('My-Bot')).toMatch(/uppercase/)
    expect(packageNameProblem('.bot')).toMatch(/dot/)
    expect(packageNameProblem('_bot')).toMatch(/underscore/)
    expect(packageNameProblem('my bot')).toMatch(/only contain/)
    expect(packageNameProblem('bot!')).toMatch(/only contain/)
    expect(packageNameProblem('fs')).toMatch(/reserved/)
    expect(packageNameProblem('node_modules')).toMatch(/reserved/)
    expect(packageNameProblem('@scope')).toMatch(/@scope\/name/)
    expect(packageNameProblem('x'.repeat(215))).toMatch(/214/)
  })
  it('suggests a valid name', () => {
    for (const raw of ['My Bot!', '.hidden', '  Spaces  ', 'http', '***']) {
      const s = suggestPackageName(raw)
      expect(packageNameProblem(s), `${raw} → ${s}`).toBeUndefined()
    }
    expect(suggestPackageName('My Bot!')).toBe('my-bot')
  })
})

describe('package manager detection', () => {
  it('reads npm_config_user_agent, npm otherwise', () => {
    expect(detectPackageManager('pnpm/9.1.0 npm/? node/v20.11.0 linux x64')).toBe('pnpm')
    expect(detectPackageManager('yarn/1.22.22 npm/? node/v20.11.0 darwin arm64')).toBe('yarn')
    expect(detectPackageManager('bun/1.1.0 npm/? node/v20 linux x64')).toBe('bun')
    expect(detectPackageManager('npm/10.8.0 node/v20.11.0 linux x64')).toBe('npm')
    expect(detectPackageManager('deno/2.0 npm/?')).toBe('npm')
    expect(detectPackageManager(undefined)).toBe('npm')
  })
})

describe('substitution', () => {
  it('replaces the given keys only and leaves other braces alone', () => {
    expect(substitute('# {{name}} / {{ name }} / {{other}} / {x}', {name: 'bot'})).toBe('# bot / bot / {{other}} / {x}')
  })
})

describe('templates on disk', () => {
  it('all three exist', () => {
    expect(listTemplates().map((t) => t.name)).toEqual(TEMPLATE_NAMES)
  })
})

describe('planProject and the copy', () => {
  it('plans without writing anything', async () => {
    const root = tempDir()
    const plan = await planProject({dir: 'p', cwd: root, template: 'grammy', pm: 'npm'})
    expect(plan.displayDir).toBe('p')
    expect(plan.copy.files.map((f) => f.path)).toContain('.gitignore')
    expect(readdirSync(root)).toEqual([])
  })

  it('counts .git alone as empty', async () => {
    const root = tempDir()
    mkdirSync(join(root, 'p', '.git'), {recursive: true})
    await expect(planProject({dir: 'p', cwd: root, template: 'gramio', pm: 'npm'})).resolves.toBeTruthy()
  })

  it('refuses a path that is a file', async () => {
    const root = tempDir()
    writeFileSync(join(root, 'p'), 'x')
    await expect(planProject({dir: 'p', cwd: root, template: 'grammy', pm: 'npm'})).rejects.toThrow(/not a folder/)
  })

  it('a file that appears between plan and write fails the write, which removes what it wrote', async () => {
    const root = tempDir()
    const target = join(root, 'p')
    const plan = await planCopy(templateLayers('telegraf', join(process.cwd(), 'templates')), target, {name: 'p'})
    expect(plan.conflicts).toEqual([])
    // Someone else creates a file the plan will write late (src/main.ts comes after package.json etc.).
    mkdirSync(join(target, 'src'), {recursive: true})
    writeFileSync(join(target, 'src', 'main.ts'), 'theirs')
    await expect(writePlan(plan)).rejects.toThrow(/EEXIST/)
    expect(readFileSync(join(target, 'src', 'main.ts'), 'utf8')).toBe('theirs')
    // Only what was there before the write is left.
    expect(readdirSync(target)).toEqual(['src'])
    expect(readdirSync(join(target, 'src'))).toEqual(['main.ts'])
  })

  it('creates a private file with exactly mode 0600 whatever the umask', async () => {
    const root = tempDir()
    const plan = await planCopy(
      templateLayers('grammy', join(process.cwd(), 'templates')),
      join(root, 'p'),
      {name: 'p'},
      [{path: '.env', content: Buffer.from('BOT_TOKEN=x\n'), mode: 0o600}],
    )
    const old = process.umask(0o000)
    try {
      await writePlan(plan)
    } finally {
      process.umask(old)
    }
    expect(statSync(join(root, 'p', '.env')).mode & 0o777).toBe(0o600)
    expect(existsSync(join(root, 'p', 'gitignore'))).toBe(false)
    expect(existsSync(join(root, 'p', '.gitignore'))).toBe(true)
  })

  it('next steps', () => {
    expect(nextSteps({displayDir: '.', pm: 'yarn', hasToken: true}, false).map((s) => s.command)).toEqual([
      'yarn install',
      'bot dev',
      'bot dev --offline',
    ])
    expect(nextSteps({displayDir: 'a b', pm: 'npm', hasToken: false}, true).map((s) => s.command)).toEqual([
      "cd 'a b'",
      'cp .env.example .env',
      'bot dev',
      'bot dev --offline',
    ])
  })
})

describe('the templates as shipped', () => {
  it('are the shared files plus their own: each project gets both, and no template repeats a shared file', async () => {
    const root = join(process.cwd(), 'templates')
    const shared = [
      'src/config.ts',
      'src/dice.ts',
      'src/http.ts',
      'src/lifecycle.ts',
      'src/shop.ts',
      'tsconfig.json',
      '.gitignore',
      '.env.example',
    ]
    for (const t of TEMPLATE_NAMES) {
      const plan = await planCopy(templateLayers(t, root), join(tempDir(), 'p'), {name: 'p'})
      const paths = plan.files.map((f) => f.path)
      for (const f of [...shared, 'package.json', 'README.md', 'src/bot.ts', 'src/main.ts'])
        expect(paths, `${t}: ${f}`).toContain(f)
      // A template may override a shared file on purpose, but never with a copy of it.
      for (const f of [
        'src/config.ts',
        'src/dice.ts',
        'src/http.ts',
        'src/lifecycle.ts',
        'tsconfig.json',
        'gitignore',
        '.env.example',
      ]) {
        const own = join(root, t, f)
        if (existsSync(own))
          expect(readFileSync(own, 'utf8'), `${t}/${f}`).not.toBe(readFileSync(join(root, '_shared', f), 'utf8'))
      }
    }
  })

  it('are packed by npm with gitignore and .env.example (no file lost to npm ignore rules)', () => {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: process.cwd(),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    const packed = new Set((JSON.parse(out) as Array<{files: Array<{path: string}>}>)[0].files.map((f) => f.path))
    for (const f of [
      'gitignore',
      '.env.example',
      'tsconfig.json',
      'src/http.ts',
      '.github/workflows/test.yml',
      'test/start.chat.yml',
      'test/buy.chat.yml',
    ])
      expect(packed.has(`templates/_shared/${f}`), `_shared/${f}`).toBe(true)
    for (const t of TEMPLATE_NAMES)
      for (const f of ['package.json', 'README.md', 'src/bot.ts', 'src/main.ts'])
        expect(packed.has(`templates/${t}/${f}`), `${t}/${f}`).toBe(true)
  })
})

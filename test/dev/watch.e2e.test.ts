import {spawnSync} from 'node:child_process'
import {mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {isIgnoredPath, restartsFor, watchProject} from '../../src/dev/watch.js'
import {devWorld, startDev, type DevWorld} from './helpers.js'
import {waitFor} from '../support/wait.js'

/** What editors write beside a file they save (src/main.ts here), in src/ and at the top. */
const EDITOR_TEMP_FILES = [
  'src/.main.ts.swp', // vim swap
  'src/.main.ts.swo',
  'src/.main.ts.swx',
  'src/4913', // vim's "can I write here" probe
  'src/main.ts~', // vim/emacs/gedit backup
  'src/#main.ts#', // emacs autosave
  'src/.#main.ts', // emacs lock
  'src/main.ts___jb_tmp___', // JetBrains safe write
  'src/main.ts___jb_old___',
  'src/main.ts.tmp', // VS Code and others: write, then rename
  'src/main.ts.kate-swp',
  '.DS_Store',
  'src/sedH4DArM', // sed -i
]

describe('watch', () => {
  it('ignores node_modules, dist, .git and editor temp files', () => {
    for (const p of [
      'node_modules/x/index.js',
      'dist/main.js',
      '.git/HEAD',
      'packages/a/node_modules/b.js',
      'src/.#main.ts',
      'src/main.ts~',
      'src/.main.ts.swp',
    ])
      expect(isIgnoredPath(p), p).toBe(true)
    for (const p of ['src/main.ts', 'bot.mjs', '.env', 'src/distance.ts', 'gitlab.ts'])
      expect(isIgnoredPath(p), p).toBe(false)
    for (const p of EDITOR_TEMP_FILES) expect(isIgnoredPath(p), p).toBe(true)
    for (const p of [
      'src/temp.ts',
      'src/swap.ts',
      'src/jb.ts',
      'src/4913.ts',
      'src/#channel.ts',
      'src/main.swift',
      'README.md',
      'src/sedative.ts',
      'src/sed',
    ])
      expect(isIgnoredPath(p), p).toBe(false)
  })

  it('editor temp files alone trigger nothing; a save names only the source file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bot-dev-watch-'))
    mkdirSync(join(dir, 'src'))
    writeFileSync(join(dir, 'src', 'main.ts'), '0')
    const bursts: string[][] = []
    const watcher = watchProject({cwd: dir, debounceMs: 100, onChange: (files) => bursts.push(files.sort())})
    await watcher.ready
    // The temp files first, each created, changed and (most) removed as editors do...
    for (const f of EDITOR_TEMP_FILES) writeFileSync(join(dir, f), 'x')
    for (const f of EDITOR_TEMP_FILES) writeFileSync(join(dir, f), 'xy')
    for (const f of EDITOR_TEMP_FILES.slice(0, 6)) rmSync(join(dir, f))
    // ...then a vim-style save of src/main.ts (backup by rename, write anew, drop the backup),
    // a JetBrains-style one (temp file renamed over it), and a new source file as the sentinel.
    renameSync(join(dir, 'src', 'main.ts'), join(dir, 'src', 'main.ts~'))
    writeFileSync(join(dir, 'src', 'main.ts'), '1')
    rmSync(join(dir, 'src', 'main.ts~'))
    writeFileSync(join(dir, 'src', 'main.ts___jb_tmp___'), '2')
    renameSync(join(dir, 'src', 'main.ts___jb_tmp___'), join(dir, 'src', 'main.ts'))
    // sed -i writes a sedXXXXXX file and renames it over the one it edits.
    const sed = spawnSync('sed', ['-i', 's/2/3/', join(dir, 'src', 'main.ts')])
    expect(sed.status, String(sed.stderr)).toBe(0)
    writeFileSync(join(dir, 'src', 'sentinel.ts'), '1')
    await waitFor(() => bursts.flat().includes('src/sentinel.ts'), {what: 'a burst naming src/sentinel.ts'})
    await watcher.close()
    // Whatever the bursts (one or several), only the two source files were ever named.
    expect([...new Set(bursts.flat())].sort()).toEqual(['src/main.ts', 'src/sentinel.ts'])
  })

  it('reports a burst at its first change, the rest of it once it is over, and not changes in ignored folders', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bot-dev-watch-'))
    mkdirSync(join(dir, 'src'))
    mkdirSync(join(dir, 'node_modules'))
    const calls: Array<{files: string[]; more: boolean}> = []
    const watcher = watchProject({
      cwd: dir,
      debounceMs: 100,
      onChange: (files, more) => calls.push({files: files.sort(), more}),
    })
    await watcher.ready
    writeFileSync(join(dir, 'node_modules', 'ignored.js'), '1')
    writeFileSync(join(dir, 'src', 'a.ts'), '1')
    writeFileSync(join(dir, 'src', 'b.ts'), '1')
    // The first call comes at the first change; the burst's end names what came after it.
    await waitFor(() => calls.flatMap((c) => c.files).includes('src/b.ts'), {what: 'src/b.ts reported'})
    await watcher.close()
    expect(calls[0]).toEqual({files: ['src/a.ts'], more: false})
    expect(calls.slice(1)).toEqual([{files: ['src/b.ts'], more: true}])
  })

  it('a file of the first call written again within the burst is named at its end (chokidar passes on one change of a file per 50 ms)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bot-dev-watch-'))
    mkdirSync(join(dir, 'src'))
    writeFileSync(join(dir, 'src', 'a.ts'), '0')
    const calls: Array<{files: string[]; more: boolean}> = []
    const watcher = watchProject({
      cwd: dir,
      debounceMs: 100,
      onChange: (files, more) => {
        calls.push({files, more})
        // Written again right after the first call (as an editor that truncates, then writes).
        if (!more) writeFileSync(join(dir, 'src', 'a.ts'), '1 and the rest')
      },
    })
    await watcher.ready
    writeFileSync(join(dir, 'src', 'a.ts'), '1')
    await waitFor(() => calls.length === 2, {what: 'the burst reported, then its end'})
    await watcher.close()
    expect(calls).toEqual([
      {files: ['src/a.ts'], more: false},
      {files: ['src/a.ts'], more: true},
    ])
  })
})

describe('what restarts the bot: source files it loaded, never its own data', () => {
  it('with what a Node bot loaded: its modules, .env and the top JSON; other JavaScript/TypeScript files do not', () => {
    const loaded = {
      known: true,
      has: (rel: string) => ['bot.ts', 'lib/handlers.ts', 'config/settings.json'].includes(rel),
    }
    for (const rel of ['bot.ts', 'lib/handlers.ts', 'config/settings.json', '.env', '.env.local', 'package.json'])
      expect(restartsFor(rel, loaded), rel).toBe(true)
    for (const rel of ['data/store.ts', 'data/cache.js', 'notes.mjs', 'sessions/1.json', 'user_photo.jpg'])
      expect(restartsFor(rel, loaded), rel).toBe(false)
    // Not modules: by extension still (a locale file, a config the bot reads).
    expect(restartsFor('locales/en.ftl', loaded)).toBe(true)
    // Nothing reported (not a Node bot): by extension.
    const none = {known: false, has: () => false}
    expect(restartsFor('data/store.ts', none)).toBe(true)
    expect(restartsFor('data/store.ts')).toBe(true)
    expect(restartsFor('sessions/1.json', none)).toBe(false)
  })

  it('by extension: .gitignore, virtual environments, caches and the given patterns are left out', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bot-dev-watch-'))
    writeFileSync(join(dir, '.gitignore'), 'generated/\n')
    for (const sub of ['src', 'generated', '.venv/lib', 'venv', '__pycache__', 'cache', 'uploads'])
      mkdirSync(join(dir, sub), {recursive: true})
    const bursts: string[][] = []
    const watcher = watchProject({
      cwd: dir,
      debounceMs: 100,
      patterns: ['cache/**', 'uploads/**'],
      onChange: (files) => bursts.push(files.sort()),
    })
    await watcher.ready
    for (const f of ['generated/schema.ts', '.venv/lib/x.py', 'venv/y.py', '__pycache__/b.pyc', 'cache/s.ts'])
      writeFileSync(join(dir, f), '1')
    writeFileSync(join(dir, 'uploads', 'in.js'), '1')
    writeFileSync(join(dir, 'user_photo.jpg'), '1')
    writeFileSync(join(dir, 'src', 'bot.py'), '1')
    await waitFor(() => bursts.length > 0, {what: 'a burst'})
    await watcher.close()
    expect(bursts).toEqual([['src/bot.py']])
  })
})

describe('bot dev: the restart line', () => {
  let world: DevWorld | undefined
  afterEach(async () => {
    await world?.close()
    world = undefined
  })

  it('names the changed source file, never an editor temp file; temp files alone restart nothing', async () => {
    world = await devWorld()
    const project = mkdtempSync(join(tmpdir(), 'bot-dev-watch-project-'))
    mkdirSync(join(project, 'src'))
    writeFileSync(join(project, 'src', 'main.ts'), '// v0\n')
    const dev = startDev(world, {cwd: project, args: ['--debounce', '100']})
    await dev.waitForOutput(/Ready/, {timeoutMs: 60_000})
    for (const f of EDITOR_TEMP_FILES) writeFileSync(join(project, f), 'x')
    writeFileSync(join(project, 'src', 'main.ts'), '// v1\n')
    await dev.waitForOutput(/↻ src\/main\.ts changed/, {timeoutMs: 30_000})
    await dev.waitForOutput(/✓ Bot listening on port \d+[^]*✓ Bot listening on port \d+/, {timeoutMs: 30_000})
    dev.kill('SIGINT')
    const result = await dev.exited
    expect(result.code).toBe(0)
    const restarts = result.stderr.split('\n').filter((l) => l.startsWith('↻'))
    expect(restarts).toEqual(['↻ src/main.ts changed; restarting the bot (updates are held meanwhile)'])
    expect(result.stderr).toMatch(/, 1 restart; exit code 0\./)
  }, 150_000)
})

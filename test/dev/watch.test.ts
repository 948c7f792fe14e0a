import {mkdirSync, mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {isIgnoredPath, watchProject} from '../../src/dev/watch.js'

describe('watch', () => {
  it('ignores node_modules, dist, .git and editor temp files', () => {
    for (const p of ['node_modules/x/index.js', 'dist/main.js', '.git/HEAD', 'packages/a/node_modules/b.js', 'src/.#main.ts', 'src/main.ts~', 'src/.main.ts.swp'])
      expect(isIgnoredPath(p), p).toBe(true)
    for (const p of ['src/main.ts', 'bot.mjs', '.env', 'src/distance.ts', 'gitlab.ts']) expect(isIgnoredPath(p), p).toBe(false)
  })

  it('reports one debounced burst of changes, and not changes in ignored folders', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bot-dev-watch-'))
    mkdirSync(join(dir, 'src'))
    mkdirSync(join(dir, 'node_modules'))
    const bursts: string[][] = []
    const watcher = watchProject({cwd: dir, debounceMs: 100, onChange: (files) => bursts.push(files.sort())})
    await watcher.ready
    writeFileSync(join(dir, 'node_modules', 'ignored.js'), '1')
    writeFileSync(join(dir, 'src', 'a.ts'), '1')
    writeFileSync(join(dir, 'src', 'b.ts'), '1')
    const deadline = Date.now() + 5000
    while (bursts.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
    await watcher.close()
    expect(bursts).toEqual([['src/a.ts', 'src/b.ts']])
  })
})

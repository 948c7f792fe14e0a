/**
 * Issue 31 item 16: the preload (dist/dev/imports/preload.cjs) must not slow the bot's start. Its
 * module hooks, registered before tsx's, carried tsx's own loading through the hooks thread (~50 ms
 * on each start of the grammY template, bench/restart-order.ts); registered in esbuild's worker
 * thread (NODE_OPTIONS reaches workers too), they held up every file tsx compiles. Real Node
 * processes with the real preload and tsx: a spy loaded before the preload (NODE_OPTIONS) writes
 * down each `module.register` call, so the order is seen as Node saw it, and the report still names
 * the files the bot loaded.
 */
import {execFile} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {promisify} from 'node:util'

import {afterEach, describe, expect, it} from 'vitest'

import {PROJECT_ROOT} from '../support/cli.js'
import {esmProject} from './helpers.js'

const PRELOAD = join(PROJECT_ROOT, 'dist', 'dev', 'imports', 'preload.cjs')
const run = promisify(execFile)

// Each module.register call, as a line: which thread, and the hooks module's file name.
const SPY = `const Module = require('node:module')
const {appendFileSync} = require('node:fs')
const {isMainThread} = require('node:worker_threads')
const own = Module.register
Module.register = function (specifier, ...rest) {
  const name = String(specifier).split('?')[0].split('/').pop()
  appendFileSync(process.env.SPY_LOG, (isMainThread ? 'main ' : 'worker ') + name + '\\n')
  return own.call(this, specifier, ...rest)
}
`

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, {recursive: true, force: true})
})

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'bot-imports-preload-'))
  dirs.push(dir)
  return esmProject(dir, 'preload-order', {'spy.cjs': SPY, ...files})
}

/** Runs `args` in `dir` as bot dev runs a bot: the preload after the spy in NODE_OPTIONS, the report file set. */
async function underPreload(
  dir: string,
  args: string[],
): Promise<{out: string; registers: string[]; loaded: string[]}> {
  const log = join(dir, 'spy.log')
  const report = join(dir, 'imports.txt')
  writeFileSync(log, '')
  writeFileSync(report, '')
  const {stdout} = await run(process.execPath, args, {
    cwd: dir,
    timeout: 60_000,
    env: {
      ...process.env,
      NODE_OPTIONS: `--require "${join(dir, 'spy.cjs')}" --require "${PRELOAD}"`,
      BOT_DEV_IMPORTS: report,
      BOT_DEV_IMPORTS_ROOT: dir,
      SPY_LOG: log,
      TSX_DISABLE_CACHE: '1',
    },
  })
  const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean)
  return {out: stdout.trim(), registers: lines(log), loaded: lines(report).map((p) => p.slice(dir.length + 1))}
}

describe('the preload registers its module hooks after tsx, and not in threads libraries start', () => {
  it('node --import tsx: tsx registers first, then the preload; the report names the TypeScript files loaded', async () => {
    const dir = project({
      'main.ts': "import {twice} from './lib/twice.js'\nconsole.log(twice(21))\n",
      'lib/twice.ts': 'export const twice = (n: number): number => n * 2\n',
    })
    const r = await underPreload(dir, ['--import', 'tsx', 'main.ts'])
    expect(r.out).toBe('42')
    const main = r.registers.filter((line) => line.startsWith('main '))
    expect(main.length, r.registers.join('\n')).toBeGreaterThanOrEqual(2)
    // tsx's hooks before ours (before: ours first, and tsx's own modules loaded through the hooks thread)
    expect(main.at(-1)).toBe('main hooks.js')
    expect(main.slice(0, -1).every((line) => line !== 'main hooks.js')).toBe(true)
    expect(r.loaded.sort()).toEqual(['lib/twice.ts', 'main.ts'])
  })

  it("plain ES modules: the preload's hooks at once in the main thread, none in a worker a library starts", async () => {
    const dir = project({
      // As esbuild starts its worker: execArgv [] (no tsx there); NODE_OPTIONS still applies.
      'main.mjs': `import {Worker} from 'node:worker_threads'
import {twice} from './lib/twice.mjs'
const worker = new Worker("require('node:worker_threads').parentPort.postMessage('up')", {eval: true, execArgv: []})
worker.once('message', (m) => {
  console.log(m, twice(21))
  void worker.terminate()
})
`,
      'lib/twice.mjs': 'export const twice = (n) => n * 2\n',
    })
    const r = await underPreload(dir, ['main.mjs'])
    expect(r.out).toBe('up 42')
    // Before: "worker hooks.js" too.
    expect(r.registers).toEqual(['main hooks.js'])
    expect(r.loaded.sort()).toEqual(['lib/twice.mjs', 'main.mjs'])
  })
})

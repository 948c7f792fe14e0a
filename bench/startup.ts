/**
 * Start-up time of the CLI: medians of `bot --version` and `bot --help` against bare
 * `node -e 0`, all measured in the same run, interleaved so that machine noise hits every
 * variant alike. Also shows the oclif path without the fast path (BOT_NO_FAST_START=1) and a
 * command that loads oclif (a plugin's `bot autocomplete --help`) for context.
 *
 *   npm run build && npx tsx bench/startup.ts [--runs 15] [--warmup 3] [--instructions]
 *
 * --instructions also counts instructions with valgrind's callgrind (one run per variant,
 * slow): unlike wall time, the count does not depend on what else the machine is doing.
 *
 * Targets: bot --version and bot --help at most 1.2x bare node; a subcommand's or a topic's
 * --help (bot dev --help, bot webhook info --help, bot webhook --help) under 2x.
 */
import {spawnSync} from 'node:child_process'
import {existsSync} from 'node:fs'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const bin = join(root, 'bin', 'run.js')
if (!existsSync(join(root, 'dist', 'cli', 'fast', 'start.js')) || !existsSync(join(root, 'oclif.manifest.json'))) {
  console.error('Build first: npm run build (dist/ and oclif.manifest.json are needed).')
  process.exit(2)
}

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? Number(process.argv[i + 1]) : fallback
}
const runs = option('runs', 15)
const warmup = option('warmup', 3)

// A clean environment: no BOT_* variables, no NODE_OPTIONS, not a TTY (output is piped).
const baseEnv: NodeJS.ProcessEnv = {}
for (const [k, v] of Object.entries(process.env)) if (!/^(BOT_|NODE_OPTIONS$|NODE_ENV$|VITEST)/.test(k)) baseEnv[k] = v

interface Variant {
  name: string
  args: string[]
  env?: Record<string, string>
  /** The most this variant may take, as a multiple of bare node. */
  target?: number
}

const variants: Variant[] = [
  {name: 'node -e 0 (baseline)', args: ['-e', '0']},
  {name: 'bot --version', args: [bin, '--version'], target: 1.2},
  {name: 'bot --help', args: [bin, '--help'], target: 1.2},
  {name: 'bot dev --help', args: [bin, 'dev', '--help'], target: 2},
  {name: 'bot webhook info --help', args: [bin, 'webhook', 'info', '--help'], target: 2},
  {name: 'bot --version (oclif, no fast path)', args: [bin, '--version'], env: {BOT_NO_FAST_START: '1'}},
  {name: 'bot --help (oclif, no fast path)', args: [bin, '--help'], env: {BOT_NO_FAST_START: '1'}},
  {name: 'bot dev --help (oclif, no fast path)', args: [bin, 'dev', '--help'], env: {BOT_NO_FAST_START: '1'}},
  {name: 'bot webhook --help (a topic)', args: [bin, 'webhook', '--help'], target: 2},
  {name: 'bot webhook --help (oclif, no fast path)', args: [bin, 'webhook', '--help'], env: {BOT_NO_FAST_START: '1'}},
  {name: 'bot autocomplete --help (a plugin: oclif)', args: [bin, 'autocomplete', '--help']},
]

function once(v: Variant): number {
  const started = process.hrtime.bigint()
  const r = spawnSync(process.execPath, v.args, {
    env: {...baseEnv, ...v.env},
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: root,
  })
  const ms = Number(process.hrtime.bigint() - started) / 1e6
  if (r.status !== 0) throw new Error(`${v.name} exited ${r.status}: ${r.stderr.toString()}`)
  return ms
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

for (let i = 0; i < warmup; i++) for (const v of variants) once(v)
const samples = new Map<Variant, number[]>(variants.map((v) => [v, []]))
for (let i = 0; i < runs; i++) for (const v of variants) samples.get(v)!.push(once(v))

const base = median(samples.get(variants[0])!)
console.log(
  `node ${process.version} on ${process.platform}-${process.arch}; ${runs} runs each after ${warmup} warm-up rounds, interleaved; medians.`,
)
console.log('')
const width = Math.max(...variants.map((v) => v.name.length))
let ok = true
for (const v of variants) {
  const xs = samples.get(v)!
  const m = median(xs)
  const ratio = m / base
  const verdict = v.target ? (ratio <= v.target ? `  ✓ ≤ ${v.target}x` : `  ✗ > ${v.target}x`) : ''
  if (v.target && ratio > v.target) ok = false
  console.log(
    `${v.name.padEnd(width)}  ${m.toFixed(1).padStart(7)} ms  ${ratio.toFixed(2).padStart(5)}x  (min ${Math.min(...xs).toFixed(1)}, max ${Math.max(...xs).toFixed(1)})${verdict}`,
  )
}
console.log('')
console.log(ok ? 'Targets met: see the ✓ rows.' : 'Target missed: see the ✗ rows.')

if (process.argv.includes('--instructions')) {
  const hasValgrind = spawnSync('valgrind', ['--version']).status === 0
  if (!hasValgrind) console.log('\n--instructions: valgrind is not installed; skipped.')
  else {
    console.log('\nInstructions (valgrind --tool=callgrind, all threads, one run each; repeatable under load):')
    const counts = new Map<Variant, number>()
    for (const v of variants) {
      const r = spawnSync(
        'valgrind',
        ['--tool=callgrind', '--callgrind-out-file=/dev/null', process.execPath, ...v.args],
        {
          env: {...baseEnv, ...v.env},
          cwd: root,
          encoding: 'utf8',
        },
      )
      const m = /Collected : (\d+)/.exec(r.stderr)
      if (!m) throw new Error(`callgrind gave no count for ${v.name}: ${r.stderr.slice(-500)}`)
      counts.set(v, Number(m[1]))
    }
    const baseCount = counts.get(variants[0])!
    for (const v of variants) {
      const n = counts.get(v)!
      console.log(
        `${v.name.padEnd(width)}  ${(n / 1e6).toFixed(0).padStart(7)} M  ${(n / baseCount).toFixed(2).padStart(5)}x`,
      )
    }
  }
}

/**
 * Which command runs the user's bot.
 *
 * The rule (documented in the README):
 * 1. the words after `--` (`bot dev -- node bot.js`), run as given (no shell);
 * 2. else package.json `scripts["dev:bot"]`, run through the shell like `npm run` does
 *    (with ./node_modules/.bin on PATH);
 * 3. else the entry file: package.json "main", else the first of src/main.ts, src/index.ts,
 *    index.js that exists; a .ts/.mts/.cts/.tsx file runs with `node --import tsx <main>` (tsx must
 *    be installed in the project; one process, so signals reach the bot directly), anything else
 *    with `node <main>` (the Node that runs `bot`).
 * Every node_modules/.bin from the project folder up to the root goes first on PATH, as with `npm run`.
 */
import {existsSync, readFileSync} from 'node:fs'
import {delimiter, dirname, join, resolve} from 'node:path'

import {UsageError} from '../../lib/errors.js'

export interface BotCommand {
  /** Executable, or the whole command line when `shell` is true. */
  file: string
  args: string[]
  shell: boolean
  /** How to show it to the user. */
  display: string
  /** Where it came from, for messages. */
  source: 'argv' | 'dev:bot script' | 'main'
  /** Extra PATH entries (./node_modules/.bin). */
  pathPrepend: string[]
}

export const DEFAULT_ENTRY_FILES = ['src/main.ts', 'src/index.ts', 'index.js']
const TS_RE = /\.(ts|mts|cts|tsx)$/

interface PackageJson {
  main?: unknown
  scripts?: Record<string, unknown>
}

function readPackageJson(cwd: string): PackageJson | undefined {
  const path = join(cwd, 'package.json')
  if (!existsSync(path)) return undefined
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as PackageJson
  } catch (error) {
    throw new UsageError(
      `${path} is not valid JSON (${(error as Error).message}).`,
      'Fix package.json, or give the bot command after `--`.',
    )
  }
}

function quote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`
}

/** Every `node_modules/.bin` from `cwd` up to the root, nearest first (what `npm run` puts on PATH). */
export function binDirs(cwd: string): string[] {
  const dirs: string[] = []
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    dirs.push(join(dir, 'node_modules', '.bin'))
    if (dirname(dir) === dir) return dirs
  }
}

/** Whether the tsx package can be imported from `cwd` (node_modules/tsx here or in a parent folder). */
function hasTsx(cwd: string): boolean {
  return binDirs(cwd).some((bin) => existsSync(join(bin, '..', 'tsx', 'package.json')))
}

export function resolveBotCommand(argv: string[], cwd: string, nodePath = process.execPath): BotCommand {
  const bin = binDirs(cwd)
  if (argv.length > 0) {
    const [file, ...args] = argv
    return {file, args, shell: false, display: argv.map(quote).join(' '), source: 'argv', pathPrepend: bin}
  }
  const pkg = readPackageJson(cwd)
  const script = pkg?.scripts?.['dev:bot']
  if (typeof script === 'string' && script.trim() !== '')
    return {file: script, args: [], shell: true, display: script, source: 'dev:bot script', pathPrepend: bin}

  const main =
    typeof pkg?.main === 'string' && pkg.main.trim() !== ''
      ? pkg.main
      : DEFAULT_ENTRY_FILES.find((f) => existsSync(join(cwd, f)))
  if (!main)
    throw new UsageError(
      `No bot command: nothing after \`--\`, no "dev:bot" script and no entry file (package.json "main", ${DEFAULT_ENTRY_FILES.join(', ')}) in ${cwd}.`,
      'Run `bot dev -- node bot.js` (any command), or add "dev:bot": "tsx src/main.ts" to package.json scripts.',
    )
  if (!existsSync(resolve(cwd, main)))
    throw new UsageError(
      `package.json "main" is ${main}, which does not exist in ${cwd}.`,
      'Build the project first, fix "main", or give the command after `--`.',
    )
  if (TS_RE.test(main)) {
    if (!hasTsx(cwd))
      throw new UsageError(
        `${main} is TypeScript and tsx is not installed in ${cwd}.`,
        'Run `npm install -D tsx`, or give the command after `--`.',
      )
    return {
      file: nodePath,
      args: ['--import', 'tsx', main],
      shell: false,
      display: `node --import tsx ${quote(main)}`,
      source: 'main',
      pathPrepend: bin,
    }
  }
  return {file: nodePath, args: [main], shell: false, display: `node ${quote(main)}`, source: 'main', pathPrepend: bin}
}

/** PATH with the given folders first. */
export function pathWith(prepend: string[], path = process.env.PATH ?? ''): string {
  return [...prepend, path].filter(Boolean).join(delimiter)
}

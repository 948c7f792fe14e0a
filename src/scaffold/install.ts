import type {PackageManager} from './package-manager.js'
import {pmCommands} from './package-manager.js'

export interface InstallResult {
  ok: boolean
  /** The command that ran (or would retry), e.g. "npm install". */
  command: string
  /** Why it failed, in one line. */
  error?: string
  /** The last lines the package manager printed (for a failed install). */
  outputTail?: string
  ms: number
}

/**
 * Install a project's dependencies with the chosen package manager. Never throws:
 * the files stay in place whatever happens, and the result says how to retry.
 */
export async function installDependencies(
  dir: string,
  pm: PackageManager,
  options: {signal?: AbortSignal; env?: NodeJS.ProcessEnv; onOutput?: (chunk: string) => void} = {},
): Promise<InstallResult> {
  const {execa} = await import('execa')
  const [file, ...args] = pmCommands(pm).install
  const command = [file, ...args].join(' ')
  if (pm === 'npm') args.push('--no-audit', '--no-fund')
  const started = performance.now()
  const child = execa(file, args, {
    cwd: dir,
    all: true,
    reject: false,
    stdin: 'ignore',
    cancelSignal: options.signal,
    env: {...options.env, npm_config_update_notifier: 'false'},
  })
  if (options.onOutput) child.all?.on('data', (d: Buffer) => options.onOutput!(d.toString()))
  const result = await child
  const ms = Math.round(performance.now() - started)
  if (!result.failed) return {ok: true, command, ms}
  const tail = (result.all ?? '').trim().split('\n').slice(-15).join('\n')
  let error: string
  if ((result as {code?: string}).code === 'ENOENT') error = `${file} is not installed (or not on PATH)`
  else if (result.isCanceled) error = 'the install was cancelled'
  else error = `${command} exited with code ${result.exitCode ?? result.signal}`
  return {ok: false, command, error, outputTail: tail || undefined, ms}
}

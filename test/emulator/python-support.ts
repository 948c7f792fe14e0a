import {spawn, spawnSync} from 'node:child_process'

/** Run a Python script under Debian's python3 without blocking the event loop (the emulator runs in this process). */
export function runPython(
  script: string,
  args: string[],
): Promise<{status: number | null; stdout: string; stderr: string}> {
  return new Promise((resolve) => {
    const child = spawn('/usr/bin/python3', ['-W', 'ignore', '-c', script, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
    child.on('error', (err) => resolve({status: -1, stdout, stderr: String(err)}))
    child.on('close', (status) => {
      clearTimeout(timer)
      resolve({status, stdout, stderr})
    })
  })
}

/** Debian's python3, with python3-python-telegram-bot (.ci/run installs it). */
export const PYTHON = '/usr/bin/python3'
export const hasPtb = spawnSync(PYTHON, ['-c', 'import telegram'], {stdio: 'ignore'}).status === 0

/**
 * `python3 -m unittest -v MODULE` in `cwd` with `env` added (no bytecode, no warnings); its stdout and stderr
 * together, and its exit code. Killed after 90 s.
 */
export function runUnittest(
  module: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{code: number | null; output: string}> {
  const child = spawn(PYTHON, ['-m', 'unittest', '-v', module], {
    cwd,
    env: {...process.env, ...env, PYTHONDONTWRITEBYTECODE: '1', PYTHONWARNINGS: 'ignore'},
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (c: Buffer) => (output += c.toString()))
  child.stderr.on('data', (c: Buffer) => (output += c.toString()))
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000)
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({code, output})
    }),
  )
}

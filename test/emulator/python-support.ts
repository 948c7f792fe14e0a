import {spawn} from 'node:child_process'

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

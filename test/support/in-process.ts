/**
 * Setup file of the `unit` project: unit tests run in-process, on threads. Starting a process from
 * one (node:child_process) throws and fails the test, even where the error is caught: a test that
 * runs the CLI, a bot, nginx, redis, chromium, openssl or python is an e2e test, named
 * `*.e2e.test.ts`, and runs in the `e2e` project (forks).
 */
import childProcess from 'node:child_process'
import {syncBuiltinESMExports} from 'node:module'

import {afterEach} from 'vitest'

const NAMES = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const
const started: string[] = []

for (const name of NAMES) {
  Object.defineProperty(childProcess, name, {
    configurable: true,
    writable: true,
    value: (command: unknown) => {
      started.push(`${name}(${JSON.stringify(command)})`)
      throw new Error(`${name}(${JSON.stringify(command)}) in a unit test: ${WHY}`)
    },
  })
}
syncBuiltinESMExports()

const WHY =
  'unit tests run in-process (threads); a test that starts a process is an e2e test: name its file *.e2e.test.ts'

afterEach(() => {
  const seen = started.splice(0)
  if (seen.length > 0) throw new Error(`${seen.join(', ')} in a unit test: ${WHY}`)
})

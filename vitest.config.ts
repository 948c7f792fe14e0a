import {defineConfig} from 'vitest/config'

/**
 * Two projects, told apart by the file name, `unit` first, then `e2e`:
 *
 * - `unit`: everything in-process (the emulator, the relay, the inspector's servers, commands run
 *   with `Cmd.run`), on threads. Starting a process from one fails the test
 *   (test/support/in-process.ts).
 * - `e2e`: `*.e2e.test.ts`, the tests that start processes (the CLI as `node bin/run.js`, real bots,
 *   nginx, redis, chromium, python, openssl, npm), on forks.
 *
 * Both run 4 files at once on a 2-core machine: the files wait on sockets, timers and children a
 * good part of the time (measured: unit 48 s with 2 threads, 29 s with 4; an e2e sample 137 s with
 * 1 fork, 79 s with 4, where it keeps both cores busy). VITEST_UNIT_WORKERS / VITEST_E2E_WORKERS
 * override the counts.
 *
 * `npm test` runs both; `npm run test:unit` / `npm run test:e2e` (or `--project`) one.
 */
const E2E = 'test/**/*.e2e.test.ts'

export default defineConfig({
  test: {
    setupFiles: ['test/setup.ts'],
    disableConsoleIntercept: true,
    reporters: ['default'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [E2E],
          setupFiles: ['test/support/in-process.ts'],
          pool: 'threads',
          maxWorkers: Number(process.env.VITEST_UNIT_WORKERS) || 4,
          sequence: {groupOrder: 0},
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: [E2E],
          // A test's timeout bounds a failure only (every wait inside is for an event): a process-heavy test
          // (a `bot dev` started two or three times) takes 25 s at load 20 on 2 cores, so e2e tests get 90 s.
          testTimeout: 90_000,
          pool: 'forks',
          maxWorkers: Number(process.env.VITEST_E2E_WORKERS) || 4,
          sequence: {groupOrder: 1},
        },
      },
    ],
  },
})

import {defineConfig} from 'vitest/config'

/**
 * Two projects, told apart by the file name:
 *
 * - `unit`: everything in-process (the emulator, the relay, the inspector's servers, commands run
 *   with `Cmd.run`), on threads, one per core. Starting a process from one fails the test
 *   (test/support/in-process.ts).
 * - `e2e`: `*.e2e.test.ts`, the tests that start processes (the CLI as `node bin/run.js`, real bots,
 *   nginx, redis, chromium, python, openssl, npm), on forks. They mostly wait on their children, so
 *   more run at once than there are cores (VITEST_E2E_WORKERS overrides it).
 *
 * `npm test` runs both, `unit` first; `npm run test:unit` / `npm run test:e2e` (or `--project`) one.
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
          maxWorkers: 2,
          sequence: {groupOrder: 0},
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: [E2E],
          pool: 'forks',
          maxWorkers: Number(process.env.VITEST_E2E_WORKERS) || 4,
          sequence: {groupOrder: 1},
        },
      },
    ],
  },
})

/**
 * One minimum Node.js version everywhere: package.json `engines` (20.6: `bot dev` runs a
 * TypeScript bot with `node --import tsx`, which needs module.register), the templates' engines,
 * what `bot doctor` checks, and what the README says.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {PROJECT_ROOT, runCli} from '../support/cli.js'

const pkg = (path: string) => JSON.parse(readFileSync(join(PROJECT_ROOT, path), 'utf8')) as {engines?: {node?: string}}

describe('the minimum Node.js version', () => {
  const engines = pkg('package.json').engines?.node
  const minimum = /^>=(\d+\.\d+)$/.exec(engines ?? '')?.[1]

  it('is >=20.6 in package.json and the same in every template', () => {
    expect(engines).toBe('>=20.6')
    for (const t of ['grammy', 'gramio', 'telegraf'])
      expect(pkg(`templates/${t}/package.json`).engines?.node).toBe(engines)
  })

  it('is what the README says', () => {
    expect(readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8')).toContain(`Requires Node.js ${minimum} or later.`)
  })

  it("is what bot doctor's config check asks for", async () => {
    const r = await runCli(['doctor', '--only', 'config', '--json'], {
      env: {BOT_TOKEN: '123456:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'},
    })
    const detail = (JSON.parse(r.stdout) as {checks: Array<{detail: string}>}).checks[0].detail
    expect(detail).toContain(`(needs ${minimum} or later)`)
  })
})

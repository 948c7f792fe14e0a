import {spawnSync} from 'node:child_process'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'

import {describe, expect, it} from 'vitest'

import {tokensInArgv} from '../../src/cli/secrets.js'
import {redactSecrets} from '../../src/telegram/redact.js'
import {PROJECT_ROOT} from '../support/paths.js'

const TOKEN = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw'
const OTHER = '987654321:ZZHdqTcvCH1vGWJxfSeofSAs0K5PALDxyz'

describe('tokensInArgv', () => {
  it('finds --token X and --token=X', () => {
    expect(tokensInArgv(['webhook', 'info', '--token', 'a:b', '--x', '--token=c:d'])).toEqual(['a:b', 'c:d'])
    expect(tokensInArgv(['--token'])).toEqual([])
  })
})

describe('redactSecrets', () => {
  it('redacts given secrets, their secret parts, and anything token-shaped', () => {
    expect(redactSecrets(`a ${TOKEN} b ${TOKEN.split(':')[1]} c ${OTHER}`, [TOKEN])).toBe(
      'a <token> b <token> c <token>',
    )
  })
})

describe('installOutputRedaction (in a child process)', () => {
  const secretsModule = pathToFileURL(join(PROJECT_ROOT, 'dist', 'cli', 'secrets.js')).href
  function child(code: string, env: Record<string, string> = {}, args: string[] = []) {
    const script = `import {installOutputRedaction, allowInOutput} from ${JSON.stringify(secretsModule)};\n${code}`
    return spawnSync(process.execPath, ['--input-type=module', '-e', script, '--', ...args], {
      encoding: 'utf8',
      env: {PATH: process.env.PATH, ...env},
    })
  }

  it('filters strings and buffers on stdout and stderr, BOT_TOKEN read at write time', () => {
    const r = child(
      `installOutputRedaction(process.argv.slice(1));
       process.env.BOT_TOKEN = ${JSON.stringify('55555:short-but-set-later')};
       process.stdout.write('flag ' + ${JSON.stringify(TOKEN)} + '\\n');
       process.stdout.write(Buffer.from('buffer ' + ${JSON.stringify(OTHER)} + '\\n'));
       console.error('env 55555:short-but-set-later and secret short-but-set-later');
       process.stdout.write(Buffer.from([0xff, 0x00, 0x0a]));`,
      {},
      ['--token', TOKEN],
    )
    expect(r.status).toBe(0)
    expect(r.stdout).toContain('flag <token>\n')
    expect(r.stdout).toContain('buffer <token>\n')
    expect(r.stdout.endsWith('\uFFFD\u0000\n')).toBe(true) // binary passed through untouched (decoded here)
    expect(r.stderr).toBe('env <token> and secret <token>\n')
  })

  it('lets an allowed (fake, public) token through', () => {
    const r = child(
      `installOutputRedaction([]); allowInOutput(${JSON.stringify(OTHER)}); console.log(${JSON.stringify(`${OTHER} ${TOKEN}`)})`,
    )
    expect(r.stdout).toBe(`${OTHER} <token>\n`)
  })
})

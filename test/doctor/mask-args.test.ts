/** maskSecretArgs: which arguments of a command line `bot doctor` masks. */
import {describe, expect, it} from 'vitest'

import {MASKED, maskSecretArgs} from '../../src/doctor/processes.js'

const m = (line: string) => maskSecretArgs(line.split(' ')).join(' ')

describe('maskSecretArgs', () => {
  it('masks the value of the known secret flags, whatever it looks like, in both spellings', () => {
    expect(m('bot dev --secret-token s3cr3t --restore-secret -leading-dash --token 1:ab')).toBe(
      `bot dev --secret-token ${MASKED} --restore-secret ${MASKED} --token ${MASKED}`,
    )
    expect(m('bot webhook set --secret-token=abc --token=1:x')).toBe(
      `bot webhook set --secret-token=${MASKED} --token=${MASKED}`,
    )
  })

  it('masks flags and NAME=value pairs whose name says secret, token, password, passwd, key or auth', () => {
    expect(
      m('x --api-key k --AUTH a --db-password p -passwd q --client-secret=c GITHUB_TOKEN=t MY_Key=v Authorization=b'),
    ).toBe(
      `x --api-key ${MASKED} --AUTH ${MASKED} --db-password ${MASKED} -passwd ${MASKED} --client-secret=${MASKED} GITHUB_TOKEN=${MASKED} MY_Key=${MASKED} Authorization=${MASKED}`,
    )
  })

  it('leaves everything else: other flags and values, a following flag, positional words, an empty value', () => {
    expect(m('node bot.js --port 8080 --mode webhook PORT=1 a=b')).toBe(
      'node bot.js --port 8080 --mode webhook PORT=1 a=b',
    )
    expect(m('x --no-auth --verbose')).toBe('x --no-auth --verbose')
    expect(m('x TOKEN= --')).toBe('x TOKEN= --')
  })
})

describe('maskSecretArgs after the token redaction', () => {
  it('keeps a value already shown as <token>', () => {
    expect(m('node bot.js --token <token> --secret-token s BOT_TOKEN=<token> --token=<token>')).toBe(
      `node bot.js --token <token> --secret-token ${MASKED} BOT_TOKEN=<token> --token=<token>`,
    )
  })
})

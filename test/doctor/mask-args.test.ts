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

describe('maskSecretArgs by shape: secrets in any argument are masked, whatever the flag', () => {
  it('masks URL credentials, webhook paths and queries, headers, -t and secret-sounding names', () => {
    expect(
      maskSecretArgs([
        'psql',
        'postgres://u:PASS@db/app',
        'redis://:rpw@r:6379',
        '--webhook-url=https://example.com/hook/PATHsecret123',
        'https://x.example/tg?secret=1',
        '--passphrase=a',
        '--cookie=b',
        '--pw=c',
        '--bearer=d',
        '--hmac=e',
        '--session=f',
        '--cred=g',
        '--dsn=h',
        'Authorization: Bearer AUTHV',
        '-t',
        'TTT',
        'Authorization:',
        'Bearer',
        'SPLIT',
        'X-Api-Key: kk',
        'PGPASSWORD=pp',
      ]).join(' '),
    ).toBe(
      `psql postgres://u:${MASKED}@db/app redis://:${MASKED}@r:6379 --webhook-url=https://example.com/hook/PATH… https://x.example/tg?… --passphrase=${MASKED} --cookie=${MASKED} --pw=${MASKED} --bearer=${MASKED} --hmac=${MASKED} --session=${MASKED} --cred=${MASKED} --dsn=${MASKED} Authorization: ${MASKED} -t ${MASKED} Authorization: Bearer ${MASKED} X-Api-Key: ${MASKED} PGPASSWORD=${MASKED}`,
    )
  })

  it('leaves plain URLs, headers and flags alone', () => {
    expect(
      m(
        'x https://api.telegram.org http://127.0.0.1:8081 --api-root=http://127.0.0.1:8081 --passive y Content-Type: json',
      ),
    ).toBe(
      'x https://api.telegram.org http://127.0.0.1:8081 --api-root=http://127.0.0.1:8081 --passive y Content-Type: json',
    )
  })
})

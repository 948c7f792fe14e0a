/**
 * The docs match the repository: the README's fresh-clone section has exactly its two commands and
 * the first one prints what the README shows (run for real, minus `npm ci && npm run build`); every
 * relative link in README.md and docs/*.md names a file or folder of this repository, every
 * `#anchor` of a link within the README is one of its headings (GitHub's slugs), and the README
 * links the terminal recordings.
 */
import {spawnSync} from 'node:child_process'
import {existsSync, readdirSync, readFileSync} from 'node:fs'
import {dirname, join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {PROJECT_ROOT} from '../support/paths.js'

const files = [
  'README.md',
  ...readdirSync(join(PROJECT_ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
]

/** [text](target) links outside code blocks and code spans. */
function links(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '')
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1])
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-')
}

describe("the README's fresh clone section", () => {
  const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8')
  const section = /^## Try it on a fresh clone\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? ''
  const blocks = [...section.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({lang: m[1], text: m[2].trimEnd()}))
  const commands = blocks.filter((b) => b.lang === 'sh')

  it('has exactly two commands to copy: install + the offline run, install + the tests', () => {
    expect(commands.map((c) => c.text)).toEqual([
      "npm ci && npm run build && cd examples/echo-bot && printf '/start\\nhello\\n' | node ../../bin/run.js dev --offline",
      'npm ci && npm test',
    ])
  })

  it('the first command prints the chat the README shows, and exits 0', () => {
    const shown = blocks.find((b) => b.lang === '' && b.text.startsWith('you › '))!.text
    const run = commands[0].text.split(' && cd examples/echo-bot && ')[1] // the build is this test run's
    const r = spawnSync('sh', ['-c', run], {
      cwd: join(PROJECT_ROOT, 'examples/echo-bot'),
      encoding: 'utf8',
      timeout: 60_000,
      env: {...process.env, NO_COLOR: '1', BOT_TOKEN: ''},
    })
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout.trimEnd()).toBe(shown)
    // The session log shows the echo bot's start-up line, but never the random webhook path whole (a secret;
    // at most its first 4 characters).
    expect(r.stderr).toContain('bot │ echo-bot: webhook on :')
    expect(r.stderr).not.toMatch(/\/webhook\/[\w-]{5,}/)
  }, 90_000)
})

describe('links in the docs', () => {
  it.each(files)('%s: every relative link names a file that exists', (file) => {
    const dir = dirname(join(PROJECT_ROOT, file))
    const missing = links(readFileSync(join(PROJECT_ROOT, file), 'utf8'))
      .filter((target) => !/^[a-z]+:/i.test(target) && !target.startsWith('#'))
      .filter((target) => !existsSync(join(dir, decodeURIComponent(target.split('#')[0]))))
    expect(missing).toEqual([])
  })

  it('README: every #anchor is a heading of the README', () => {
    const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8')
    const headings = new Set(
      [...readme.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1])),
    )
    const anchors = links(readme)
      .filter((t) => t.startsWith('#'))
      .map((t) => t.slice(1))
    expect(anchors.length).toBeGreaterThan(0)
    expect(anchors.filter((a) => !headings.has(a))).toEqual([])
  })

  it('README links the real terminal recordings of bot dev and of the offline chat', () => {
    const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8')
    for (const f of ['docs/recordings/dev.txt', 'docs/recordings/dev-offline.txt']) {
      expect(links(readme)).toContain(f)
      expect(existsSync(join(PROJECT_ROOT, f.replace('.txt', '.cast')))).toBe(true)
    }
    expect(readFileSync(join(PROJECT_ROOT, 'docs/recordings/dev-offline.txt'), 'utf8')).toMatch(
      /^you › \/start\nbot › Hi You!/m,
    )
  })

  it.each(['dev', 'dev-offline'])(
    'docs/recordings/%s.cast is asciicast v2: a header, then output events in time order',
    (name) => {
      const [header, ...events] = readFileSync(join(PROJECT_ROOT, `docs/recordings/${name}.cast`), 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown)
      expect(header).toMatchObject({version: 2, width: expect.any(Number), height: expect.any(Number)})
      expect(events.length).toBeGreaterThan(10)
      let last = 0
      for (const e of events as Array<[number, string, string]>) {
        expect(e[1]).toBe('o')
        expect(e[0]).toBeGreaterThanOrEqual(last)
        last = e[0]
      }
      expect((events as Array<[number, string, string]>).map((e) => e[2]).join('')).toMatch(
        /bot dev (--offline )?ended/,
      )
    },
  )
})

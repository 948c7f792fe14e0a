/**
 * bot test's pieces without a bot: which scripts it finds (node_modules and .gitignore's entries left out), the
 * lines a failure prints, the JUnit XML (escaped) and the JSON.
 */
import {mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {findChatScripts, junitXml, runJson, scriptLines, type ChatTestRun} from '../../src/testing/index.js'

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'bot-test-find-')))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

describe('findChatScripts', () => {
  it('every *.chat.yml of the project but node_modules, .git and what .gitignore leaves out', () => {
    for (const file of ['a.chat.yml', 'test/b.chat.yml', 'node_modules/x/c.chat.yml', 'out/d.chat.yml', 'e.yml']) {
      mkdirSync(join(dir, file, '..'), {recursive: true})
      writeFileSync(join(dir, file), 'steps:\n  - user: hi\n')
    }
    writeFileSync(join(dir, '.gitignore'), 'out/\n')
    writeFileSync(join(dir, 'package.json'), '{}')
    expect(findChatScripts(dir)).toEqual([join(dir, 'a.chat.yml'), join(dir, 'test/b.chat.yml')])
    expect(findChatScripts(dir, ['test'])).toEqual([join(dir, 'test/b.chat.yml')])
    expect(() => findChatScripts(dir, ['e.yml'])).toThrow(/e\.yml is not a chat script/)
    expect(() => findChatScripts(dir, ['nope'])).toThrow(/nope does not exist/)
  })
})

describe('the report', () => {
  const run: ChatTestRun = {
    passed: 1,
    failed: 1,
    updated: 0,
    durationMs: 1234,
    scripts: [
      {
        file: '/p/a.chat.yml',
        name: 'a.chat.yml',
        status: 'passed',
        output: [],
        result: {steps: 4, durationMs: 82} as never,
      },
      {
        file: '/p/b.chat.yml',
        name: 'b.chat.yml',
        status: 'failed',
        output: [{at: 0, stream: 'stderr', line: 'oops <&> "x"'}],
        result: {
          steps: 2,
          durationMs: 9,
          failures: [
            {
              file: 'b.chat.yml',
              line: 3,
              column: 5,
              step: 1,
              key: 'bot',
              message: 'not <it>',
              diff: '- text: "a"\n+ text: "b"',
            },
          ],
        } as never,
      },
    ],
  }

  it('one line a script; a failure with its file:line, the diff and the bot output', () => {
    expect(scriptLines(run.scripts[0])).toEqual(['✓ a.chat.yml  4 steps  82 ms'])
    expect(scriptLines(run.scripts[1])).toEqual([
      '✗ b.chat.yml  2 steps  9 ms',
      '  b.chat.yml:3  bot: not <it>',
      '    - text: "a"',
      '    + text: "b"',
      "  the bot's output while it ran:",
      '    bot │ oops <&> "x"',
    ])
  })

  it('JUnit XML: a testcase a script, the failure escaped; JSON', () => {
    const xml = junitXml(run)
    expect(xml).toContain('<testsuites name="bot test" tests="2" failures="1" time="1.234">')
    expect(xml).toContain('<testcase classname="chat-scripts" name="a.chat.yml" file="a.chat.yml" time="0.082"/>')
    expect(xml).toContain('<failure message="b.chat.yml:3 bot: not &lt;it&gt;" type="expectation">')
    expect(xml).toContain('<system-out>oops &lt;&amp;&gt; &quot;x&quot;</system-out>')
    expect(runJson(run)).toMatchObject({
      ok: false,
      passed: 1,
      failed: 1,
      scripts: [{file: 'a.chat.yml'}, {file: 'b.chat.yml', output: ['oops <&> "x"']}],
    })
  })
})

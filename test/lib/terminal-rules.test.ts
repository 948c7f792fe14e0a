/**
 * The one CI/terminal rule (src/lib/ci.ts) and the one colour rule (src/lib/color.ts).
 */
import {describe, expect, it} from 'vitest'

import {interactiveTerminal, isCI, onTerminal} from '../../src/lib/ci.js'
import {paint, style, styleIf, useColor} from '../../src/lib/color.js'
import {atTerminal} from '../../src/cli/dev-options.js'

const tty = {isTTY: true}
const pipe = {isTTY: false}
const bare = {}

describe('isCI', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['false', false],
    ['0', false],
    ['true', true],
    ['1', true],
    ['yes', true],
  ])('CI=%s → %s', (value, expected) => {
    expect(isCI(value === undefined ? {} : {CI: value})).toBe(expected)
  })
})

describe('onTerminal / interactiveTerminal', () => {
  it('needs every stream to be a TTY', () => {
    expect(onTerminal(tty, tty)).toBe(true)
    expect(onTerminal(tty, pipe)).toBe(false)
    expect(onTerminal(bare)).toBe(false)
    expect(onTerminal()).toBe(false)
  })

  it('is off in CI, on with CI=false, off without a TTY', () => {
    expect(interactiveTerminal([tty], {CI: 'true'})).toBe(false)
    expect(interactiveTerminal([tty], {CI: 'false'})).toBe(true)
    expect(interactiveTerminal([tty], {CI: '0'})).toBe(true)
    expect(interactiveTerminal([tty], {})).toBe(true)
    expect(interactiveTerminal([pipe], {})).toBe(false)
    expect(interactiveTerminal([tty, pipe], {})).toBe(false)
  })

  it('is the rule `bot dev` uses to decide whether someone can fix a crashed bot', () => {
    expect(atTerminal(tty, {CI: 'false'})).toBe(true)
    expect(atTerminal(tty, {CI: 'true'})).toBe(false)
    expect(atTerminal(pipe, {})).toBe(false)
  })
})

describe('useColor', () => {
  it('colours a TTY, not a pipe, not TERM=dumb', () => {
    expect(useColor(tty, {TERM: 'xterm'})).toBe(true)
    expect(useColor(tty, {})).toBe(true)
    expect(useColor(pipe, {TERM: 'xterm'})).toBe(false)
    expect(useColor(bare, {})).toBe(false)
    expect(useColor(tty, {TERM: 'dumb'})).toBe(false)
  })

  it('NO_COLOR (non-empty) turns colours off, even with FORCE_COLOR; an empty NO_COLOR is unset', () => {
    expect(useColor(tty, {NO_COLOR: '1'})).toBe(false)
    expect(useColor(tty, {NO_COLOR: 'anything'})).toBe(false)
    expect(useColor(tty, {NO_COLOR: '1', FORCE_COLOR: '1'})).toBe(false)
    expect(useColor(tty, {NO_COLOR: ''})).toBe(true)
  })

  it('FORCE_COLOR turns colours on off a TTY; FORCE_COLOR=0 or empty does not', () => {
    expect(useColor(pipe, {FORCE_COLOR: '1'})).toBe(true)
    expect(useColor(pipe, {FORCE_COLOR: '3'})).toBe(true)
    expect(useColor(pipe, {FORCE_COLOR: '0'})).toBe(false)
    expect(useColor(pipe, {FORCE_COLOR: ''})).toBe(false)
    expect(useColor(tty, {FORCE_COLOR: '0'})).toBe(true)
  })
})

describe('style', () => {
  it('opens and closes each colour with its own SGR pair', () => {
    expect(style('green', 'x')).toBe('\u001B[32mx\u001B[39m')
    expect(style('red', 'x')).toBe('\u001B[31mx\u001B[39m')
    expect(style('yellow', 'x')).toBe('\u001B[33mx\u001B[39m')
    expect(style('cyan', 'x')).toBe('\u001B[36mx\u001B[39m')
    expect(style('dim', 'x')).toBe('\u001B[2mx\u001B[22m')
    expect(style('bold', 'x')).toBe('\u001B[1mx\u001B[22m')
    expect(styleIf(false, 'bold', 'x')).toBe('x')
    expect(styleIf(true, 'bold', 'x')).toBe('\u001B[1mx\u001B[22m')
  })

  it('paint follows useColor for the stream and the process environment', () => {
    const saved = {NO_COLOR: process.env.NO_COLOR, FORCE_COLOR: process.env.FORCE_COLOR}
    try {
      delete process.env.NO_COLOR
      process.env.FORCE_COLOR = '1'
      expect(paint('green', 'ok', pipe)).toBe('\u001B[32mok\u001B[39m')
      process.env.NO_COLOR = '1'
      expect(paint('green', 'ok', tty)).toBe('ok')
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k]
        else process.env[k] = v
      }
    }
  })
})

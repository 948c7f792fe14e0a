/**
 * oclif `command_not_found` hook: a mistyped command gets the closest real one, always in
 * the space form users type (`webhook info`, never `webhook:info`).
 *
 * - On an interactive terminal (stdin and stdout are TTYs, not CI) it hands over to
 *   @oclif/plugin-not-found, which asks "Did you mean …?" and runs the command on yes.
 * - Otherwise it never prompts: one line with the suggestion, exit code 2 (bad input).
 *
 * A declined or cancelled prompt exits 2 as well (the plugin's own code is 127).
 */
import {toConfiguredId, type Hook} from '@oclif/core'

import {interactiveTerminal} from '../lib/ci.js'
import {closest} from '../lib/closest.js'

export {closest, distance} from '../lib/closest.js'

export function interactive(): boolean {
  return interactiveTerminal([process.stdin, process.stdout])
}

const hook: Hook.CommandNotFound = async function (options) {
  const {config, id} = options
  const bin = config.bin
  const typed = toConfiguredId(id, config)
  if (interactive()) {
    const {default: pluginHook} = await import('@oclif/plugin-not-found')
    try {
      return await pluginHook.call(this, options)
    } catch (error) {
      const exit = (error as {oclif?: {exit?: number}}).oclif?.exit
      if (exit !== 127) throw error
      process.stderr.write(`✗ ${typed} is not a ${bin} command.\n  See \`${bin} help\` for the commands.\n`)
      this.exit(2)
      return
    }
  }
  const hidden = new Set(config.commands.filter((c) => c.hidden).map((c) => c.id))
  const ids = [...config.commandIDs, ...config.commands.flatMap((c) => c.aliases)].filter((c) => !hidden.has(c))
  const suggestion = /(^|:)help(:|$)/.test(id) ? 'help' : closest(id, ids)
  const hint = suggestion ? ` Did you mean ${toConfiguredId(suggestion, config)}?` : ''
  // One line and a fix, like every other error of bot (base-command's format).
  process.stderr.write(`✗ ${typed} is not a ${bin} command.${hint}\n  See \`${bin} help\` for the commands.\n`)
  this.exit(2)
}

export default hook

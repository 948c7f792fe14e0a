/**
 * The `bot:` line of a chat script recorded in a session (`:save` in the offline chat, the inspector's "Save as
 * chat script"): `bot test` runs by default what `bot dev` would run without `--` (package.json's "bot".dev.command,
 * its dev:bot script, its entry file; docs/testing.md), so a script names its command only when the session's
 * differs from that.
 */
import {type BotCommand, resolveBotCommand} from '../dev/bot/command.js'
import {commandAfterDashes} from './dev-input.js'
import {botFolder} from './dev-options.js'

export function scriptBotCommand(
  command: BotCommand | undefined,
  argv: string[],
  fromPackage: string[] | undefined,
  cwd = process.cwd(),
): string | undefined {
  // without `--` the session runs the default command itself
  if (!command || commandAfterDashes(argv) === undefined) return undefined
  let fallback: BotCommand | undefined
  try {
    fallback = resolveBotCommand(fromPackage ?? [], botFolder(cwd, []).cwd)
  } catch {
    // no default command in this project: the script must name its own
  }
  return fallback?.display === command.display ? undefined : command.display
}

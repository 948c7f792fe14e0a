/**
 * What the fixture-based `bot trigger TYPE` commands share (photo, reaction, payment…): their flags,
 * their help text (which shows the fixture), and their run: the request is built and checked here
 * (exit 2, nothing sent), the session fills and delivers it.
 */
import {Flags} from '@oclif/core'

import {fixtureText, loadFixture, PLACEHOLDERS, placeholdersOf, type FixtureType} from '../control/fixtures.js'
import type {TriggerResult} from '../control/protocol.js'
import {runTrigger, type TriggerCommand} from './trigger-run.js'

export const fixtureFlags = {
  set: Flags.string({
    description: 'change a field of the fixture: path=value (repeatable; e.g. --set message.caption=hi)',
    multiple: true,
  }),
  file: Flags.string({description: 'a fixture of your own: a JSON file holding an Update (or {"update": …})'}),
  chat: Flags.string({description: 'chat id [default: the last chat the session saw; offline: yours]'}),
  user: Flags.string({description: 'user id [default: the last user the session saw; offline: you]'}),
  token: Flags.string({
    description: "bot token: picks that bot's session (never printed)",
    env: 'BOT_TOKEN',
    helpGroup: 'BOT API',
  }),
}

const SESSION_TEXT =
  "The session is the one of the bot of BOT_TOKEN (its id, no network call) or, without a token, the one started in this folder (or in a folder above it in the project); none running: exit 1. In webhook mode the update goes to the bot through the relay like one from Telegram; offline it is the emulator user's action. Prints a line per update delivered (the bot's answer, the time it took, each Bot API call that failed). Exit 1 when the bot answered with an error; exit 2 (nothing sent) for bad input. --json prints the inspector's entry."

/** The placeholders a fixture uses, explained (for its help). */
function placeholderText(types: FixtureType[]): string {
  const used = new Set(types.flatMap((t) => placeholdersOf(loadFixture(t).update)))
  return [...used]
    .filter((name) => PLACEHOLDERS[name])
    .map((name) => `{{${name}}}: ${PLACEHOLDERS[name]}`)
    .join('; ')
}

/** The DESCRIPTION of a fixture command: what it does, its fixture(s) and how to change them. */
export function fixtureDescription(intro: string, types: FixtureType[]): string {
  const fixtures = types
    .map((t) => `${types.length > 1 ? `${t.replace('member-', '')}:\n` : ''}${fixtureText(t)}`)
    .join('\n\n')
  const files = types.map((t) => `${t}.json`).join(', ')
  return `${intro}

The fixture (${files}, shipped with bot: \`bot trigger --list\` shows where) is filled by the running session: ${placeholderText(types)}. --set path=value changes a field before it is filled (the path may leave out the update type; a value is read as the fixture's type there, else as JSON when it parses, else as text); --file FILE.json replaces the whole fixture.

${fixtures}

${SESSION_TEXT}`
}

/** Runs `bot trigger TYPE`: builds and checks the request (exit 2), delivers it, prints the lines. */
export async function runFixture(
  cmd: TriggerCommand,
  type: FixtureType,
  flags: {set?: string[]; file?: string; chat?: string; user?: string; token?: string},
  argument?: string,
): Promise<TriggerResult> {
  const {fixtureRequest} = await import('../control/trigger-request.js')
  return runTrigger(cmd, flags, (who) =>
    fixtureRequest(type, {argument, sets: flags.set ?? [], file: flags.file, ...who}),
  )
}

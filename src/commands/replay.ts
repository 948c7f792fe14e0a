import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../cli/base-command.js'
import {sourceOf} from '../cli/config.js'
import {UsageError} from '../lib/errors.js'

export default class Replay extends BaseCommand<typeof Replay> {
  static summary = 'Deliver a recorded update again to the bot running under `bot dev`.'

  static description =
    `Re-delivers an update the running \`bot dev\` session recorded (its inspector lists them, with their update_id) as a new delivery: the bot sees it even though it already answered that update_id. --last replays the newest one. Updates of an earlier run of the session are found in its on-disk history.

The session is the one of the bot of BOT_TOKEN (its id, no network call) or, without a token, the one started in this folder (or in a folder above it in the project); none running: exit 1. Give exactly one of UPDATE_ID and --last (else exit 2).

Prints one line (the update, the bot's answer, the time it took), then each Bot API call that failed. Exit 1 when the bot answered with an error. --json prints the inspector's entry for the new delivery.`

  static examples = [
    {description: 'Replay the newest update', command: '<%= config.bin %> <%= command.id %> --last'},
    {description: 'Replay update 123456789', command: '<%= config.bin %> <%= command.id %> 123456789'},
    {
      description: 'Replay, then show the calls the bot made, as JSON',
      command: '<%= config.bin %> <%= command.id %> --last --json | jq .calls',
    },
  ]

  static args = {
    update_id: Args.string({description: 'update_id of a recorded update'}),
  }

  static flags = {
    last: Flags.boolean({description: 'replay the newest recorded update'}),
    token: Flags.string({
      description: "bot token: picks that bot's session (never printed)",
      env: 'BOT_TOKEN',
      helpGroup: 'BOT API',
    }),
  }

  async run() {
    const {parseId, replaySession, sessionToken} = await import('../control/client.js')
    const {args, flags} = this
    if ((args.update_id === undefined) === !flags.last)
      throw new UsageError(
        flags.last ? 'Both UPDATE_ID and --last were given.' : 'No update to replay: give UPDATE_ID or --last.',
        `Use \`${this.config.bin} replay UPDATE_ID\` or \`${this.config.bin} replay --last\`. Nothing was sent.`,
      )
    const updateId = flags.last
      ? 'last'
      : (parseId(args.update_id, 'UPDATE_ID', {
          nonNegative: true,
          example: `\`${this.config.bin} replay 123456789\``,
        }) as number)
    const token = sessionToken(flags.token, sourceOf('BOT_TOKEN', this.argv, 'token') === 'flag')
    const result = await replaySession(updateId, {token})
    for (const line of result.lines) this.log(line)
    if (!result.ok) process.exitCode = 1
    return result.entry
  }
}

import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {runTrigger} from '../../cli/trigger-run.js'

export default class TriggerUpdate extends BaseCommand<typeof TriggerUpdate> {
  static summary = 'Send any Update, written as JSON, to the bot running under `bot dev`.'

  static description =
    `Delivers the Update in FILE.json (- reads it from stdin) to the running \`bot dev\` session of this bot, with a new update_id (any update_id in the file is replaced), like one from Telegram: it shows in the session's log and inspector. The file holds one Update object with exactly one update type field: message, edited_message, callback_query, inline_query, my_chat_member, …

The session is the one of the bot of BOT_TOKEN (its id, no network call) or, without a token, the one started in this folder (or in a folder above it in the project); none running: exit 1. A missing file, bad JSON or an object that is not an update: exit 2, nothing sent.

Prints one line (the update, the bot's answer, the time it took), then each Bot API call that failed. Exit 1 when the bot answered with an error. --json prints the inspector's entry for the update.`

  static examples = [
    {description: 'Send the update in a file', command: '<%= config.bin %> <%= command.id %> edited-message.json'},
    {description: 'From stdin', command: '<%= config.bin %> <%= command.id %> - < edited-message.json'},
    {
      description: 'Replay an update saved by the inspector, as JSON',
      command: '<%= config.bin %> <%= command.id %> saved.json --json | jq .answer',
    },
  ]

  static args = {
    file: Args.string({description: 'JSON file holding one Update (- = stdin)', required: true}),
  }

  static flags = {
    token: Flags.string({
      description: "bot token: picks that bot's session (never printed)",
      env: 'BOT_TOKEN',
      helpGroup: 'BOT API',
    }),
  }

  async run() {
    const {readUpdateFile} = await import('../../control/request-files.js')
    return runTrigger(this, this.flags, async () => ({kind: 'update', update: await readUpdateFile(this.args.file)}))
  }
}

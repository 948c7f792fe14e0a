import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {runTrigger} from '../../cli/trigger-run.js'

export default class TriggerMessage extends BaseCommand<typeof TriggerMessage> {
  static summary = 'Send a text message from a user to the bot running under `bot dev`.'

  static description =
    `Delivers a synthetic message update (a new update_id) to the running \`bot dev\` session of this bot, like one from Telegram: it shows in the session's log and inspector, and in an --offline session it is that user's message in the emulator. A leading /command gets its bot_command entity, as Telegram marks it.

The user and chat are the last ones the session saw (a real update from Telegram; offline: you, the terminal user), unless --user or --chat say otherwise (a --user alone speaks in their private chat; a negative --chat is a group). A session that has seen nobody yet refuses (exit 1) without --chat: a made-up id could be a stranger's chat. The session is the one of the bot of BOT_TOKEN (its id, no network call) or, without a token, the one started in this folder (or in a folder above it in the project); none running: exit 1.

Prints one line (the update, the bot's answer, the time it took), then each Bot API call that failed. Exit 1 when the bot answered with an error. --json prints the inspector's entry for the update.`

  static examples = [
    {
      description: 'Send /start as the last user the session saw',
      command: '<%= config.bin %> <%= command.id %> /start',
    },
    {
      description: 'A message in a group, from user 42',
      command: '<%= config.bin %> <%= command.id %> "hello all" --chat -1001234567890 --user 42',
    },
    {
      description: 'The update and the calls the bot made for it, as JSON',
      command: '<%= config.bin %> <%= command.id %> hi --json',
    },
  ]

  static args = {
    text: Args.string({description: 'text of the message', required: true}),
  }

  static flags = {
    chat: Flags.string({description: 'chat id [default: the last chat the session saw; offline: yours]'}),
    user: Flags.string({
      description: 'user id of the sender [default: the last user the session saw, or the --chat id]',
    }),
    token: Flags.string({
      description: "bot token: picks that bot's session (never printed)",
      env: 'BOT_TOKEN',
      helpGroup: 'BOT API',
    }),
  }

  async run() {
    return runTrigger(this, this.flags, ({chatId, userId}) => ({kind: 'message', text: this.args.text, chatId, userId}))
  }
}

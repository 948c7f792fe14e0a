import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {runTrigger} from '../../cli/trigger-run.js'

export default class TriggerCallback extends BaseCommand<typeof TriggerCallback> {
  static summary = 'Press an inline button: send a callback_query to the bot running under `bot dev`.'

  static description =
    `Delivers a synthetic callback_query update (a new update_id) to the running \`bot dev\` session of this bot, as if the user pressed the inline button with this callback_data: on the bot's newest message in the chat that has such a button (the session saw the bot send it), or on the message --message-id. It shows in the session's log and inspector; in an --offline session it is that user's button press in the emulator. In webhook mode the bot's answerCallbackQuery for it is answered by the session's api proxy (Telegram does not know the made-up query id).

The user and chat are the last ones the session saw (offline: you), unless --user or --chat say otherwise (a negative --chat is a group); a session that has seen none needs --chat. The session is the one of the bot of BOT_TOKEN (its id, no network call) or, without a token, the one started in this folder (or in a folder above it in the project); none running: exit 1.

Prints one line (the update, the bot's answer, the time it took), then each Bot API call that failed (an answerCallbackQuery that failed, for instance). Exit 1 when the bot answered with an error. --json prints the inspector's entry for the update.`

  static examples = [
    {
      description: 'Press the button "like:42" on the newest message that has it',
      command: '<%= config.bin %> <%= command.id %> like:42',
    },
    {
      description: 'The button "like:42" under message 7',
      command: '<%= config.bin %> <%= command.id %> like:42 --message-id 7',
    },
    {
      description: 'The same in a group, pressed by user 42',
      command: '<%= config.bin %> <%= command.id %> like:42 --message-id 7 --chat -1001234567890 --user 42',
    },
    {
      description: 'The update and the calls the bot made for it, as JSON',
      command: '<%= config.bin %> <%= command.id %> page:2 --message-id 12 --json',
    },
  ]

  static args = {
    data: Args.string({description: 'callback_data of the button (1-64 bytes)', required: true}),
  }

  static flags = {
    'message-id': Flags.string({
      description: "id of the bot's message that carries the button [default: the newest that has it]",
    }),
    chat: Flags.string({description: 'chat id [default: the last chat the session saw; offline: yours]'}),
    user: Flags.string({
      description: 'user id of the presser [default: the last user the session saw, or the --chat id]',
    }),
    token: Flags.string({
      description: "bot token: picks that bot's session (never printed)",
      env: 'BOT_TOKEN',
      helpGroup: 'BOT API',
    }),
  }

  async run() {
    const {parseId} = await import('../../control/client.js')
    const {flags} = this
    const messageId = parseId(flags['message-id'], '--message-id', {
      positive: true,
      example: '--message-id 7',
    })
    return runTrigger(this, flags, ({chatId, userId}) => ({
      kind: 'callback',
      data: this.args.data,
      messageId,
      chatId,
      userId,
    }))
  }
}

import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {sourceOf} from '../../cli/config.js'
import {UsageError} from '../../lib/errors.js'

export default class TriggerCallback extends BaseCommand<typeof TriggerCallback> {
  static summary = 'Press an inline button: send a callback_query to the bot running under `bot dev`.'

  static description =
    `Delivers a synthetic callback_query update (a new update_id) to the running \`bot dev\` session of this bot, as if the user pressed the inline button with this callback_data under the bot's message --message-id. It shows in the session's log and inspector; in an --offline session it is that user's button press in the emulator.

The user is 1111, in a private chat with the bot, unless --user or --chat say otherwise (a negative --chat is a group). The session is the one of the bot of BOT_TOKEN (its id, no network call) or, without a token, the one started in this folder; none running: exit 1.

Prints one line (the update, the bot's answer, the time it took), then each Bot API call that failed (an answerCallbackQuery that failed, for instance). Exit 1 when the bot answered with an error. --json prints the inspector's entry for the update.`

  static examples = [
    {
      description: 'Press the button "like:42" under message 7',
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
    'message-id': Flags.string({description: "(required) id of the bot's message that carries the button"}),
    chat: Flags.string({description: "chat id (default: the user's private chat; negative = a group)"}),
    user: Flags.string({description: 'user id of the presser [default: 1111, or the --chat id]'}),
    token: Flags.string({
      description: "bot token: picks that bot's session (never printed)",
      env: 'BOT_TOKEN',
      helpGroup: 'BOT API',
    }),
  }

  async run() {
    const {parseId, sessionToken, triggerSession} = await import('../../control/client.js')
    const {flags} = this
    if (flags['message-id'] === undefined)
      throw new UsageError(
        "--message-id is missing: the id of the bot's message that carries the button.",
        `Pass it, e.g. \`${this.config.bin} trigger callback ${this.args.data} --message-id 7\`. Nothing was sent.`,
      )
    const messageId = parseId(flags['message-id'], '--message-id', {
      positive: true,
      example: '--message-id 7',
    }) as number
    const chatId = parseId(flags.chat, '--chat', {example: '--chat 1111 or --chat -1001234567890'})
    const userId = parseId(flags.user, '--user', {positive: true, example: '--user 1111'})
    const token = sessionToken(flags.token, sourceOf('BOT_TOKEN', this.argv, 'token') === 'flag')
    const result = await triggerSession({kind: 'callback', data: this.args.data, messageId, chatId, userId}, {token})
    for (const line of result.lines) this.log(line)
    if (!result.ok) process.exitCode = 1
    return result.entry
  }
}

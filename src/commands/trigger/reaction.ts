import {Args} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {fixtureDescription, fixtureFlags, runFixture} from '../../cli/trigger-fixture.js'

export default class TriggerReaction extends BaseCommand<typeof TriggerReaction> {
  static summary = "React to the bot's newest message: send a message_reaction to the bot running under `bot dev`."

  static description = fixtureDescription(
    "Delivers a message_reaction from the user on the bot's newest message in the chat. Telegram sends these only to bots that ask for message_reaction in allowed_updates (and in groups, to administrators): offline the emulator applies those rules and says why it sent nothing.",
    ['reaction'],
  )

  static examples = [
    {description: 'React with a heart', command: '<%= config.bin %> <%= command.id %> ❤'},
    {description: 'React to message 42', command: '<%= config.bin %> <%= command.id %> 🔥 --set message_id=42'},
  ]

  static args = {
    emoji: Args.string({description: 'the emoji [default: 👍]'}),
  }

  static flags = fixtureFlags

  async run() {
    return runFixture(this, 'reaction', this.flags, this.args.emoji)
  }
}

import {Args} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {fixtureDescription, fixtureFlags, runFixture} from '../../cli/trigger-fixture.js'

export default class TriggerEditedMessage extends BaseCommand<typeof TriggerEditedMessage> {
  static summary = "Edit the user's newest message: send an edited_message to the bot running under `bot dev`."

  static description = fixtureDescription(
    'Delivers an edited_message: the newest message of the user in the chat (as the session saw it) with a new text and edit_date.',
    ['edited-message'],
  )

  static examples = [
    {
      description: 'The user corrects their last message',
      command: '<%= config.bin %> <%= command.id %> "hello, world"',
    },
    {
      description: 'Edit message 42 instead',
      command: '<%= config.bin %> <%= command.id %> "fixed" --set message_id=42',
    },
  ]

  static args = {
    text: Args.string({description: 'the new text [default: the old text, then " (edited)"]'}),
  }

  static flags = fixtureFlags

  async run() {
    return runFixture(this, 'edited-message', this.flags, this.args.text)
  }
}

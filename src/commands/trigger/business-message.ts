import {Args} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {fixtureDescription, fixtureFlags, runFixture} from '../../cli/trigger-fixture.js'

export default class TriggerBusinessMessage extends BaseCommand<typeof TriggerBusinessMessage> {
  static summary = 'A customer writes to a business account the bot serves: a business_message.'

  static description = fixtureDescription(
    "Delivers a business_message: a customer writes in a business account's chat, which the bot reads and answers through its business connection (the newest one the session saw). Offline the emulator connects a business account first (a business_connection update), so the bot's replies with business_connection_id work.",
    ['business-message'],
  )

  static examples = [
    {
      description: 'A customer asks a question',
      command: '<%= config.bin %> <%= command.id %> "Do you deliver on Sundays?"',
    },
    {
      description: 'Through a given connection',
      command: '<%= config.bin %> <%= command.id %> hi --set business_connection_id=AbCdEf123',
    },
  ]

  static args = {
    text: Args.string({description: "the customer's message"}),
  }

  static flags = fixtureFlags

  async run() {
    return runFixture(this, 'business-message', this.flags, this.args.text)
  }
}

import {Args} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {fixtureDescription, fixtureFlags, runFixture} from '../../cli/trigger-fixture.js'

export default class TriggerPollAnswer extends BaseCommand<typeof TriggerPollAnswer> {
  static summary = "Vote in the bot's newest poll: send a poll_answer to the bot running under `bot dev`."

  static description = fixtureDescription(
    "Delivers a poll_answer from the user for the bot's newest poll in the chat (its id from the bot's sendPoll, as the api proxy saw it).",
    ['poll-answer'],
  )

  static examples = [
    {description: 'Vote for the second option', command: '<%= config.bin %> <%= command.id %> 1'},
    {
      description: 'Several options in a poll of another id',
      command: '<%= config.bin %> <%= command.id %> --set option_ids=[0,2] --set poll_id=5123',
    },
  ]

  static args = {
    option: Args.string({description: 'index of the option chosen [default: 0]'}),
  }

  static flags = fixtureFlags

  async run() {
    return runFixture(this, 'poll-answer', this.flags, this.args.option)
  }
}

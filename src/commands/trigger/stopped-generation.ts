import {Args} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {fixtureDescription, fixtureFlags, runFixture} from '../../cli/trigger-fixture.js'

export default class TriggerStoppedGeneration extends BaseCommand<typeof TriggerStoppedGeneration> {
  static summary = "A user stops the bot's draft: a stopped_message_generation update (Bot API 10.3)."

  static description = fixtureDescription(
    'Delivers a stopped_message_generation: the user pressed the stop button of a draft the bot streamed with can_stop (sendMessageDraft) in their private chat.',
    ['stopped-generation'],
  )

  static examples = [
    {description: 'Stop draft 7', command: `<%= config.bin %> <%= command.id %> 7`},
    {description: 'In a topic', command: '<%= config.bin %> <%= command.id %> 7 --set message_thread_id=3'},
  ]

  static args = {
    draft_id: Args.string({description: 'the draft_id the bot streamed [default: 1]'}),
  }

  static flags = fixtureFlags

  async run() {
    return runFixture(this, 'stopped-generation', this.flags, this.args.draft_id)
  }
}

import {Args} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {fixtureDescription, fixtureFlags, runFixture} from '../../cli/trigger-fixture.js'

export default class TriggerWidgetQuery extends BaseCommand<typeof TriggerWidgetQuery> {
  static summary = 'A widget asks the bot: a widget_query (Bot API 10.4).'

  static description = fixtureDescription(
    "Delivers a widget_query from the user: the widget in the bot's newest message in their private chat sends data, which the bot answers with answerWidgetQuery.",
    ['widget-query'],
  )

  static examples = [
    {description: 'The widget sends its state', command: `<%= config.bin %> <%= command.id %> '{"move":"e4"}'`},
    {
      description: 'For an older widget message',
      command: '<%= config.bin %> <%= command.id %> tap --set message_id=42',
    },
  ]

  static args = {
    data: Args.string({description: 'what the widget sends (1-64 bytes) [default: tap]'}),
  }

  static flags = fixtureFlags

  async run() {
    return runFixture(this, 'widget-query', this.flags, this.args.data)
  }
}

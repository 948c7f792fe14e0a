import {Args} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {fixtureDescription, fixtureFlags, runFixture} from '../../cli/trigger-fixture.js'

export default class TriggerSharedWidgetQuery extends BaseCommand<typeof TriggerSharedWidgetQuery> {
  static summary = 'A shared widget asks the bot: a shared_widget_query (Bot API 10.4).'

  static description = fixtureDescription(
    'Delivers a shared_widget_query from the user: a shared widget (sent with sendWidget is_shared, then forwarded) sends data, which the bot answers with answerWidgetQuery.',
    ['shared-widget-query'],
  )

  static examples = [
    {description: 'The shared widget sends its state', command: `<%= config.bin %> <%= command.id %> '{"vote":1}'`},
    {
      description: 'For the bot’s own widget id',
      command: '<%= config.bin %> <%= command.id %> tap --set widget_id=w1',
    },
  ]

  static args = {
    data: Args.string({description: 'what the widget sends (1-64 bytes) [default: tap]'}),
  }

  static flags = fixtureFlags

  async run() {
    return runFixture(this, 'shared-widget-query', this.flags, this.args.data)
  }
}

import {Args} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {fixtureDescription, fixtureFlags, runFixture} from '../../cli/trigger-fixture.js'

export default class TriggerSubscription extends BaseCommand<typeof TriggerSubscription> {
  static summary = "A user's payment subscription changes: a subscription update (Bot API 10.2)."

  static description = fixtureDescription(
    'Delivers a subscription update from the user: their payment subscription to the bot was canceled, made active again, or a payment for it failed.',
    ['subscription'],
  )

  static examples = [
    {description: 'The user canceled', command: `<%= config.bin %> <%= command.id %> canceled`},
    {
      description: 'A failed renewal of another plan',
      command: '<%= config.bin %> <%= command.id %> failed --set invoice_payload=gold',
    },
  ]

  static args = {
    state: Args.string({description: 'the new state: canceled, active or failed [default: canceled]'}),
  }

  static flags = fixtureFlags

  async run() {
    return runFixture(this, 'subscription', this.flags, this.args.state)
  }
}

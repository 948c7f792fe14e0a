import {Args} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {fixtureDescription, fixtureFlags, runFixture} from '../../cli/trigger-fixture.js'

export default class TriggerWebAppData extends BaseCommand<typeof TriggerWebAppData> {
  static summary = 'A Mini App sends data to the bot (Telegram.WebApp.sendData): a web_app_data message.'

  static description = fixtureDescription(
    "Delivers a message with web_app_data from the user in their private chat: what a Mini App opened from the bot's keyboard button sends with Telegram.WebApp.sendData.",
    ['web-app-data'],
  )

  static examples = [
    {
      description: 'The Mini App sends an order',
      command: `<%= config.bin %> <%= command.id %> '{"item":"tea","qty":2}'`,
    },
    {
      description: 'From the button labelled Order',
      command: '<%= config.bin %> <%= command.id %> done --set web_app_data.button_text=Order',
    },
  ]

  static args = {
    data: Args.string({description: 'the data (up to 4096 bytes)'}),
  }

  static flags = fixtureFlags

  async run() {
    return runFixture(this, 'web-app-data', this.flags, this.args.data)
  }
}

import {Args} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {fixtureDescription, fixtureFlags, runFixture} from '../../cli/trigger-fixture.js'

export default class TriggerInline extends BaseCommand<typeof TriggerInline> {
  static summary = 'Send an inline query (@your_bot QUERY) to the bot running under `bot dev`.'

  static description = fixtureDescription(
    "Delivers an inline_query from the user. Its answerInlineQuery is answered by the session's api proxy in webhook mode (Telegram does not know the made-up query id).",
    ['inline'],
  )

  static examples = [
    {description: 'The user types @your_bot pizza', command: '<%= config.bin %> <%= command.id %> pizza'},
    {description: 'The second page of results', command: '<%= config.bin %> <%= command.id %> pizza --set offset=20'},
  ]

  static args = {
    query: Args.string({description: 'the text of the query [default: empty]'}),
  }

  static flags = fixtureFlags

  async run() {
    return runFixture(this, 'inline', this.flags, this.args.query)
  }
}

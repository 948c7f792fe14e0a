import {BaseCommand} from '../../cli/base-command.js'
import {fixtureDescription, fixtureFlags, runFixture} from '../../cli/trigger-fixture.js'

export default class TriggerPayment extends BaseCommand<typeof TriggerPayment> {
  static summary = "Pay the bot: a pre_checkout_query, the bot's answer, then a successful_payment."

  static description = fixtureDescription(
    "Runs a whole payment against the bot running under `bot dev`: the user pays the bot's newest invoice in their chat (its payload, currency and amount; Stars by default). The bot gets a pre_checkout_query and must answer it with answerPreCheckoutQuery within 10 seconds; ok: true, and it gets the successful_payment message; ok: false, and the payment is refused with its error_message. In webhook mode the query is made up, so the session's api proxy answers the bot's answerPreCheckoutQuery itself (and a refundStarPayment of the made-up charge); offline the emulator runs the payment (an invoice link with the fixture's values when the bot sent no matching invoice). Exit 1 when the payment did not go through.",
    ['payment'],
  )

  static examples = [
    {description: "Pay the bot's newest invoice", command: '<%= config.bin %> <%= command.id %>'},
    {
      description: 'Pay 50 Stars for "premium-30d"',
      command: '<%= config.bin %> <%= command.id %> --set total_amount=50 --set invoice_payload=premium-30d',
    },
    {description: 'The updates and the outcome, as JSON', command: '<%= config.bin %> <%= command.id %> --json'},
  ]

  static flags = fixtureFlags

  async run() {
    return runFixture(this, 'payment', this.flags)
  }
}

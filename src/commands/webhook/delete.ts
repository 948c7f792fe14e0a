import {Flags} from '@oclif/core'

import {apiFlags, BaseCommand} from '../../cli/base-command.js'
import {confirmOrRefuse} from '../../cli/confirm.js'
import {FixableError} from '../../lib/errors.js'
import {maskUrl} from '../../lib/mask-url.js'
import {mark, plural} from '../../cli/output.js'
import {readWebhook, removeWebhook} from '../../webhook/service.js'

export default class WebhookDelete extends BaseCommand<typeof WebhookDelete> {
  static summary = 'Delete the webhook (back to long polling); pending updates are kept.'

  static description =
    `Removes the webhook. Updates waiting for delivery stay in Telegram's queue and go to the next getUpdates call, so nothing is lost.

--drop-pending-updates also throws those updates away: the command says how many will be lost and asks first; --yes skips the question, and without a terminal it refuses unless --yes is given.`

  static examples = [
    {description: 'Back to long polling, keeping pending updates', command: '<%= config.bin %> <%= command.id %>'},
    {
      description: 'Throw pending updates away too (asks first)',
      command: '<%= config.bin %> <%= command.id %> --drop-pending-updates',
    },
    {description: 'In a script', command: '<%= config.bin %> <%= command.id %> --drop-pending-updates --yes --json'},
  ]

  static flags = {
    'drop-pending-updates': Flags.boolean({
      description: 'also drop every update waiting for delivery (asks first)',
      default: false,
    }),
    yes: Flags.boolean({char: 'y', description: 'do not ask before dropping pending updates', default: false}),
    ...apiFlags,
  }

  async run() {
    const {flags} = this
    const drop = flags['drop-pending-updates']
    const api = this.resolveApi()
    const client = this.createApi(api)
    const before = await readWebhook(client)
    const {devSessionFor} = await import('../../webhook/dev-session.js')
    const dev = devSessionFor(api.token, api.apiRoot)
    if (dev?.alive && dev.sameApiRoot && dev.webhookUrl && dev.webhookUrl === before.summary.url)
      this.logToStderr(
        `! \`${this.config.bin} dev\` (pid ${dev.pid}) set this webhook and is still running: without it, updates stop reaching that session.`,
      )
    const pending = before.summary.pendingUpdateCount

    if (drop) {
      const ok = await confirmOrRefuse({
        question: `Delete the webhook and drop ${plural(pending, 'pending update')}? They are lost for good.`,
        yes: flags.yes,
        action: `drop ${plural(pending, 'pending update')}`,
      })
      if (!ok) throw new FixableError('Cancelled: nothing changed.', {code: 'cancelled'})
    }

    const result = await removeWebhook(client, drop)
    // The path may be a secret (`bot dev`'s random one): masked here and in --json.
    const previousUrl = before.summary.url && maskUrl(before.summary.url)
    if (result.deleted)
      this.log(
        `${mark.ok()} Webhook deleted${previousUrl ? ` (was ${previousUrl})` : ''}. The bot is on long polling now.`,
      )
    else this.log(`${mark.ok()} No webhook was set; the bot is on long polling.`)
    if (drop) this.log(`  ${plural(pending, 'pending update')} dropped.`)
    else if (pending > 0)
      this.log(
        `  ${plural(pending, 'pending update')} kept: the next getUpdates call receives ${pending === 1 ? 'it' : 'them'}.`,
      )
    else this.log('  No pending updates.')

    return {
      ok: true as const,
      deleted: result.deleted,
      description: result.description,
      previousUrl,
      dropPendingUpdates: drop,
      droppedUpdates: drop ? pending : 0,
      pendingUpdateCount: drop ? 0 : pending,
    }
  }
}

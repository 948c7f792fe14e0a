import {apiFlags, BaseCommand} from '../../cli/base-command.js'
import {maskUrl} from '../../lib/mask-url.js'
import {mark, paint, rows} from '../../cli/output.js'
import {NOT_DEFAULT_UPDATE_TYPES, readWebhook} from '../../webhook/service.js'

export default class WebhookInfo extends BaseCommand<typeof WebhookInfo> {
  static summary = 'Show the webhook state and explain the last delivery error.'

  static description =
    `Shows the delivery mode (long polling or webhook), the webhook URL, how many updates wait for delivery, max connections, allowed update types, the IP address Telegram uses and whether a custom certificate was uploaded.

When Telegram failed to deliver an update, it shows the error, how long ago it happened, what it means and how to fix it (for example "Wrong response from the webhook: 401 Unauthorized" usually means the bot checks a different secret token).

The URL is shown with its path and query masked (https://host/webhook/AbCd…?…), in --json too: a path such as \`bot dev\`'s is a secret.

--json prints the data and nothing else on stdout.`

  static examples = [
    {description: 'Show the webhook state', command: '<%= config.bin %> <%= command.id %>'},
    {
      description: 'Against a local Bot API server',
      command: '<%= config.bin %> <%= command.id %> --api-root http://127.0.0.1:8081',
    },
    {
      description: 'Just the pending update count, with jq',
      command: '<%= config.bin %> <%= command.id %> --json | jq .pendingUpdateCount',
    },
  ]

  static flags = {...apiFlags}

  async run() {
    const api = this.resolveApi()
    const client = this.createApi(api)
    const {info, summary} = await readWebhook(client)
    const {devSessionFor} = await import('../../webhook/dev-session.js')
    const dev = devSessionFor(api.token, api.apiRoot)
    const devOwned =
      dev && dev.sameApiRoot && dev.webhookUrl !== undefined && dev.webhookUrl === summary.url ? dev : undefined

    const allowed =
      summary.allowedUpdates === null
        ? `default (all but ${NOT_DEFAULT_UPDATE_TYPES.join(', ')})`
        : summary.allowedUpdates.join(', ')
    const lines = rows(
      [
        ['Mode', summary.mode === 'polling' ? 'long polling (no webhook set: the bot calls getUpdates)' : 'webhook'],
        // The path may be a secret (`bot dev`'s random one): masked here and in --json.
        ['URL', summary.url ? maskUrl(summary.url) : undefined],
        ['Pending updates', String(summary.pendingUpdateCount)],
        ['Max connections', summary.maxConnections === null ? undefined : String(summary.maxConnections)],
        ['Allowed updates', allowed],
        ['IP address', summary.ipAddress ?? undefined],
        [
          'Certificate',
          summary.mode === 'webhook'
            ? summary.hasCustomCertificate
              ? 'custom (uploaded)'
              : 'none (public CA)'
            : undefined,
        ],
        [
          'Set by',
          devOwned
            ? `\`${this.config.bin} dev\` (pid ${devOwned.pid}, ${devOwned.alive ? 'running' : 'no longer running'})`
            : undefined,
        ],
      ],
      '',
    )
    for (const line of lines) this.log(line)

    if (summary.lastError) {
      const e = summary.lastError
      this.log('')
      this.log(`${mark.fail()} Last delivery error${e.age ? ` (${e.age})` : ''}: ${e.message}`)
      this.log(`  ${e.explanation.meaning}`)
      this.log(`  ${paint('bold', 'Fix:')} ${e.explanation.fix}`)
    } else if (summary.mode === 'webhook') {
      this.log('')
      this.log(`${mark.ok()} No delivery error reported.`)
    }
    if (devOwned && !devOwned.alive)
      this.log(
        `${mark.fail()} This webhook was left by a \`${this.config.bin} dev\` session that is gone (pid ${devOwned.pid}): updates go nowhere.\n  Fix: run \`${this.config.bin} dev\` again (it repairs this) or \`${this.config.bin} webhook delete\` (pending updates are kept).`,
      )
    if (summary.lastSynchronizationError)
      this.log(
        `${mark.warn()} Telegram reported a synchronization problem on its side ${summary.lastSynchronizationError.age}; it usually clears by itself.`,
      )
    if (
      summary.mode === 'webhook' &&
      summary.allowedUpdates &&
      summary.allowedUpdates.length > 0 &&
      !summary.allowedUpdates.includes('message')
    )
      this.log(`${mark.warn()} allowed updates exclude "message": the bot gets no ordinary messages.`)

    return {
      ...summary,
      url: summary.url && maskUrl(summary.url),
      devSession: devOwned ? {pid: devOwned.pid, running: devOwned.alive, startedAt: devOwned.startedAt} : null,
      webhookInfo: {...info, url: info.url && maskUrl(info.url)},
    }
  }
}

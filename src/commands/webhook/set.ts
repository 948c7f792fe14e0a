import {Args, Flags} from '@oclif/core'

import {apiFlags, BaseCommand} from '../../cli/base-command.js'
import {confirmOrRefuse} from '../../cli/confirm.js'
import {FixableError} from '../../lib/errors.js'
import {maskUrl} from '../../lib/mask-url.js'
import {mark, plural, rows} from '../../cli/output.js'
import {argvSecretWarning} from '../../cli/secrets.js'
import {applyWebhook, readWebhook} from '../../webhook/service.js'
import {validateWebhook} from '../../webhook/validate.js'

export default class WebhookSet extends BaseCommand<typeof WebhookSet> {
  static summary = "Set the bot's webhook URL (setWebhook), validated before the call."

  static description =
    `Registers URL with Telegram's setWebhook, with every parameter of the Bot API. Everything is checked before anything is sent: the URL (https, port 443, 80, 88 or 8443, not a local address), the secret token (1-256 of A-Z a-z 0-9 _ -), max connections (1-100), the update types and the certificate file (readable, at most 3 MiB). A bad value exits with code 2 and nothing is called.

With a local Bot API server or the emulator (--api-root), http URLs, any port and up to 100000 connections are allowed, as such a server does.

Pending updates are kept unless you pass --drop-pending-updates, which asks first (--yes to skip the question; required when there is no terminal).

The secret token can come from WEBHOOK_SECRET (in the environment or .env) instead of the flag: a flag's value is visible to other users of the machine in \`ps\`.`

  static examples = [
    {
      description: 'Production webhook with a secret the bot checks',
      command: '<%= config.bin %> <%= command.id %> https://bot.example.com/webhook --secret-token "$WEBHOOK_SECRET"',
    },
    {
      description: 'Only messages and button presses, at most 10 connections',
      command:
        '<%= config.bin %> <%= command.id %> https://bot.example.com/webhook --allowed-updates message,callback_query --max-connections 10',
    },
    {
      description: 'A self-signed certificate and a fixed IP',
      command:
        '<%= config.bin %> <%= command.id %> https://203.0.113.7:8443/hook --certificate ./public.pem --ip-address 203.0.113.7',
    },
    {
      description: 'Machine-readable result',
      command: '<%= config.bin %> <%= command.id %> https://bot.example.com/webhook --json',
    },
  ]

  static args = {
    url: Args.string({description: 'public HTTPS URL Telegram will POST updates to', required: true}),
  }

  static flags = {
    'secret-token': Flags.string({
      description:
        'secret Telegram sends in the X-Telegram-Bot-Api-Secret-Token header (1-256 of A-Z a-z 0-9 _ -); never printed',
      env: 'WEBHOOK_SECRET',
    }),
    'max-connections': Flags.string({
      description: 'most simultaneous connections Telegram opens (1-100; Telegram defaults to 40)',
    }),
    'allowed-updates': Flags.string({
      description: 'comma-separated update types to receive, e.g. message,callback_query ("" = the default set)',
    }),
    'drop-pending-updates': Flags.boolean({
      description: 'drop every update waiting for delivery (asks first)',
      default: false,
    }),
    'ip-address': Flags.string({description: 'fixed IPv4 address Telegram sends to instead of resolving the host'}),
    certificate: Flags.string({
      description: 'public key certificate file to upload (self-signed HTTPS; PEM, at most 3 MiB)',
    }),
    yes: Flags.boolean({char: 'y', description: 'do not ask before dropping pending updates', default: false}),
    ...apiFlags,
  }

  async run() {
    const {args, flags} = this
    this.addSecret(flags['secret-token'])
    const api = this.resolveApi()
    const webhook = validateWebhook(
      {
        url: args.url,
        secretToken: flags['secret-token'],
        maxConnections: flags['max-connections'],
        allowedUpdates: flags['allowed-updates'],
        ipAddress: flags['ip-address'],
        certificate: flags.certificate,
        dropPendingUpdates: flags['drop-pending-updates'],
      },
      {cloud: api.cloud},
    )
    // Valid input only (bad input is one line and a fix): the secret is about to be used.
    const inArgv = argvSecretWarning(this.argv, 'secret-token', 'WEBHOOK_SECRET')
    if (inArgv) process.stderr.write(`${inArgv}\n`) // also with --json (stdout stays JSON)
    const client = this.createApi(api)
    const before = await readWebhook(client)
    const {devSessionFor} = await import('../../webhook/dev-session.js')
    const dev = devSessionFor(api.token, api.apiRoot)
    if (dev?.alive && dev.sameApiRoot)
      this.logToStderr(
        `! \`${this.config.bin} dev\` (pid ${dev.pid}) runs for this bot and manages its webhook: it sets its own again when its tunnel reconnects and deletes the webhook when it stops.`,
      )

    if (webhook.dropPendingUpdates) {
      const n = before.summary.pendingUpdateCount
      const ok = await confirmOrRefuse({
        question: `Drop ${plural(n, 'pending update')}? They are lost for good.`,
        yes: flags.yes,
        action: `drop ${plural(n, 'pending update')}`,
      })
      if (!ok) throw new FixableError('Cancelled: nothing changed.', {code: 'cancelled'})
    }

    const result = await applyWebhook(client, webhook)
    // The URL it replaces may be a `bot dev` session's, whose path is a secret: masked. The new one
    // is the user's own argument, shown as given.
    const replaced = before.summary.url
    const previousUrl = replaced && maskUrl(replaced)
    const data = {
      ok: true as const,
      changed: result.changed,
      description: result.description,
      url: webhook.url,
      previousUrl,
      secretToken: webhook.secretToken !== undefined,
      maxConnections: webhook.maxConnections ?? null,
      allowedUpdates: webhook.allowedUpdates ?? null,
      ipAddress: webhook.ipAddress ?? null,
      certificate: webhook.certificate ? {path: webhook.certificate.path, bytes: webhook.certificate.bytes} : null,
      dropPendingUpdates: webhook.dropPendingUpdates,
      pendingUpdateCount: webhook.dropPendingUpdates ? 0 : before.summary.pendingUpdateCount,
      droppedUpdates: webhook.dropPendingUpdates ? before.summary.pendingUpdateCount : 0,
    }

    const head = result.changed
      ? `${mark.ok()} Webhook set: ${webhook.url}`
      : `${mark.ok()} Webhook already set to ${webhook.url} with these settings (nothing changed).`
    this.log(head)
    const lines = rows([
      ['replaces', previousUrl && replaced !== webhook.url ? previousUrl : undefined],
      [
        'secret token',
        webhook.secretToken === undefined
          ? 'none (anyone who knows the URL can post fake updates)'
          : `set (${webhook.secretToken.length} characters, not shown)`,
      ],
      [
        'max connections',
        webhook.maxConnections === undefined
          ? api.cloud
            ? 'Telegram default (40)'
            : 'server default'
          : String(webhook.maxConnections),
      ],
      [
        'allowed updates',
        webhook.allowedUpdates === undefined
          ? 'unchanged'
          : webhook.allowedUpdates.length === 0
            ? 'default set (all but chat_member, message_reaction, message_reaction_count)'
            : webhook.allowedUpdates.join(', '),
      ],
      ['ip address', webhook.ipAddress],
      [
        'certificate',
        webhook.certificate ? `${flags.certificate} (${webhook.certificate.bytes} bytes, uploaded)` : undefined,
      ],
      [
        'pending updates',
        webhook.dropPendingUpdates
          ? `${plural(data.droppedUpdates, 'update')} dropped`
          : `kept (${before.summary.pendingUpdateCount} waiting)`,
      ],
    ])
    for (const line of lines) this.log(line)
    this.log(`  Telegram: "${result.description}". Check delivery with \`${this.config.bin} webhook info\`.`)
    return data
  }
}

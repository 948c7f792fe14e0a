import {Flags} from '@oclif/core'

import {apiFlags, BaseCommand} from '../cli/base-command.js'
import {UsageError} from '../lib/errors.js'
import {loadSpinner, useColor as useColorOn, type Spinner} from '../cli/output.js'

export default class Dev extends BaseCommand<typeof Dev> {
  static summary = 'Run your bot locally in webhook mode behind a tunnel, and put it back on long polling on exit.'

  static description =
    `Opens a tunnel (--tunnel auto: cloudflared when on PATH, else localtunnel), starts a relay that checks Telegram's secret header, proves the public URL reaches it, calls setWebhook with that URL and a secret token, starts your bot with the env contract below, restarts it when files change, and on exit deletes the webhook (pending updates are kept) so the bot is back on long polling.

--tunnel none needs no public URL: no webhook is set; bot dev takes the updates with getUpdates and posts each to your bot like Telegram would. A tunnel that cannot be opened or kept falls back to exactly that, without restarting the bot (unless --tunnel X --no-fallback).

The bot command is what follows \`--\`; without one: "command" in package.json's "bot": {"dev": …} section, else package.json scripts["dev:bot"], else \`node --import tsx <main>\` (TypeScript) or \`node <main>\`, where main is package.json "main", else the first of src/main.ts, src/index.ts, index.js.

The bot gets BOT_TOKEN, BOT_API_ROOT (a local proxy that records its Bot API calls; with --no-api-proxy the api root, when not the default), BOT_MODE (webhook|polling) and, in webhook mode, PORT (listen there), WEBHOOK_PATH (serve POST there), WEBHOOK_SECRET (check X-Telegram-Bot-Api-Secret-Token) and WEBHOOK_URL.

Every update, the bot's answer and its Bot API calls are listed in the inspector, a page on 127.0.0.1 whose URL (with its key) is printed at start-up; a failing call also gets a line under its update. \`bot trigger\` and \`bot replay\` send the running session an update.

A webhook that \`bot dev\` did not set (production) is refused unless --force; with --force it is restored on exit. A session killed with SIGKILL is repaired by the next \`bot dev\`.`

  static examples = [
    {
      description: 'Try it first: no token, no network (the built-in Bot API emulator; chat in the terminal)',
      command: '<%= config.bin %> <%= command.id %> --offline',
    },
    {
      description: 'The same from a script: one message per line, exits once the replies are in',
      command: "printf '/start\\nhello\\n' | <%= config.bin %> <%= command.id %> --offline",
    },
    {description: 'Run the bot from package.json in webhook mode', command: '<%= config.bin %> <%= command.id %>'},
    {description: 'Any command', command: '<%= config.bin %> <%= command.id %> -- node bot.js'},
    {
      description: 'Your own public URL (a reverse proxy, cloudflared, ngrok) instead of localtunnel',
      command: '<%= config.bin %> <%= command.id %> --public-url https://dev.example.com -- npx tsx src/main.ts',
    },
    {description: 'Long polling instead of a webhook', command: '<%= config.bin %> <%= command.id %> --mode polling'},
    {
      description: 'Webhook mode without any public URL (behind a firewall)',
      command: '<%= config.bin %> <%= command.id %> --tunnel none',
    },
    {
      description: 'Take over a production webhook for a while and put it back on exit',
      command: '<%= config.bin %> <%= command.id %> --force --restore-secret "$PROD_SECRET"',
    },
  ]

  static strict = false

  static flags = {
    ...apiFlags,
    mode: Flags.string({description: 'how the bot gets updates', options: ['webhook', 'polling'], default: 'webhook'}),
    tunnel: Flags.string({
      description:
        'how updates reach the relay in webhook mode: auto (cloudflared when on PATH, else localtunnel), cloudflared, localtunnel, or none (no webhook: `bot dev` polls and posts each update to the bot)',
      options: ['auto', 'cloudflared', 'localtunnel', 'none'],
      env: 'BOT_TUNNEL',
      default: 'auto',
      helpGroup: 'TUNNEL',
    }),
    fallback: Flags.boolean({
      description:
        'when the tunnel cannot be opened or kept, deliver by polling through `bot dev` instead (--no-fallback with an explicit --tunnel stops instead)',
      default: true,
      allowNo: true,
      helpGroup: 'TUNNEL',
    }),
    'tunnel-host': Flags.string({
      description: 'localtunnel server to use [default: https://localtunnel.me]',
      env: 'BOT_TUNNEL_HOST',
      helpGroup: 'TUNNEL',
    }),
    subdomain: Flags.string({
      description: 'ask localtunnel for this subdomain',
      env: 'BOT_TUNNEL_SUBDOMAIN',
      helpGroup: 'TUNNEL',
    }),
    'public-url': Flags.string({
      description:
        'a public URL that already reaches this machine (no tunnel is opened); it must forward to the relay port given by --relay-port',
      env: 'BOT_PUBLIC_URL',
      helpGroup: 'TUNNEL',
      exclusive: ['tunnel-host', 'subdomain'],
    }),
    'relay-port': Flags.integer({
      description: 'local port of the relay (what the tunnel or --public-url forwards to) [default: a free port]',
      helpGroup: 'TUNNEL',
      min: 1,
      max: 65535,
    }),
    port: Flags.integer({description: "the bot's PORT [default: a free port]", min: 1, max: 65535}),
    watch: Flags.boolean({
      description: 'restart the bot when files change (node_modules, dist and .git are ignored)',
      default: true,
      allowNo: true,
    }),
    force: Flags.boolean({
      description: 'take over a webhook that bot dev did not set (restored on exit)',
      default: false,
    }),
    'restore-secret': Flags.string({
      description: 'secret_token of the webhook replaced with --force, set again when it is restored',
      env: 'BOT_RESTORE_SECRET',
    }),
    'allowed-updates': Flags.string({
      description: 'comma-separated update types for setWebhook, e.g. message,callback_query',
    }),
    'max-connections': Flags.integer({description: 'max_connections for setWebhook'}),
    'drop-pending-updates': Flags.boolean({
      description: 'drop the updates waiting in the queue (they are kept by default)',
      default: false,
    }),
    'hold-timeout': Flags.integer({
      description: 'seconds to hold an update while the bot (re)starts before answering 503 so Telegram retries',
      default: 30,
      min: 1,
    }),
    offline: Flags.boolean({
      description:
        'run against the built-in Bot API emulator: no token, no network; type messages in the terminal (stdin), see the replies',
      default: false,
      helpGroup: 'OFFLINE',
    }),
    'api-proxy': Flags.boolean({
      description:
        'give the bot a local proxy as BOT_API_ROOT that records each Bot API call (failures show under their update); --no-api-proxy passes the real api root',
      default: true,
      allowNo: true,
      helpGroup: 'INSPECTOR',
    }),
    inspect: Flags.boolean({
      description:
        'serve the inspector (updates, answers, calls, replay) on 127.0.0.1 with a random key; --no-inspect turns it off',
      default: true,
      allowNo: true,
      helpGroup: 'INSPECTOR',
    }),
    'inspect-port': Flags.integer({
      description: "the inspector's port on 127.0.0.1 [default: a free port]",
      min: 1,
      max: 65535,
      helpGroup: 'INSPECTOR',
    }),
    chat: Flags.integer({
      description: 'chat id of the terminal user (--offline) [default: the user id]',
      helpGroup: 'OFFLINE',
    }),
    user: Flags.integer({
      description: 'user id of the terminal user (--offline) [default: 1111]',
      helpGroup: 'OFFLINE',
      min: 1,
    }),
    // Tuning knobs for tests and odd networks.
    'tunnel-retries': Flags.integer({hidden: true, default: 5, min: 1}),
    'tunnel-timeout': Flags.integer({hidden: true, description: 'ms', default: 15_000}),
    'tunnel-backoff': Flags.integer({hidden: true, description: 'ms', default: 500}),
    'probe-interval': Flags.integer({hidden: true, description: 'ms', default: 10_000}),
    'tunnel-down-after': Flags.integer({hidden: true, description: 'ms', default: 10_000}),
    'stop-grace': Flags.integer({hidden: true, description: 'ms', default: 3000}),
    'action-timeout': Flags.integer({
      hidden: true,
      description: 'ms a trigger or replay waits for the bot',
      default: 30_000,
      min: 1,
    }),
    'reply-timeout': Flags.integer({
      hidden: true,
      description: 'ms the --offline chat waits for the bot to handle a line',
      default: 5000,
      min: 1,
    }),
    'webhook-check': Flags.integer({
      hidden: true,
      description: 'ms between getWebhookInfo checks',
      default: 20_000,
      min: 50,
    }),
    'poller-check': Flags.boolean({
      hidden: true,
      description: 'look for another poller before taking the updates',
      default: true,
      allowNo: true,
    }),
    debounce: Flags.integer({hidden: true, description: 'ms', default: 50}),
  }

  #guard: import('../cli/closed-output.js').OutputGuard | undefined
  #spinner: ((text: string) => Spinner) | undefined

  /** Defaults from package.json's "bot": {"dev": {…}} (flags > environment > .env > package.json), before parsing. */
  public async init(): Promise<void> {
    const {applyPackageConfig} = await import('../cli/package-config-hook.js')
    this.argv = await applyPackageConfig('dev', this.argv, this.ctor.flags)
    await super.init()
  }

  async run(): Promise<void> {
    const flags = this.flags
    const dashdash = this.argv.indexOf('--')
    const argvCommand = dashdash >= 0 ? this.argv.slice(dashdash + 1) : []
    const {argv: positional} = await this.parse(Dev)
    if (positional.length > argvCommand.length)
      throw new UsageError(
        `Unexpected argument ${JSON.stringify(positional[0])}: the bot command must follow \`--\`.`,
        'Run e.g. `bot dev -- node bot.js`.',
      )
    // Bad input exits 2 before anything is sent, set or started (src/cli/dev-input.ts, src/cli/ports.ts).
    const [{checkDevInput}, {checkInspectPort, checkPorts}] = await Promise.all([
      import('../cli/dev-input.js'),
      import('../cli/ports.js'),
    ])
    checkDevInput({
      argv: this.argv,
      holdTimeout: flags['hold-timeout'],
      nonEmpty: {
        'public-url': [flags['public-url'], 'BOT_PUBLIC_URL'],
        'tunnel-host': [flags['tunnel-host'], 'BOT_TUNNEL_HOST'],
        subdomain: [flags.subdomain, 'BOT_TUNNEL_SUBDOMAIN'],
      },
    })
    await checkPorts({port: flags.port, relayPort: flags['relay-port']})
    await checkInspectPort(flags['inspect-port'], {
      port: flags.port,
      relayPort: flags['relay-port'],
      inspect: flags.inspect,
    })
    if (flags.offline) return this.#offline(argvCommand)
    if (this.interactive) this.#spinner = await loadSpinner(process.stderr)

    const resolved = this.resolveApi()
    const cloud = resolved.apiRoot === 'https://api.telegram.org'
    const {validateAllowedUpdates, validateMaxConnections, validateSecretToken} = await import('../webhook/validate.js')
    const allowedUpdates =
      flags['allowed-updates'] !== undefined ? validateAllowedUpdates(flags['allowed-updates']) : undefined
    const maxConnections =
      flags['max-connections'] !== undefined ? validateMaxConnections(flags['max-connections'], {cloud}) : undefined
    const restoreSecret =
      flags['restore-secret'] !== undefined ? validateSecretToken(flags['restore-secret']) : undefined
    this.addSecret(restoreSecret)

    const [{runDevSession, resolveBotCommand}, tunnel] = await Promise.all([
      import('../dev/index.js'),
      import('../tunnel/index.js'),
    ])
    const command = resolveBotCommand(argvCommand, process.cwd())
    const mode = flags.mode as 'webhook' | 'polling'
    const choice = mode === 'webhook' ? await this.#chooseDelivery(tunnel) : undefined

    const api = this.createApi(resolved)
    const json = this.jsonEnabled()
    // A closed stdout/stderr (EPIPE) ends the session like SIGPIPE: teardown first, then exit.
    const closedOutput = new AbortController()
    const [{guardOutput}, {DevRenderer}] = await Promise.all([
      import('../cli/closed-output.js'),
      import('../cli/render/dev.js'),
    ])
    this.#guard = guardOutput([process.stdout, process.stderr], () => closedOutput.abort('SIGPIPE'))
    const renderer = new DevRenderer({
      redact: (t) => this.redact(t),
      spinner: this.#spinner,
      writable: (s) => this.#guard?.writable(s) ?? true,
    })
    const summary = await runDevSession({
      api,
      token: resolved.token,
      apiRoot: resolved.apiRoot,
      passApiRoot: !cloud,
      mode,
      tunnel: choice?.provider,
      bridge: choice?.bridge,
      fallback: choice?.fallback,
      webhookCheckMs: flags['webhook-check'],
      checkPollers: flags['poller-check'],
      signal: closedOutput.signal,
      relayPort: flags['relay-port'],
      command,
      cwd: process.cwd(),
      port: flags.port,
      watch: flags.watch,
      debounceMs: flags.debounce,
      force: flags.force,
      restoreSecret,
      allowedUpdates,
      maxConnections,
      dropPendingUpdates: flags['drop-pending-updates'],
      holdTimeoutMs: flags['hold-timeout'] * 1000,
      stopGraceMs: flags['stop-grace'],
      actionTimeoutMs: flags['action-timeout'],
      tunnelRetries: flags['tunnel-retries'],
      tunnelOpenTimeoutMs: flags['tunnel-timeout'],
      tunnelBackoffMs: flags['tunnel-backoff'],
      probeIntervalMs: flags['probe-interval'],
      apiProxy: flags['api-proxy'],
      inspect: flags.inspect,
      inspectPort: flags['inspect-port'],
      handleSignals: true,
      onEvent: json ? (e) => this.#json(e) : (e) => renderer.render(e),
    }).finally(() => {
      renderer.stop()
      this.#guard?.dispose()
    })
    process.exitCode = summary.exitCode
    // Anything still open (a stuck socket, an emergency exit) must not keep us alive.
    setTimeout(() => process.exit(summary.exitCode), 300).unref()
  }

  /** `bot dev --offline`: the same session against the in-process emulator, with the terminal chat. */
  async #offline(argvCommand: string[]): Promise<void> {
    const flags = this.flags
    const {validateAllowedUpdates} = await import('../webhook/validate.js')
    const [{resolveBotCommand}, {runOfflineDev}] = await Promise.all([
      import('../dev/index.js'),
      import('../offline/index.js'),
    ])
    const json = this.jsonEnabled()
    const summary = await runOfflineDev({
      mode: flags.mode as 'webhook' | 'polling',
      command: resolveBotCommand(argvCommand, process.cwd()),
      cwd: process.cwd(),
      port: flags.port,
      relayPort: flags['relay-port'],
      watch: flags.watch,
      debounceMs: flags.debounce,
      allowedUpdates:
        flags['allowed-updates'] !== undefined ? validateAllowedUpdates(flags['allowed-updates']) : undefined,
      maxConnections: flags['max-connections'],
      dropPendingUpdates: flags['drop-pending-updates'],
      holdTimeoutMs: flags['hold-timeout'] * 1000,
      stopGraceMs: flags['stop-grace'],
      actionTimeoutMs: flags['action-timeout'],
      chatId: flags.chat,
      userId: flags.user,
      replyTimeoutMs: flags['reply-timeout'],
      apiProxy: flags['api-proxy'],
      inspect: flags.inspect,
      inspectPort: flags['inspect-port'],
      input: process.stdin,
      // With --json the transcript is in the events; stdout carries only those.
      ...(json ? {} : {output: process.stdout, logOutput: process.stderr, color: useColorOn(process.stdout)}),
      handleSignals: true,
      onEvent: json
        ? (event) => this.#json(event as import('../dev/index.js').DevEvent)
        : (await import('../cli/render/dev.js')).offlineRenderer((t) => this.redact(t)),
    })
    process.exitCode = summary.exitCode
    setTimeout(() => process.exit(summary.exitCode), 300).unref()
  }

  /**
   * Which delivery webhook mode uses: --public-url, else --tunnel (auto: cloudflared when on PATH,
   * localtunnel when --tunnel-host/--subdomain ask for it or cloudflared is missing; none: the bridge).
   * A tunnel falls back to the bridge unless it was named explicitly with --no-fallback.
   */
  async #chooseDelivery(
    tunnel: typeof import('../tunnel/index.js'),
  ): Promise<{provider?: import('../tunnel/index.js').TunnelProvider; bridge?: boolean; fallback: boolean}> {
    const flags = this.flags
    if (flags['public-url']) {
      if (flags.tunnel !== 'auto')
        throw new UsageError(
          `--public-url and --tunnel ${flags.tunnel} both say how updates arrive.`,
          'Pass one of them: --public-url for your own URL, --tunnel for a tunnel or none.',
        )
      return {provider: tunnel.publicUrlProvider(tunnel.validatePublicUrl(flags['public-url'])), fallback: false}
    }
    let name = flags.tunnel
    if (name === 'none') return {bridge: true, fallback: false}
    const explicit = name !== 'auto'
    const fallback = !(explicit && !flags.fallback)
    const localtunnel = () =>
      tunnel.localtunnelProvider({
        host: flags['tunnel-host'] ? tunnel.validateTunnelHost(flags['tunnel-host']) : undefined,
        subdomain: flags.subdomain ? tunnel.validateSubdomain(flags.subdomain) : undefined,
        downAfterMs: flags['tunnel-down-after'],
      })
    if (name === 'auto')
      name = flags['tunnel-host'] || flags.subdomain ? 'localtunnel' : tunnel.resolveTunnelChoice('auto', process.env)
    if (name === 'localtunnel') return {provider: localtunnel(), fallback}
    return {provider: tunnel.createProvider(name, {env: process.env}), fallback}
  }

  #json(event: import('../dev/index.js').DevEvent): void {
    if (this.#guard && !this.#guard.writable(process.stdout)) return
    process.stdout.write(this.redact(JSON.stringify(event)) + '\n')
  }

  /** --json output is a stream of one-line events; an error ({ok:false,error}) is one line too. */
  public logJson(json: unknown): void {
    process.stdout.write(this.redact(JSON.stringify(json)) + '\n')
  }
}

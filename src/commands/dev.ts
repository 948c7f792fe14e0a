import {Flags} from '@oclif/core'

import {apiFlags, BaseCommand} from '../cli/base-command.js'
import {loadSpinner, useColor as useColorOn, type Spinner} from '../cli/output.js'
import {argvSecretWarning} from '../cli/secrets.js'

export default class Dev extends BaseCommand<typeof Dev> {
  static summary = 'Run your bot locally in webhook mode behind a tunnel, and put it back on long polling on exit.'

  static description =
    `Opens a tunnel (--tunnel auto: cloudflared when on PATH, else localtunnel), starts a relay that checks Telegram's secret header, proves the public URL reaches it, calls setWebhook with that URL and a secret token, starts your bot with the env contract below, restarts it when files change, and on exit deletes the webhook (pending updates are kept) so the bot is back on long polling.

--tunnel none needs no public URL: no webhook is set; bot dev takes the updates with getUpdates and posts each to your bot like Telegram would. A tunnel that cannot be opened or kept falls back to exactly that, without restarting the bot (unless --tunnel X --no-fallback).

The bot command is what follows \`--\`; without one: "command" in package.json's "bot": {"dev": …} section, else package.json scripts["dev:bot"], else \`node --import tsx <main>\` (TypeScript) or \`node <main>\`, where main is package.json "main", else the first of src/main.ts, src/index.ts, index.js.

The bot gets BOT_TOKEN, BOT_API_ROOT (a local proxy that records its Bot API calls; with --no-api-proxy the api root, when not the default), BOT_MODE (webhook|polling) and, in webhook mode, PORT (listen there), WEBHOOK_PATH (serve POST there), WEBHOOK_SECRET (check X-Telegram-Bot-Api-Secret-Token) and WEBHOOK_URL; with a public URL (the tunnel), WEB_APP_URL (the public URL + /app/: the relay forwards /app/ there to --web-app's dev server, else to the bot's own server, as in production).

--web-app URL (your Mini App's dev server, e.g. http://localhost:5173): the relay serves it at /app/ of the session's public URL (/app/<path> goes to the URL's path + <path>, with the Host the dev server expects; WebSocket upgrades pass, so Vite's hot reload works), the bot's default menu button opens it for the session (the previous one is put back on exit, and by the next run after a crash), and the bot gets WEB_APP_URL (the public URL + /app/). The polling bridge (--tunnel none) and --mode polling have no public URL: one line says so. Not with --offline.

Every update, the bot's answer and its Bot API calls are listed in the inspector, a page on 127.0.0.1 whose URL (with its key) is printed at start-up; a failing call also gets a line under its update. \`bot trigger\` and \`bot replay\` send the running session an update.

--json prints one JSON object a line, each an event with a "type" and a "text" (what the terminal shows): step (a start-up step: token, session, relay, tunnel, webhook, bot, watch, api-proxy, inspector), ready (mode, delivery, url, port, inspectorUrl, webAppUrl), web-app (url, devServer: where --web-app serves the app), update (an update and the bot's answer: updateId, updateType, chatId, status, ms), api-call (a failed Bot API call of the bot), rejected (a request the relay refused), bot-start, bot-listening, bot-output (a line the bot printed, stream and line), bot-exit (code, signal), restart (files), tunnel-down, tunnel-retry, tunnel-reconnected, fallback, mode-switch, warn (text and fix), info, teardown, and last summary (counts, durationMs, exitCode).

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
      description: 'Run no bot: forward each update to the server you run yourself (a debugger, a container)',
      command: '<%= config.bin %> <%= command.id %> --forward-to http://localhost:3000/webhook',
    },
    {
      description:
        "Develop a Mini App: its dev server served at the public URL's /app/, the menu button opening it (Vite: base '/app/')",
      command: '<%= config.bin %> <%= command.id %> --web-app http://localhost:5173/app/',
    },
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
  static packageSection = 'dev'

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
    'forward-to': Flags.string({
      description:
        'run no bot: forward each update to your own server at this http URL (started by you: a debugger, a container, another language), with the secret header; prints the environment it needs',
      helpGroup: 'TUNNEL',
    }),
    'web-app': Flags.string({
      description:
        "your Mini App's own dev server (e.g. http://localhost:5173): served at /app/ of the session's public URL (WebSockets too, so hot reload works), the bot's menu button opens it for the session (the previous one is put back on exit), the bot gets WEB_APP_URL",
      helpGroup: 'TUNNEL',
    }),
    'relay-port': Flags.integer({
      description: 'local port of the relay (what the tunnel or --public-url forwards to) [default: a free port]',
      helpGroup: 'TUNNEL',
      min: 1,
      max: 65535,
    }),
    port: Flags.integer({
      description:
        "the bot's PORT, kept across restarts (so a restart stops the old bot first) [default: a free port, a fresh one for each restart]",
      min: 1,
      max: 65535,
    }),
    watch: Flags.boolean({
      description:
        "restart the bot when source files change (not the files a bot writes: data, uploads, JSON in subfolders; node_modules, dist, .git, .venv, venv, __pycache__ and .gitignore's entries are ignored)",
      default: true,
      allowNo: true,
    }),
    ignore: Flags.string({
      description:
        'more for the file watcher to ignore, in .gitignore\'s syntax relative to the project (repeatable; adds to "bot": {"dev": {"ignore": [...]}} in package.json), e.g. --ignore "data/**"',
      multiple: true,
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
    'abandon-timeout': Flags.integer({
      hidden: true,
      description: 'ms a second Ctrl-C gives the parts to let go (the webhook delete among them) before exiting',
      default: 2000,
      min: 1,
    }),
    'open-code-ttl': Flags.integer({
      hidden: true,
      description: 'ms the one-time inspector link of o / :o stays valid',
      default: 60_000,
      min: 1,
    }),
    'action-timeout': Flags.integer({
      hidden: true,
      description: 'ms a trigger or replay waits for the bot',
      default: 30_000,
      min: 1,
    }),
    'reply-timeout': Flags.integer({
      description:
        'seconds the --offline chat waits for the bot to handle each line before it says so and sends the next',
      default: 5,
      min: 1,
      helpGroup: 'OFFLINE',
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
    'wait-for-fix': Flags.boolean({
      hidden: true,
      description:
        'when the bot exits before it is up (or right after a restart), wait for a file change even without a terminal (default: only on a terminal)',
      allowNo: true,
    }),
    debounce: Flags.integer({
      hidden: true,
      description:
        "ms: file changes this close together are one save (one restart). The restart starts at its first change; a bot started before the save's last change is replaced by one started after it",
      default: 50,
    }),
  }

  #guard: import('../cli/closed-output.js').OutputGuard | undefined
  #spinner: ((text: string) => Spinner) | undefined

  async run(): Promise<void> {
    const flags = this.flags
    const [options, {resolveBotCommand}] = await Promise.all([
      import('../cli/dev-options.js'),
      import('../dev/bot/command.js'),
    ])
    // Bad input exits 2 before anything is sent, set or started.
    const words = options.botCommandWords(this.argv, this.positional, this.packageConfig?.command)
    await options.checkDevFlags(flags, this.argv)
    // --forward-to: no bot process, so no bot command (one after `--` is refused).
    const forwardTo = options.forwardTarget(flags, this.argv)
    // --ignore adds to package.json's "ignore" (a flag given would otherwise replace its default).
    const fromPackage = (this.packageConfig?.defaults.ignore as string[] | undefined) ?? []
    flags.ignore = [...new Set([...fromPackage, ...(flags.ignore ?? [])])]
    const {cwd, note} = forwardTo ? {cwd: process.cwd()} : options.botFolder(process.cwd(), this.argv)
    const command = forwardTo ? undefined : resolveBotCommand(words ?? [], cwd)
    if (note) this.#info(note)
    this.addSecret(forwardTo?.secret?.value)
    const terminal = options.atTerminal()
    // a chat script saved in this session names its command only when bot test would not run it by default
    const {scriptBotCommand} = await import('../cli/script-command.js')
    const scriptCommand = scriptBotCommand(command, this.argv, this.packageConfig?.command)
    if (flags.offline)
      return this.#offline({
        ...options.offlineOptions(flags, command, cwd, terminal, forwardTo),
        ...(scriptCommand ? {scriptCommand} : {}),
      })
    if (this.interactive) this.#spinner = await loadSpinner(process.stderr)

    const resolved = this.resolveApi()
    const api = this.createApi(resolved)
    const session = options.sessionOptions(flags, {
      api,
      token: resolved.token,
      apiRoot: resolved.apiRoot,
      cloud: resolved.cloud,
      command,
      forwardTo,
      cwd,
      terminal,
    })
    this.addSecret(session.restoreSecret)
    const inArgv = argvSecretWarning(this.argv, 'restore-secret', 'BOT_RESTORE_SECRET')
    if (inArgv) process.stderr.write(`${inArgv}\n`) // also with --json (stdout stays JSON)
    // The token check's getMe goes out now, while the session's modules load (it waits for nothing else).
    const me = api.getMe({timeoutMs: 30_000})
    me.catch(() => {}) // (the session's token step reports a failure)
    // A closed stdout/stderr (EPIPE) ends the session like SIGPIPE: teardown first, then exit.
    const closedOutput = new AbortController()
    const [{DevSession}, {guardOutput}, {DevRenderer}, keys] = await Promise.all([
      import('../dev/index.js'),
      import('../cli/closed-output.js'),
      import('../cli/render/dev.js'),
      import('../cli/dev-keys.js'),
    ])
    this.#guard = guardOutput([process.stdout, process.stderr], () => closedOutput.abort('SIGPIPE'))
    // Keys (r, o, c, q, h) in a terminal from start-up on (a bot that crashed at start needs `r`
    // before any Ready line); never with --json.
    const withKeys = !this.jsonEnabled() && process.stdin.isTTY === true
    const renderer = new DevRenderer({
      redact: (t) => this.redact(t),
      spinner: this.#spinner,
      writable: (s) => this.#guard?.writable(s) ?? true,
      readySuffix: withKeys ? keys.KEYS_HINT : undefined,
    })
    let keyboard: import('../cli/dev-keys.js').DevKeys | undefined
    const dev = new DevSession({
      ...session,
      ...(scriptCommand ? {scriptCommand} : {}),
      me,
      signal: closedOutput.signal,
      handleSignals: true,
      onEvent: this.jsonEnabled()
        ? (e) => this.#json(e)
        : (e) => {
            renderer.render(e)
            if (e.type === 'summary') keyboard?.stop()
          },
    })
    if (withKeys)
      keyboard = keys.startDevKeys({
        input: process.stdin,
        output: process.stderr,
        restart: () => dev.restartBot('r pressed'),
        open: () => {
          const say = (text: string) => renderer.render({type: 'info', text})
          if (flags.inspect && !dev.inspectorUrl) say('The inspector is not serving yet: press o again in a moment.')
          else void this.#openInspector(dev.inspectorUrl && dev.inspectorOpenUrl(), say)
        },
        openChat: () => {
          const say = (text: string) => renderer.render({type: 'info', text})
          if (!dev.chatUrl)
            say(
              flags.inspect
                ? 'The chat page is not serving yet: press w again in a moment.'
                : 'No chat page in this session (--no-inspect).',
            )
          else void this.#openChatPage(dev.chatOpenUrl(), say)
        },
        print: (text) => renderer.render({type: 'info', text}),
      })
    // Once the session stops, the terminal is given back before teardown prints.
    dev.signal.addEventListener('abort', () => keyboard?.stop(), {once: true})
    const summary = await dev.run().finally(() => {
      keyboard?.stop()
      renderer.stop()
      this.#guard?.dispose()
    })
    this.#exit(summary.exitCode)
  }

  /** `bot dev --offline`: the same session against the in-process emulator, with the terminal chat. */
  async #offline(options: Omit<import('../offline/index.js').OfflineDevOptions, 'input' | 'onEvent'>): Promise<void> {
    const {runOfflineDev} = await import('../offline/index.js')
    const json = this.jsonEnabled()
    const summary = await runOfflineDev({
      ...options,
      input: process.stdin,
      // With --json the transcript is in the events; stdout carries only those.
      ...(json ? {} : {output: process.stdout, logOutput: process.stderr, color: useColorOn(process.stdout)}),
      handleSignals: true,
      openInspector: (url, say) => void this.#openInspector(url, say),
      openChatPage: (url, say) => void this.#openChatPage(url, say),
      onEvent: json
        ? (event) => this.#json(event as import('../dev/index.js').DevEvent)
        : (await import('../cli/render/dev.js')).offlineRenderer((t) => this.redact(t)),
    })
    this.#exit(summary.exitCode)
  }

  /** The session's exit code; anything still open (a stuck socket, an emergency exit) must not keep us alive. */
  #exit(code: number): void {
    process.exitCode = code
    setTimeout(() => process.exit(code), 300).unref()
  }

  /** `o` (or `:o` in the offline chat): the inspector in the browser, or why not. */
  async #openInspector(url: string | undefined, say: (text: string) => void): Promise<void> {
    if (!url) return say('No inspector in this session (--no-inspect).')
    const {openUrl} = await import('../cli/open-url.js')
    const opened = await openUrl(url)
    say(
      opened.ok
        ? `Opening the inspector: ${url} (a link that works once, for a minute: a browser's command line is public)`
        : `Could not open a browser (${opened.program}: ${opened.error}); open ${url} yourself (it works once, for a minute).`,
    )
  }

  /** `w` (or `:w` in the offline chat): the chat page in the browser, with a one-time code as `o` does. */
  async #openChatPage(url: string | undefined, say: (text: string) => void): Promise<void> {
    if (!url) return say('No chat page in this session (--no-inspect).')
    const {openUrl} = await import('../cli/open-url.js')
    const opened = await openUrl(url)
    say(
      opened.ok
        ? `Opening the chat page: ${url} (a link that works once, for a minute: a browser's command line is public)`
        : `Could not open a browser (${opened.program}: ${opened.error}); open ${url} yourself (it works once, for a minute).`,
    )
  }

  /** A line of the CLI's own before the session starts (an `info` event with --json). */
  #info(text: string): void {
    if (this.jsonEnabled()) this.#json({type: 'info', text})
    else process.stderr.write(this.redact(text) + '\n')
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

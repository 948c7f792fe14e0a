import {Writable} from 'node:stream'

import {Flags} from '@oclif/core'

import {BaseCommand} from '../cli/base-command.js'
import {useColor} from '../lib/color.js'
import {UsageError, codeOf} from '../lib/errors.js'
import {allowInOutput, argvSecretWarning} from '../cli/secrets.js'

export default class Emulator extends BaseCommand<typeof Emulator> {
  static summary = 'Run the built-in Bot API emulator on its own (no token, no network).'

  static description =
    `Starts a local Bot API server that behaves like api.telegram.org (long polling with offsets and 409, webhooks with the secret header and retries, getWebhookInfo, the exact error envelope) with one fake bot, and prints the api root and the token to use. Point any bot at it with BOT_API_ROOT. Runs until Ctrl-C.

It serves bot clients and tests, never web pages: a request a page of another site makes (Origin, Sec-Fetch-Site) gets 403, and so does, on loopback, a Host that does not name it (DNS rebinding). With --host beyond loopback (e.g. 0.0.0.0 in docker-compose) any host name is served and one warning line says so.

With --talk, each line typed (or piped) on stdin is sent to the bot as a message from a user (--user ID, in chat --chat ID, as with \`bot dev --offline\`) and the bot's replies are printed; the emulator stops when stdin ends.`

  static examples = [
    {description: 'Start it on the local Bot API server port', command: '<%= config.bin %> <%= command.id %>'},
    {
      description: 'Machine-readable start-up line, any free port',
      command: '<%= config.bin %> <%= command.id %> --port 0 --json',
    },
    {
      description: 'Talk to a bot you run against it, from the terminal',
      command: '<%= config.bin %> <%= command.id %> --talk',
    },
    {
      description: 'Answer 429 Too Many Requests as Telegram does when the bot sends too fast',
      command: '<%= config.bin %> <%= command.id %> --flood-control',
    },
  ]

  static flags = {
    port: Flags.integer({
      description: 'port to listen on (0 = any free port)',
      default: 8081,
      min: 0,
      max: 65535,
      env: 'BOT_EMULATOR_PORT',
    }),
    host: Flags.string({
      description:
        'interface to listen on; beyond loopback (e.g. 0.0.0.0 in docker-compose) other machines can reach it and any host name is served',
      default: '127.0.0.1',
      env: 'BOT_EMULATOR_HOST',
    }),
    token: Flags.string({
      description:
        'accept this token instead of the built-in fake one (never printed; BOT_EMULATOR_TOKEN keeps it out of ps)',
      env: 'BOT_EMULATOR_TOKEN',
    }),
    username: Flags.string({description: 'username of the emulated bot', default: 'offline_dev_bot'}),
    cloud: Flags.boolean({
      description: "apply the cloud's webhook rules (https, ports 443/80/88/8443) instead of the local server's",
    }),
    'any-token': Flags.boolean({description: 'also accept any other well-formed token (each gets its own bot)'}),
    'flood-control': Flags.boolean({
      description:
        "apply Telegram's flood limits: 429 Too Many Requests past about 1 message/s per chat, 20/min per group, 30/s in all",
    }),
    'allow-private-urls': Flags.boolean({
      description:
        "with --host beyond loopback: still fetch files sent by URL from, and post webhooks to, loopback and private addresses (refused by default: the network could read this machine's loopback services through the emulator)",
    }),
    talk: Flags.boolean({
      description: 'send stdin lines to the bot as user messages and print its replies',
      helpGroup: 'TALK',
    }),
    // The same names, descriptions and defaults as `bot dev --offline`'s.
    chat: Flags.integer({
      description: 'chat id of the terminal user (--talk) [default: the user id]',
      helpGroup: 'TALK',
    }),
    user: Flags.integer({
      description: 'user id of the terminal user (--talk) [default: 1111]',
      helpGroup: 'TALK',
      min: 1,
    }),
  }

  /** The old spellings (`--chat` as the chat mode, `--chat-id`, `--user-id`) get one line naming the new flag, before oclif parses. */
  public async init(): Promise<void> {
    const {oldEmulatorFlag} = await import('../offline/standalone.js')
    const old = oldEmulatorFlag(this.argv)
    if (old) throw new UsageError(old.message, old.fix)
    await super.init()
  }

  async run(): Promise<void> {
    const {flags} = this
    if (flags.talk && this.jsonEnabled())
      throw new UsageError(
        '--talk and --json cannot be combined.',
        'Use --json alone for the start-up line, or --talk for a terminal chat.',
      )
    if (!flags.talk && (flags.chat !== undefined || flags.user !== undefined)) {
      const ids = [
        flags.chat === undefined ? '' : ` --chat ${flags.chat}`,
        flags.user === undefined ? '' : ` --user ${flags.user}`,
      ].join('')
      throw new UsageError(
        `--${flags.chat === undefined ? 'user' : 'chat'} only applies to the terminal chat (--talk).`,
        `Add --talk: \`bot emulator --talk${ids}\`.`,
      )
    }
    // An empty host would make the server listen on every interface: never by accident.
    if (flags.host.trim() === '')
      throw new UsageError(
        '--host is empty (that would listen on every interface).',
        'Leave --host out for 127.0.0.1, or name the interface, e.g. --host 127.0.0.1.',
      )
    if (flags.chat === 0)
      throw new UsageError('--chat 0 is not a chat id.', 'Use a positive id (private chat) or a negative one (group).')
    if (flags.token !== undefined) {
      const {inspectToken} = await import('../telegram/token.js')
      const shape = inspectToken(flags.token)
      const fromArgv = argvSecretWarning(this.argv, 'token', 'BOT_EMULATOR_TOKEN')
      if (!shape.valid)
        throw new UsageError(
          `${fromArgv ? '--token' : 'BOT_EMULATOR_TOKEN'} is not a well-formed bot token: ${shape.problem}.`,
          'Pass a token shaped like 123456:ABC… (digits, ":", 30+ of A-Z a-z 0-9 _ -), or omit --token to use the fake one.',
        )
      if (fromArgv) process.stderr.write(`${fromArgv}\n`) // also with --json (stdout stays JSON)
    }
    const {describeStandalone, EMULATOR_DOC, networkWarning, standaloneJson, startStandaloneEmulator} = await import(
      '../offline/standalone.js'
    )
    let running
    try {
      running = await startStandaloneEmulator({
        port: flags.port,
        host: flags.host,
        cloud: flags.cloud,
        token: flags.token,
        username: flags.username,
        acceptAnyToken: flags['any-token'],
        floodControl: flags['flood-control'],
        allowPrivateUrls: flags['allow-private-urls'],
      })
    } catch (error) {
      const code = codeOf(error)
      if (code === 'EADDRINUSE')
        throw new UsageError(
          `Port ${flags.port} on ${flags.host} is already in use.`,
          'Pick another with --port (0 = any free port), or stop what listens there.',
        )
      if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
        throw new UsageError(
          `Cannot listen on --host ${flags.host}: not an address of this machine.`,
          'Use 127.0.0.1 (the default) or ::1.',
        )
      throw error
    }

    // The chat page at / of the emulator's own port (docs/chat.md): the emulator's Host and cross-site checks apply.
    const {createChatPage} = await import('../chat/server.js')
    const chatPage = await createChatPage({
      emulator: running.emulator,
      token: running.bot.token,
      base: '/',
      exposeToken: true,
      user: {id: flags.user ?? 1111, first_name: 'You'},
      ...(flags.chat !== undefined ? {chatId: flags.chat} : {}),
    })
    running.emulator.servePage((req, res, path, search) => chatPage.handle(req, res, path, search))
    const chatUrl = `${running.apiRoot}/`

    const warning = networkWarning(running)
    if (warning) process.stderr.write(`${warning}\n`) // with --json too: stdout keeps its one JSON line

    const signalled = new Promise<NodeJS.Signals>((resolve) => {
      for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(s, () => resolve(s))
    })

    // The built-in fake token is no secret and must be shown; everything else stays redacted.
    const fake = running.tokenSource === 'fake' ? running.bot.token : undefined
    if (fake) allowInOutput(fake)
    const print = (line: string) => process.stdout.write(this.redactExcept(line, fake) + '\n')
    const control = running.emulator.controlApiRoot // the user side over HTTP, for tests in any language
    if (this.jsonEnabled()) print(JSON.stringify({...standaloneJson(running), controlApi: control, chatUrl}))
    else
      for (const line of describeStandalone(running, {talk: flags.talk}).toSpliced(
        3,
        0,
        `  control ${control}  (the user side over HTTP: ${EMULATOR_DOC})`,
        `  chat    ${chatUrl}  (the chat page: the bot as a Telegram client shows it, in your browser)`,
      ))
        print(line)

    let chat
    if (flags.talk) {
      const {startChat} = await import('../offline/chat.js')
      chat = startChat({
        emulator: running.emulator,
        token: running.bot.token,
        input: process.stdin,
        output: redactingStdout((text) => this.redactExcept(text, fake)),
        userId: flags.user, // default 1111, as in `bot dev --offline`
        chatId: flags.chat, // default: the user's private chat
        color: useColor(process.stdout),
      })
    }

    const ended = await Promise.race([
      signalled,
      chat ? chat.done.then(() => 'input-ended' as const) : new Promise<never>(() => {}),
    ])
    chat?.close()
    chatPage.close()
    await running.stop()
    if (!this.jsonEnabled() && ended !== 'input-ended') this.logToStderr('Emulator stopped.')
  }

  /** Redact tokens from a line, but keep `publicToken` (the built-in fake one) readable. */
  private redactExcept(line: string, publicToken: string | undefined): string {
    if (!publicToken) return this.redact(line)
    const hole = '\u0000offline-token\u0000'
    return this.redact(line.split(publicToken).join(hole)).split(hole).join(publicToken)
  }
}

/** stdout behind a redactor (the chat writes whole lines per write); keeps isTTY/columns for readline. */
function redactingStdout(redact: (text: string) => string): NodeJS.WritableStream {
  const out = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      process.stdout.write(redact(chunk.toString()), callback)
    },
  })
  Object.assign(out, {isTTY: process.stdout.isTTY, columns: process.stdout.columns, rows: process.stdout.rows})
  return out
}

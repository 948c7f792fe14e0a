import {availableParallelism} from 'node:os'
import {writeFileSync} from 'node:fs'
import {resolve} from 'node:path'

import {Flags} from '@oclif/core'

import {BaseCommand} from '../cli/base-command.js'
import {onInterrupt} from '../lib/interrupts.js'

export default class Test extends BaseCommand<typeof Test> {
  static summary =
    'Run chat scripts (*.chat.yml) against your bot, offline: what users do and what the bot must answer.'

  static description =
    `Plays each chat script against the bot, started as \`bot dev --offline\` starts it (the command from package.json's "bot".dev.command, its "dev:bot" script or its entry file; the words after \`--\`; or a script's own \`bot:\`), with the built-in Bot API emulator: no token, no network. Each script gets users and chats of its own, so --jobs of them run at once against one bot without seeing each other. Every step waits until the bot has handled the update (its webhook answered, or a getUpdates confirmed it) and went quiet; never a fixed sleep.

Without PATH, every *.chat.yml under the project (the folder of package.json) is run, except in node_modules, .git, dist, virtual environments and what .gitignore leaves out. A PATH may be a script or a folder.

Prints one line a script (✓ start.chat.yml  4 steps  82 ms); under a failure, the step's file:line, what it expected and what the bot did as a diff (- expected, + what the bot did), then the bot's output lines while it ran. --update rewrites the expectations of failing scripts from what the bot did (regular expressions that still match are kept, comments too), then runs them again. docs/testing.md describes the format.

Exit codes: 0 every script passed (or was updated), 1 a script failed or the bot did not start, 2 a script that cannot be read (file:line:column and the fix), no bot command, or no script.`

  static examples = [
    {description: 'Every chat script of the project', command: '<%= config.bin %> <%= command.id %>'},
    {description: 'Some of them', command: '<%= config.bin %> <%= command.id %> test/start.chat.yml test/shop/'},
    {
      description: 'The bot changed on purpose: write what it answers now into the scripts',
      command: '<%= config.bin %> <%= command.id %> --update',
    },
    {
      description: 'In CI: JUnit XML for the test report',
      command: '<%= config.bin %> <%= command.id %> --reporter junit --output test-results.xml',
    },
    {description: 'A bot in any language', command: '<%= config.bin %> <%= command.id %> -- python3 bot.py'},
    {
      description: 'The outcome as JSON',
      command: '<%= config.bin %> <%= command.id %> --json | jq \'.scripts[] | select(.status == "failed")\'',
    },
  ]

  static strict = false

  static flags = {
    jobs: Flags.integer({
      char: 'j',
      description: 'scripts played at once [default: the number of cores]',
      min: 1,
      max: 256,
    }),
    update: Flags.boolean({
      char: 'u',
      description: 'rewrite the expectations of failing scripts from what the bot did, then run them again',
      default: false,
    }),
    reporter: Flags.string({
      description: 'junit: JUnit XML (to --output, else on stdout instead of the lines)',
      options: ['default', 'junit'],
      default: 'default',
    }),
    output: Flags.string({char: 'o', description: 'the file --reporter junit writes'}),
    mode: Flags.string({
      description: 'how the bot gets updates [default: package.json\'s "bot".dev.mode, else webhook]',
      options: ['webhook', 'polling'],
    }),
    timeout: Flags.integer({
      description: 'seconds a step may wait for the bot to handle its update',
      default: 10,
      min: 1,
    }),
    'startup-timeout': Flags.integer({
      description: 'seconds the bot may take to start taking updates',
      default: 60,
      min: 1,
    }),
    'quiet-ms': Flags.integer({
      hidden: true,
      description: "ms the script's calls must stay quiet after the bot handled an update",
      min: 1,
    }),
  }

  async run(): Promise<void> {
    const flags = this.flags
    const [
      {readPackageConfig},
      dev,
      {botFolder},
      {commandAfterDashes},
      {resolveBotCommand},
      testing,
      {useColor, style},
    ] = await Promise.all([
      import('../cli/package-config.js'),
      import('./dev.js'),
      import('../cli/dev-options.js'),
      import('../cli/dev-input.js'),
      import('../dev/bot/command.js'),
      import('../testing/index.js'),
      import('../lib/color.js'),
    ])
    const {UsageError} = await import('../lib/errors.js')
    if (flags.output && flags.reporter !== 'junit')
      throw new UsageError('--output is the file of --reporter junit.', 'Add --reporter junit, or drop --output.')
    // The bot command as `bot dev` finds it; paths come before `--`, the command after it.
    const config = await readPackageConfig('dev', dev.default.flags as never)
    const afterDashes = commandAfterDashes(this.argv)
    const paths = this.positional.slice(0, this.positional.length - (afterDashes?.length ?? 0))
    const words = afterDashes ?? config?.command
    const {cwd} = botFolder(process.cwd(), this.argv)
    let command
    let noCommand
    try {
      command = resolveBotCommand(words ?? [], cwd)
    } catch (err) {
      if (!(err instanceof UsageError)) throw err
      noCommand = err
    }
    const files = testing.findChatScripts(paths.length > 0 ? process.cwd() : cwd, paths)
    if (files.length === 0)
      throw new UsageError(
        `No chat script (*${testing.SCRIPT_SUFFIX}) under ${cwd}.`,
        'Write one (docs/testing.md), or save a conversation with `:save NAME` in `bot dev --offline`.',
      )
    const mode = (flags.mode ?? (config?.defaults.mode as string | undefined) ?? 'webhook') as 'webhook' | 'polling'
    const json = this.jsonEnabled()
    const junitOnStdout = flags.reporter === 'junit' && !flags.output
    const lines = !json && !junitOnStdout
    const color = lines && useColor(process.stdout)
    const paint = {
      green: (t: string) => (color ? style('green', t) : t),
      red: (t: string) => (color ? style('red', t) : t),
      yellow: (t: string) => (color ? style('yellow', t) : t),
      dim: (t: string) => (color ? style('dim', t) : t),
    }
    // Ctrl-C or a CI's SIGTERM: the scripts stop, the bot is stopped, then the exit (130, 143, 129)
    const controller = new AbortController()
    const removeHandlers = onInterrupt((signal, code) => {
      interrupted = code
      controller.abort(new Error(`${signal}: stopping`))
    })
    let interrupted = 0
    const run = await testing
      .runChatTests({
        files,
        cwd,
        command,
        noCommand,
        mode,
        jobs: flags.jobs ?? availableParallelism(),
        update: flags.update,
        timeoutMs: flags.timeout * 1000,
        startupTimeoutMs: flags['startup-timeout'] * 1000,
        ...(flags['quiet-ms'] !== undefined ? {quietMs: flags['quiet-ms']} : {}),
        signal: controller.signal,
        onScript: (script) => {
          if (lines) for (const line of testing.scriptLines(script, paint)) this.log(line)
        },
      })
      .finally(() => {
        removeHandlers()
      })
    if (interrupted) {
      process.stderr.write('Interrupted.\n')
      process.exitCode = interrupted
      return
    }
    if (flags.reporter === 'junit') {
      const xml = testing.junitXml(run)
      if (flags.output) writeFileSync(resolve(flags.output), this.redact(xml))
      else process.stdout.write(this.redact(xml))
    }
    if (json) this.logJson(testing.runJson(run))
    else if (lines) this.log(testing.summaryLine(run, paint))
    process.exitCode = run.failed > 0 ? 1 : 0
  }
}

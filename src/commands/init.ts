import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../cli/base-command.js'
import {onTerminal} from '../lib/ci.js'
import {UsageError} from '../lib/errors.js'
import {loadSpinner, mark, paint} from '../cli/output.js'
import type {GitResult, InstallResult, PackageManager, ProjectPlan, TemplateName} from '../scaffold/index.js'

const TEMPLATE_NAMES = ['grammy', 'gramio', 'telegraf'] as const
const PMS = ['npm', 'pnpm', 'yarn', 'bun'] as const
const DEFAULT_DIR = 'my-bot'

export default class Init extends BaseCommand<typeof Init> {
  static summary = 'Create a new bot project from a template (grammY, GramIO or Telegraf).'

  static description =
    `Copies a TypeScript template (src/bot.ts for the handlers, src/main.ts for webhook or long polling) into DIR, installs its dependencies and creates a git repository with a first commit. The project runs under \`bot dev\` in webhook and polling mode, offline with \`bot dev --offline\`, and in production behind any HTTPS host or serverless platform (see its README).

DIR must be new or empty. With --force it may hold other files, but bot init never overwrites a file: when any template file exists already it lists them and writes nothing. The package name is DIR's name unless --name is given.

On a terminal, bot init asks for what is missing (folder, framework, token); with --yes, --json or when stdin is not a terminal it asks nothing and uses the defaults. The token goes to .env only (mode 0600, git-ignored) and is never printed; the prompt keeps it out of your shell history, which --token does not.`

  static examples = [
    {
      description: 'Create my-bot with grammY (asks for what is missing on a terminal)',
      command: '<%= config.bin %> <%= command.id %> my-bot',
    },
    {
      description: 'GramIO with pnpm, no questions',
      command: '<%= config.bin %> <%= command.id %> my-bot --template gramio --pm pnpm --yes',
    },
    {
      description: 'Telegraf with the token written to .env',
      command: '<%= config.bin %> <%= command.id %> shop-bot -t telegraf --token "$BOT_TOKEN"',
    },
    {
      description: 'Files only (CI, or to install later)',
      command: '<%= config.bin %> <%= command.id %> my-bot --no-install --no-git --yes',
    },
  ]

  static args = {
    dir: Args.string({description: `folder to create the project in [default: ${DEFAULT_DIR}]`}),
  }

  static flags = {
    template: Flags.string({
      char: 't',
      description: 'framework template [default: grammy; asked on a terminal]',
      options: [...TEMPLATE_NAMES],
    }),
    pm: Flags.string({
      description: 'package manager to install with [default: the one that ran bot, else npm]',
      options: [...PMS],
    }),
    name: Flags.string({description: "package name [default: DIR's name]"}),
    token: Flags.string({description: 'bot token from @BotFather, written to .env (mode 0600) and never printed'}),
    install: Flags.boolean({description: 'install dependencies', default: true, allowNo: true}),
    git: Flags.boolean({description: 'create a git repository with an initial commit', default: true, allowNo: true}),
    yes: Flags.boolean({char: 'y', description: 'ask no questions: use the defaults'}),
    force: Flags.boolean({description: 'allow a non-empty DIR (existing files are never overwritten)'}),
  }

  public async run(): Promise<unknown> {
    const scaffold = await import('../scaffold/index.js')
    const {flags, args} = this
    const ask = !flags.yes && !this.jsonEnabled() && onTerminal(process.stdin, process.stdout)

    const dir = args.dir ?? (ask ? await this.askDir() : DEFAULT_DIR)
    const template = (flags.template ??
      (ask ? await this.askTemplate(scaffold.TEMPLATES) : scaffold.DEFAULT_TEMPLATE)) as TemplateName
    const pm: PackageManager = (flags.pm as PackageManager | undefined) ?? scaffold.detectPackageManager()
    let token = flags.token
    if (token === '')
      throw new UsageError('--token is empty.', 'Pass the token from @BotFather, or leave the flag out.')

    // Everything is validated before the token question, so a bad folder or name fails at once.
    let plan: ProjectPlan = await scaffold.planProject({dir, template, pm, name: flags.name, token, force: flags.force})
    if (token === undefined && ask) {
      token = await this.askToken()
      if (token) {
        this.addSecret(token)
        plan = await scaffold.planProject({dir, template, pm, name: flags.name, token, force: flags.force})
      }
    }

    if (flags.token !== undefined)
      this.warnTokenInArgv(
        'leave --token out and paste the token at the prompt (bot init asks for it), or write BOT_TOKEN=… in .env yourself.',
      )
    const files = await scaffold.writeProject(plan)
    this.say(
      `${mark.ok()} Created ${plan.displayDir} from the ${plan.template.framework} template (${files.length} files${plan.hasToken ? ', token in .env' : ''})`,
    )

    let install: InstallResult | undefined
    if (flags.install) install = await this.install(scaffold, plan)

    let git: GitResult | undefined
    if (flags.git) {
      git = await scaffold.initGit(plan.dir)
      if (git.initialized)
        this.say(`${mark.ok()} Created a git repository${git.committed ? ' with an initial commit' : ''}`)
      if (git.note) this.say(`${mark.warn()} git: ${git.note}`)
    }

    const installed = install?.ok ?? false
    const next = scaffold.nextSteps(plan, installed)
    if (install && !install.ok) process.exitCode = 1

    if (this.jsonEnabled()) {
      return {
        dir: plan.dir,
        name: plan.name,
        template: plan.template.name,
        pm: plan.pm,
        files,
        installed,
        ...(install && !install.ok
          ? {
              installError: {
                message: install.error,
                retry: `cd ${scaffold.shellQuote(plan.displayDir)} && ${install.command}`,
              },
            }
          : {}),
        git: git?.initialized ?? false,
        next: next.map((s) => s.command),
      }
    }

    const width = Math.max(...next.map((s) => s.command.length))
    this.log('')
    this.log(paint('bold', 'Next steps:'))
    for (const step of next)
      this.log(
        step.note
          ? `  ${paint('cyan', step.command.padEnd(width))}   ${paint('dim', `# ${step.note}`)}`
          : `  ${paint('cyan', step.command)}`,
      )
    this.log('')
    this.log(`The project's README covers development, webhook mode in production, scaling and serverless hosting.`)
    return undefined
  }

  /** A status line on stdout (not with --json). */
  private say(line: string): void {
    if (!this.jsonEnabled()) this.log(line)
  }

  private async install(scaffold: typeof import('../scaffold/index.js'), plan: ProjectPlan): Promise<InstallResult> {
    const command = scaffold.pmCommands(plan.pm).install.join(' ')
    let spinner: {succeed(t: string): void; fail(t: string): void; stop(): void} | undefined
    if (this.interactive) spinner = (await loadSpinner(process.stderr))(`Installing dependencies (${command})…`)
    else if (!this.jsonEnabled()) this.logToStderr(`Installing dependencies (${command})…`)

    // Ctrl-C during the install: stop the package manager, say where things stand, exit 130.
    const cancel = new AbortController()
    const stopInterrupts = this.exitOnInterrupt(() => {
      cancel.abort()
      spinner?.stop()
      process.stderr.write(
        this.redact(
          `Install interrupted. The files are in place; install later with: cd ${scaffold.shellQuote(plan.displayDir)} && ${command}\n`,
        ),
      )
    })
    const result = await scaffold
      .installDependencies(plan.dir, plan.pm, {env: process.env, signal: cancel.signal})
      .finally(stopInterrupts)
    const seconds = (result.ms / 1000).toFixed(1)
    if (result.ok) {
      spinner?.succeed(`Installed dependencies with ${plan.pm} (${seconds} s)`)
      if (!spinner) this.say(`${mark.ok()} Installed dependencies with ${plan.pm} (${seconds} s)`)
      return result
    }
    spinner?.fail(`Could not install dependencies: ${result.error}`)
    if (!this.jsonEnabled()) {
      if (!spinner) this.logToStderr(`${mark.fail(process.stderr)} Could not install dependencies: ${result.error}`)
      if (result.outputTail) this.logToStderr(result.outputTail.replace(/^/gm, '  │ '))
      this.logToStderr(
        `  The files are in place. Retry with: cd ${scaffold.shellQuote(plan.displayDir)} && ${result.command}`,
      )
    }
    return result
  }

  /** Ctrl-C or Esc at a prompt: nothing has been written yet, say so and exit 130. */
  private async prompt<T>(question: (context: {signal: AbortSignal}) => Promise<T>): Promise<T> {
    const {ask} = await import('../cli/prompt.js')
    return ask(question, 'Cancelled: nothing was written.')
  }

  private async askDir(): Promise<string> {
    const {input} = await import('@inquirer/prompts')
    return this.prompt((context) =>
      input(
        {
          message: 'Project folder',
          default: DEFAULT_DIR,
          validate: (v) => v.trim().length > 0 || 'Enter a folder name',
        },
        context,
      ),
    )
  }

  private async askTemplate(templates: typeof import('../scaffold/index.js').TEMPLATES): Promise<string> {
    const {select} = await import('@inquirer/prompts')
    return this.prompt((context) =>
      select(
        {
          message: 'Framework',
          choices: templates.map((t) => ({name: t.framework, value: t.name, description: t.description})),
          default: templates[0].name,
        },
        context,
      ),
    )
  }

  private async askToken(): Promise<string | undefined> {
    const {password} = await import('@inquirer/prompts')
    const {inspectToken} = await import('../telegram/token.js')
    const value = await this.prompt((context) =>
      password(
        {
          message: 'Bot token (from @BotFather: https://t.me/BotFather; Enter to skip)',
          mask: '•',
          validate: (v) => {
            if (v.trim() === '') return true
            const shape = inspectToken(v.trim())
            return shape.valid || `That does not look like a bot token: ${shape.problem}`
          },
        },
        context,
      ),
    )
    return value.trim() || undefined
  }
}

import {Flags} from '@oclif/core'

import {apiFlags, BaseCommand, checkedApiRoot} from '../cli/base-command.js'
import {loadDotenv, sourceOf} from '../cli/config.js'
import {useColor} from '../lib/color.js'
import {UsageError} from '../lib/errors.js'

export default class Doctor extends BaseCommand<typeof Doctor> {
  static summary = 'Find what keeps the bot from getting its updates.'

  static description =
    `Checks, in parallel where they can: the configuration (token source and format, .env kept out of git, Node.js, api root), that the Bot API answers, that the token works (getMe), how updates are delivered (getWebhookInfo: long polling or a webhook, its last error explained, TLS of the webhook host), a \`bot dev\` that died and left its webhook set, other local processes holding the token (only one connected to the Bot API is a poller to stop; \`bot emulator\`, \`bot dev\`, shells and editors are named for what they are), and — unless --no-probe, and only without a webhook — another poller somewhere, found through 409 Conflict.

The probe sends getUpdates with limit 1 and no offset for --probe-seconds: nothing is confirmed and no update is lost, but it interrupts another poller's pending request (grammY and Telegraf stop polling on 409).

Each check is printed as soon as it and the checks before it are done (--json prints one document at the end). Webhook URLs are shown with their path masked (a \`bot dev\` path is a secret).

Every check has a time limit that ends its requests, and the whole run ends within 30 s (plus --probe-seconds when the probe runs), whatever the servers do. Ctrl-C stops it at once (exit code 130).

Exit code: 0 when nothing failed (warnings allowed), 1 when a check failed, 2 for bad flags, 130 when interrupted.`

  static examples = [
    {
      description: 'Every check, including a 5-second probe for other pollers',
      command: '<%= config.bin %> <%= command.id %>',
    },
    {
      description: 'Everything but the probe (while your bot runs)',
      command: '<%= config.bin %> <%= command.id %> --no-probe',
    },
    {
      description: 'Some checks, machine-readable',
      command: '<%= config.bin %> <%= command.id %> --only token,delivery --json',
    },
    {
      description: 'Against a local Bot API server',
      command: '<%= config.bin %> <%= command.id %> --skip poller-probe --api-root http://127.0.0.1:8081',
    },
    {description: 'The check ids', command: '<%= config.bin %> <%= command.id %> --list-checks'},
  ]

  static flags = {
    ...apiFlags,
    only: Flags.string({
      description: 'run only these checks (ids, comma-separated or repeated)',
      multiple: true,
      delimiter: ',',
    }),
    skip: Flags.string({description: 'do not run these checks', multiple: true, delimiter: ','}),
    'list-checks': Flags.boolean({description: 'list the checks (id and title) and exit'}),
    probe: Flags.boolean({
      description: 'probe for another poller with getUpdates (interrupts its pending request); --no-probe skips it',
      default: true,
      allowNo: true,
    }),
    'probe-seconds': Flags.integer({
      description: 'how long the poller probe listens (3-60: the Bot API holds a second 409 for 3 s)',
      default: 5,
      min: 3,
      max: 60,
    }),
  }

  public async run(): Promise<unknown> {
    const {CHECKS, doctorBoundMs, runDoctor, selectChecks} = await import('../doctor/index.js')
    const flags = this.flags

    if (flags['list-checks']) {
      const list = CHECKS.map((c) => ({id: c.id, title: c.title, needs: [...(c.needs ?? [])]}))
      if (this.jsonEnabled()) return {checks: list}
      const width = Math.max(...list.map((c) => c.id.length))
      for (const c of list)
        this.log(`${c.id.padEnd(width)}  ${c.title}${c.needs.length ? ` (after ${c.needs.join(', ')})` : ''}`)
      return undefined
    }

    // An explicit empty value is a mistake, not "the default" (an empty variable counts as unset).
    for (const name of ['token', 'api-root'] as const)
      if (flags[name] !== undefined && flags[name]!.trim() === '')
        throw new UsageError(
          `--${name} is empty.`,
          `Give --${name} a value, or leave the flag out${name === 'api-root' ? ' for https://api.telegram.org' : ''}.`,
        )
    const token = flags.token || undefined
    // (an empty --api-root was refused above)
    const rawRoot = checkedApiRoot(flags['api-root'])

    // Unknown --only/--skip ids are a usage error before anything starts.
    const selected = selectChecks(CHECKS, {only: flags.only, skip: flags.skip}).map((c) => c.id)
    const json = this.jsonEnabled()
    const {orderedReports} = await import('../doctor/stream.js')
    const {renderCheck, summaryLine} = await import('../cli/render/doctor.js')
    const color = useColor(process.stdout)

    // A spinner needs a real terminal width (ora misbehaves with 0 columns, as under `script`).
    const interactive = this.interactive && (process.stderr.columns ?? 0) >= 20
    const {default: ora} = interactive ? await import('ora') : {default: undefined}
    // discardStdin: false: ora's stdin discarder puts the terminal in raw mode, and ^C then never becomes SIGINT.
    const spinner = ora?.({
      text: 'Checking…',
      stream: process.stderr,
      color: useColor(process.stderr) ? 'cyan' : false,
      discardStdin: false,
    }).start()
    const interrupted = new AbortController()
    const stopInterrupts = this.exitOnInterrupt(() => {
      spinner?.stop()
      interrupted.abort()
    })
    const done: string[] = []
    // Text mode prints each check as soon as it and every check before it have finished.
    const printer = orderedReports(selected, (r) => {
      spinner?.clear()
      this.log(renderCheck(r, {color}))
      spinner?.render()
    })
    const probe = flags.probe
    const started = performance.now()
    let report
    try {
      report = await runDoctor(
        {
          token,
          tokenSource: token ? sourceOf('BOT_TOKEN', this.argv, 'token') : 'none',
          apiRoot: rawRoot,
          apiRootSource: flags['api-root'] ? sourceOf('BOT_API_ROOT', this.argv, 'api-root') : 'default',
          dotenvPath: loadDotenv().path,
          cwd: process.cwd(),
          env: process.env,
          probe,
          probeSeconds: flags['probe-seconds'],
        },
        {
          signal: interrupted.signal,
          totalTimeoutMs: doctorBoundMs({probe, probeSeconds: flags['probe-seconds']}),
          only: flags.only,
          skip: flags.skip,
          onResult: (r) => {
            done.push(r.id)
            if (!json) printer.push(r)
            if (spinner)
              spinner.text = `Checking… (${done.length} done${done.includes('poller-probe') || !flags.probe ? '' : `; the poller probe listens ${flags['probe-seconds']} s`})`
          },
        },
      )
    } finally {
      spinner?.stop()
      stopInterrupts()
    }
    if (!report.ok) process.exitCode = 1
    const result = {checks: report.checks, ok: report.ok}
    if (json) return result

    // Every report went through onResult; this only covers one that somehow did not.
    for (const r of report.checks) printer.push(r)
    this.log('')
    this.log(summaryLine(result.checks, {color, ms: performance.now() - started}))
    return undefined
  }
}

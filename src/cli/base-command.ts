import {Command, Errors, Flags, Interfaces} from '@oclif/core'

import {BotApiError} from '../telegram/errors.js'
import {BotApi, DEFAULT_API_ROOT, isCloudApiRoot, type BotApiOptions} from '../telegram/client.js'
import {checkTokenShape} from '../telegram/token.js'
import {isCI} from '../lib/ci.js'
import {closest} from '../lib/closest.js'
import {dotenvSearched, loadDotenv, loadedDotenv, sourceOf, type ValueSource} from './config.js'
import {readPackageConfig, withDefaults, type FlagDefinition, type PackageConfig} from './package-config.js'
import {redactSecrets} from '../telegram/redact.js'
import {argvSecretWarning, tokensInArgv} from './secrets.js'
import {FixableError, UsageError, codeOf} from '../lib/errors.js'
import {explainApiError} from '../telegram/explain.js'
import {errorLine} from './output.js'
import {isPromptCancel} from './prompt.js'
import {proxyProblem} from '../lib/proxy.js'
import {onInterrupt} from '../lib/interrupts.js'

export type BaseFlags<T extends typeof Command> = Interfaces.InferredFlags<
  (typeof BaseCommand)['baseFlags'] & T['flags']
>
export type BaseArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>

/** Flags for commands that talk to the Bot API. Spread into a command's `flags`. */
export const apiFlags = {
  token: Flags.string({
    description: 'bot token from @BotFather (never printed)',
    env: 'BOT_TOKEN',
    helpGroup: 'BOT API',
  }),
  'api-root': Flags.string({
    description: 'Bot API server [default: https://api.telegram.org]',
    env: 'BOT_API_ROOT',
    helpGroup: 'BOT API',
  }),
}

/** --api-root (else the default) without its trailing slashes; exit 2 when it is not an http(s) URL. */
export function checkedApiRoot(given: string | undefined): string {
  const apiRoot = (given ?? DEFAULT_API_ROOT).replace(/\/+$/, '')
  try {
    const u = new URL(apiRoot)
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme')
  } catch {
    throw new UsageError(
      `--api-root "${apiRoot}" is not an http(s) URL.`,
      'Use e.g. https://api.telegram.org or http://127.0.0.1:8081.',
    )
  }
  return apiRoot
}

export interface ResolvedApi {
  token: string
  tokenSource: ValueSource
  apiRoot: string
  apiRootSource: ValueSource
  /** True for api.telegram.org (cloud rules), false for a local Bot API server or the emulator. */
  cloud: boolean
}

/**
 * An oclif parse error, told by its class, not its text: oclif's CLIParseError family
 * (RequiredArgsError, UnexpectedArgsError, NonExistentFlagsError, FlagInvalidOptionError,
 * FailedFlagValidationError, …) are CLIErrors that carry the `parse` they failed; an error thrown by a
 * flag's own parse function is marked `oclif.exit = 2` by oclif (package.json's
 * `oclif.exitCodes.failedFlagParsing`), as is every CLIError left at oclif's default exit.
 */
function isParseError(err: Error & {oclif?: {exit?: number}}): boolean {
  return (err instanceof Errors.CLIError && 'parse' in err) || err.oclif?.exit === 2
}

/**
 * oclif's parse errors span several lines ("Missing 1 required arg:\nurl  description\nSee more
 * help with --help"): one line, "Missing 1 required arg: url — description".
 */
function oneLine(message: string): string {
  const lines = message
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^See more help with/i.test(l))
    .map((l) => l.replace(/\s{2,}/g, ' — '))
  if (lines.length <= 1) return lines[0] ?? message
  const [first, ...rest] = lines
  return `${first} ${rest.join('; ')}`
}

/**
 * The base of every command: loads .env before flags are parsed (flags > env > .env > the
 * command's section of package.json's "bot", see package-config.ts),
 * owns --json, redacts the token from everything it prints, and turns errors into one
 * clear line plus a fix.
 */
export abstract class BaseCommand<T extends typeof Command> extends Command {
  static enableJsonFlag = true
  static baseFlags = {}
  /** The section of package.json's "bot" whose keys are this command's flag defaults (e.g. "dev"). */
  static packageSection: string | undefined

  /** What package.json's "bot" section gave this command (its flag defaults and, for dev, the bot command). */
  protected packageConfig: PackageConfig | undefined

  protected flags!: BaseFlags<T>
  protected args!: BaseArgs<T>
  /** The arguments that are not flags (with `strict = false`, the words after `--` too). */
  protected positional: string[] = []
  #secrets: string[] = []

  /** " Did you mean --offline?" for oclif's NonExistentFlagsError on `--offlin` (its `flags`), or ''. */
  #flagSuggestion(err: Error): string {
    const flags = (err as {flags?: unknown}).flags
    const typed = Array.isArray(flags) && typeof flags[0] === 'string' ? flags[0] : undefined
    if (!typed) return ''
    const names: string[] = []
    const all = {
      ...(this.ctor.flags ?? {}),
      ...(this.ctor.baseFlags ?? {}),
      ...(this.ctor.enableJsonFlag ? {json: {}} : {}),
    }
    for (const [name, value] of Object.entries(all)) {
      const flag: {hidden?: boolean; allowNo?: boolean} = value
      if (flag.hidden) continue
      names.push(`--${name}`)
      if (flag.allowNo) names.push(`--no-${name}`)
    }
    const bare = typed.replace(/^-+/, '')
    const match = closest(`--${bare}`, names, Math.max(2, Math.floor(bare.length / 3)))
    return match ? ` Did you mean ${match}?` : ''
  }

  public async init(): Promise<void> {
    loadDotenv()
    if (process.env.BOT_TOKEN) this.#secrets.push(process.env.BOT_TOKEN)
    this.#secrets.push(...tokensInArgv(this.argv))
    await super.init()
    // Only BaseCommand's subclasses have packageSection; this.ctor is typed as oclif's Command.
    const section = 'packageSection' in this.ctor ? this.ctor.packageSection : undefined
    if (typeof section === 'string' && section)
      this.packageConfig = await readPackageConfig(
        section,
        this.ctor.flags as unknown as Record<string, FlagDefinition>,
      )
    const {args, flags, argv} = await this.parse({
      flags: withDefaults(this.ctor.flags, this.packageConfig),
      baseFlags: this.ctor.baseFlags,
      enableJsonFlag: this.ctor.enableJsonFlag,
      args: this.ctor.args,
      strict: this.ctor.strict,
    })
    this.flags = flags as BaseFlags<T>
    this.args = args as BaseArgs<T>
    this.positional = argv.map(String)
    const token: unknown = flags.token
    if (typeof token === 'string' && token) this.#secrets.push(token)
  }

  /** Token and api root from flags/env/.env; fails with a fix when no token is set. */
  protected resolveApi(): ResolvedApi {
    const flags = this.flags as {token?: string; 'api-root'?: string}
    const token = flags.token
    if (!token) {
      // Which .env files were looked for (a monorepo package reads the nearest one up to the repository's root).
      const searched = dotenvSearched()
      const files = searched ? `; ${searched}${loadedDotenv()?.path ? ', which has no BOT_TOKEN' : ''}` : ''
      throw new UsageError(
        `No bot token: pass --token or set BOT_TOKEN (in the environment or in .env${files}).`,
        'Get a token from @BotFather (/newbot) and put BOT_TOKEN=… in .env; `bot dev --offline` needs none.',
      )
    }
    const tokenSource = sourceOf('BOT_TOKEN', this.argv, 'token')
    const shape = checkTokenShape(
      token,
      tokenSource === 'flag' ? '--token' : tokenSource === '.env' ? 'BOT_TOKEN in .env' : 'BOT_TOKEN',
    )
    if (shape) throw new UsageError(shape.message, shape.fix)
    const apiRoot = checkedApiRoot(flags['api-root'])
    // Valid input only: the token is about to be used, and sits in `ps` for as long as this runs.
    if (tokenSource === 'flag') this.warnTokenInArgv()
    return {
      token,
      tokenSource,
      apiRoot,
      apiRootSource: flags['api-root'] ? sourceOf('BOT_API_ROOT', this.argv, 'api-root') : 'default',
      cloud: isCloudApiRoot(apiRoot),
    }
  }

  /**
   * A Bot API client for the resolved token and api root. With BOT_DEBUG set, one redacted
   * line per request and answer goes to stderr.
   */
  protected createApi(resolved: ResolvedApi = this.resolveApi(), options: Partial<BotApiOptions> = {}): BotApi {
    const badProxy = proxyProblem()
    if (badProxy) throw new UsageError(badProxy.message, badProxy.fix)
    this.addSecret(resolved.token)
    // Debug lines go to stderr even with --json (stdout stays clean), always redacted.
    const debug = process.env.BOT_DEBUG
      ? (line: string) => process.stderr.write(this.redact(`[debug] ${line}`) + '\n')
      : undefined
    const onRetry = ({method, retryAfter}: {method: string; retryAfter: number}) =>
      this.logToStderr(`… Telegram asked to slow down (429): retrying ${method} in ${retryAfter}s.`)
    return new BotApi({token: resolved.token, apiRoot: resolved.apiRoot, debug, onRetry, ...options})
  }

  /**
   * Ctrl-C (and SIGTERM, SIGHUP) end the command at once: `cleanup` runs (stop a spinner, abort
   * requests), one line says so, and the exit code is 130 (143, 129). For commands without a
   * teardown of their own. Returns a function that removes the handlers.
   */
  protected exitOnInterrupt(cleanup?: () => void): () => void {
    return onInterrupt((_signal, code) => {
      try {
        cleanup?.()
      } catch {
        // exiting anyway
      }
      try {
        process.stderr.write(`\n${this.jsonEnabled() ? 'Interrupted.' : errorLine('Interrupted.', process.stderr)}\n`)
      } catch {
        // a closed stderr must not keep us from exiting
      }
      process.exit(code)
    })
  }

  #tokenWarned = false

  /**
   * One line on stderr (also with --json: stdout stays JSON) when --token is in our part of the
   * command line, which every local user can read: it names BOT_TOKEN, as --secret-token names
   * WEBHOOK_SECRET. `instead` replaces the advice when the command has a better place for it.
   */
  protected warnTokenInArgv(instead?: string): void {
    if (this.#tokenWarned) return
    const line = argvSecretWarning(this.argv, 'token', 'BOT_TOKEN')
    if (!line) return
    this.#tokenWarned = true
    process.stderr.write(`${instead ? line.replace(/: set .*$/, `: ${instead}`) : line}\n`)
  }

  /** Register another secret to redact from output (e.g. a webhook secret token). */
  protected addSecret(secret: string | undefined): void {
    if (secret) this.#secrets.push(secret)
  }

  protected redact(text: string): string {
    return redactSecrets(text, this.#secrets)
  }

  public log(message = '', ...args: unknown[]): void {
    super.log(this.redact(message), ...args)
  }

  public logToStderr(message = '', ...args: unknown[]): void {
    super.logToStderr(this.redact(message), ...args)
  }

  public logJson(json: unknown): void {
    process.stdout.write(this.redact(JSON.stringify(json, null, 2)) + '\n')
  }

  /**
   * Whether decorations (colours, spinners) belong on stderr: a terminal with a width (ora
   * redraws forever on a pty that reports 0 columns), no --json, not CI.
   */
  protected get interactive(): boolean {
    return Boolean(process.stderr.isTTY) && (process.stderr.columns ?? 0) > 0 && !this.jsonEnabled() && !isCI()
  }

  protected async catch(err: Error & {exitCode?: number; oclif?: {exit?: number}}): Promise<unknown> {
    // oclif's own exits (this.exit, --help, --version) pass through untouched.
    if (err.name === 'ExitError' || err.message?.startsWith('EEXIT')) throw err
    let message: string
    let fix: string | undefined
    let exit = 1
    let code = 'error'
    if (err instanceof BotApiError) {
      const flags = this.flags as {'api-root'?: string} | undefined
      const e = explainApiError(err, (flags?.['api-root'] ?? DEFAULT_API_ROOT).replace(/\/+$/, ''))
      message = e.message
      fix = e.fix
      code = err.kind === 'api' ? `api_${err.code}` : err.kind
    } else if (err instanceof FixableError) {
      message = err.message
      fix = err.fix
      exit = err.exitCode
      code = err.code
    } else if (codeOf(err) === 'EADDRINUSE') {
      // A port taken between the check and the listen (or by a path without a check): one line, exit 2.
      const {address, port} = err as {address?: string; port?: number}
      message = `${port ? `Port ${port}${address ? ` on ${address}` : ''}` : 'A port'} is already in use.`
      fix = 'Pick another port (or leave the port flag out for a free one), or stop the program that listens there.'
      exit = 2
      code = 'usage'
    } else if (isPromptCancel(err)) {
      // Ctrl-C / Esc at a question (an @inquirer error that was not turned into a FixableError): exit 130.
      message = 'Cancelled.'
      exit = 130
      code = 'cancelled'
    } else if (isParseError(err)) {
      // oclif parse errors: bad input, exit 2. A mistyped flag gets the closest one, as a mistyped command does.
      message = oneLine(err.message)
      const suggestion = this.#flagSuggestion(err)
      if (suggestion) message = `${message.replace(/[.\s]*$/, '')}.${suggestion}`
      fix = `See \`${this.config.bin} ${(this.id ?? '').replaceAll(':', ' ')} --help\` for usage.`.replace('  ', ' ')
      exit = 2
      code = 'usage'
    } else {
      message = err.message ?? String(err)
    }
    message = this.redact(message)
    fix = fix && this.redact(fix)
    if (this.jsonEnabled?.()) {
      this.logJson({ok: false, error: {code, message, ...(fix ? {fix} : {})}})
    } else {
      this.logToStderr(errorLine(message, process.stderr))
      if (fix) this.logToStderr(`  ${fix}`)
      if (process.env.BOT_DEBUG && err.stack) this.logToStderr(this.redact(err.stack))
    }
    process.exitCode = exit
    return this.exit(exit)
  }
}

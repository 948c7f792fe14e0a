/**
 * The shapes shared by the doctor's checks, its runner and the `bot doctor` command.
 * A check is one small module: a stable id, a title, optional `needs` (checks it waits for)
 * and `run(ctx)` returning a status, one detail and, for problems, a fix.
 */
import type {BotApi, User, WebhookInfo} from '../telegram/index.js'

export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skipped'

export interface CheckResult {
  status: CheckStatus
  /** What was found, in words a user can act on (may span several lines). Never holds the token. */
  detail: string
  /** What to do about a warning or a failure. */
  fix?: string
  /** Data for the checks that come after (not printed, not in --json). */
  data?: unknown
}

/** What the runner adds to any context it runs checks with. */
export interface RunnerContext {
  /**
   * The result of another selected check, once it has finished; undefined when that check is
   * not selected (--only/--skip). Lets a check use another's findings without a hard `needs`.
   */
  outcome: (id: string) => Promise<CheckResult | undefined>
}

export interface Check<C = DoctorContext> {
  readonly id: string
  readonly title: string
  /** Checks that must finish first; when one of them failed or was skipped, this one is skipped. */
  readonly needs?: readonly string[]
  /** Deadline for run(), in ms (default 20 s); past it the check fails with "did not finish". */
  timeoutMs?(ctx: C): number
  /**
   * Called as soon as the doctor starts, before `needs` are waited for: starts the network
   * requests this check will read (through the context's memoized calls), so that a check that
   * waits for another still costs no extra round trip.
   */
  prefetch?(ctx: C): void
  run(ctx: C): Promise<CheckResult>
}

/** Where a setting's value came from. */
export type Source = 'flag' | 'env' | '.env' | 'default' | 'none'

export interface DoctorOptions {
  /** Undefined when no token was given anywhere. */
  token?: string
  tokenSource: Source
  apiRoot: string
  apiRootSource: Source
  /** Absolute path of the .env file read at start-up, when there is one. */
  dotenvPath?: string
  cwd: string
  /** The environment the doctor looks at (proxies). */
  env: NodeJS.ProcessEnv
  /** Whether the 409 poller probe may run (false with --no-probe). */
  probe: boolean
  /** How long the probe polls, in seconds. */
  probeSeconds: number
}

export interface DoctorContext extends DoctorOptions, RunnerContext {
  /** A Bot API client for the token; undefined without a token. */
  api?: BotApi
  /** getMe, called at most once per doctor run. */
  me(): Promise<User>
  /** getWebhookInfo, called at most once per doctor run. */
  webhookInfo(): Promise<WebhookInfo>
  /** Remove the token (and its secret part) from any text. */
  redact(text: string): string
  /** Aborted when the doctor is interrupted. */
  signal: AbortSignal
}

/** One line of the report, as printed and as --json gives it. */
export interface CheckReport {
  id: string
  title: string
  status: CheckStatus
  detail: string
  fix: string | null
}

export interface DoctorReport {
  checks: CheckReport[]
  /** True when no check failed (warnings allowed). */
  ok: boolean
}

/**
 * Start-up checks of a session against what is already there: claim the per-bot state file
 * (refuse a live session), repair what a dead one left (its bot, its webhook), and decide about a
 * webhook that is set now (none, or a foreign one: refused unless --force).
 */
import {FixableError} from '../lib/errors.js'
import {maskUrl} from '../lib/mask-url.js'
import type {BotApi, User, WebhookInfo} from '../telegram/index.js'
import type {DevEventSink} from './events.js'
import {TUNNEL_MARKER_ENV} from '../tunnel/types.js'
import {orphanText, TUNNEL_WHAT} from './orphan.js'
import {isPidAlive, stopOrphan, type MarkedProcess} from '../session-store/processes.js'
import type {SessionWebhook} from './webhook/session-webhook.js'
import {
  claimState,
  readRestoreSecret,
  readState,
  saveRestoreSecret,
  writeState,
  type SessionState,
} from '../session-store/state.js'
import {classifyWebhook, describeWebhook, foreignWebhookError} from './webhook/operations.js'

/** Refuse when another live session owns this bot; return a dead one's state (to repair) and ours. */
export function claimSession(
  me: User,
  fresh: SessionState,
  dir: string,
): {state: SessionState; previous?: SessionState} {
  for (let attempt = 0; attempt < 3; attempt++) {
    const existing = readState(me.id, dir)
    if (existing && existing.pid !== process.pid && isPidAlive(existing.pid)) {
      throw new FixableError(
        `Another \`bot dev\` is already running for @${me.username ?? me.id}: pid ${existing.pid}, started ${existing.startedAt} in ${existing.cwd}.`,
        {
          code: 'session_running',
          fix: `Stop it first (Ctrl-C in its terminal, or \`kill ${existing.pid}\`): two sessions would fight over the webhook.`,
        },
      )
    }
    if (existing) {
      // Dead: keep its record for the repair, and take over the file.
      const state: SessionState = {
        ...fresh,
        ...(existing.webhook ? {webhook: existing.webhook} : {}),
        ...(existing.replaced ? {replaced: existing.replaced} : {}),
        ...(existing.menuButton ? {menuButton: existing.menuButton} : {}),
      }
      writeState(state, dir)
      return {state, previous: existing}
    }
    if (claimState(fresh, dir)) return {state: fresh}
  }
  throw new FixableError(`Could not claim the session file in ${dir}.`, {
    fix: 'Another `bot dev` is starting for this bot; try again.',
  })
}

export interface WebhookCheckContext {
  api: BotApi
  me: User
  stateDir: string
  mode: 'webhook' | 'polling'
  force?: boolean
  restoreSecret?: string
  stopGraceMs: number
  webhook: SessionWebhook
  signal: AbortSignal
  emit: DevEventSink
  saveState: (patch: Partial<SessionState>) => void
}

/** Repair a dead session, then look at the current webhook. Returns the step's text. */
export async function checkWebhook(c: WebhookCheckContext, previous: SessionState | undefined): Promise<string> {
  let info: WebhookInfo = await c.api.getWebhookInfo({signal: c.signal})
  let repairedText = ''
  if (previous) {
    // Its bots (the newest, and any other still running: a restart starts the new one beside the
    // old one) and its tunnel program, at once (each may take the grace period).
    const bots = [previous.bot, ...(Array.isArray(previous.others) ? previous.others : [])].filter(
      (p, i, all): p is MarkedProcess =>
        Boolean(p) && Number.isInteger(p!.pid) && all.findIndex((q) => q?.pid === p!.pid) === i,
    )
    const orphans: Array<{proc: MarkedProcess; what?: string; env?: string}> = [
      ...bots.map((proc) => ({proc})),
      ...(previous.tunnel ? [{proc: previous.tunnel, what: TUNNEL_WHAT, env: TUNNEL_MARKER_ENV}] : []),
    ]
    const outcomes = await Promise.all(orphans.map((o) => stopOrphan(o.proc, c.stopGraceMs, o.env)))
    for (const [i, {proc, what}] of orphans.entries()) {
      const outcome = outcomes[i]
      const text = orphanText(proc.pid, outcome, c.stopGraceMs, what)
      if (text)
        c.emit(
          outcome === 'survived'
            ? {type: 'warn', text, fix: `Stop it yourself: \`kill -KILL -${proc.pid}\`.`}
            : {type: 'info', text},
        )
    }
    if (classifyWebhook(info, previous) === 'ours') {
      // The dead session's webhook is still set: put back what it replaced, or delete it.
      const secret = previous.replaced ? (readRestoreSecret(c.me.id, c.stateDir) ?? c.restoreSecret) : undefined
      if (previous.replaced?.withSecret && !secret) {
        c.webhook.cleanFailed = true // keep the record for the next try
        throw new FixableError(
          `The previous \`bot dev\` (pid ${previous.pid}) died while it had replaced the webhook ${maskUrl(previous.replaced.url)}, and the secret_token to restore it with is gone.`,
          {
            code: 'restore_secret_missing',
            fix: `Run \`bot dev --restore-secret <production secret>\` to restore it whole, or \`bot webhook set <its URL> --secret-token <production secret>\`.`,
          },
        )
      }
      // (a failure keeps the record for the next try)
      await c.webhook.repair(previous.replaced, secret)
      const what = previous.replaced
        ? `restored the webhook it had replaced (${maskUrl(previous.replaced.url)})`
        : 'deleted its webhook (pending updates kept)'
      c.emit({
        type: 'repaired',
        pid: previous.pid,
        text: `Repaired: the previous \`bot dev\` (pid ${previous.pid}, started ${previous.startedAt}) died and left its webhook set; ${what}.`,
      })
      repairedText = ' (repaired a dead session)'
      c.saveState({webhook: undefined, replaced: undefined})
      info = await c.api.getWebhookInfo({signal: c.signal})
    } else c.saveState({webhook: undefined, replaced: undefined})
  }
  const owner = classifyWebhook(info, undefined)
  if (owner === 'none') return `No webhook set: the bot is on long polling${repairedText}`
  if (!c.force) throw foreignWebhookError(info, c.mode)
  const replaced = {...describeWebhook(info), ...(c.restoreSecret ? {withSecret: true} : {})}
  c.webhook.replaced = replaced
  if (c.restoreSecret) saveRestoreSecret(c.me.id, c.restoreSecret, c.stateDir)
  c.saveState({replaced})
  if (replaced.hasCustomCertificate)
    c.emit({
      type: 'warn',
      text: 'The webhook being replaced uses a self-signed certificate, which cannot be read back: it will be restored without it.',
      fix: 'Run `bot webhook set … --certificate FILE` after this session.',
    })
  if (!c.restoreSecret)
    c.emit({
      type: 'warn',
      text: 'No --restore-secret / BOT_RESTORE_SECRET: the replaced webhook will be restored without a secret_token.',
      fix: 'Pass --restore-secret with the production secret if your server checks it.',
    })
  return `Taking over the webhook ${maskUrl(info.url)} for this session (--force); it is restored on exit`
}

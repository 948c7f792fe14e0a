/**
 * web-app (`bot dev --web-app URL`): the bot's default menu button opens the app for the session. It comes after the
 * delivery, once the public URL is known (the relay serves the dev server at its `/app/`, relay/app.ts), so the
 * reverse teardown puts the previous button back first, while the session still holds the bot. The button is held
 * through the session state like the webhook (menu-button.ts): recorded before it is set, restored on exit, repaired
 * by a later run after a crash (repairMenuButton, called by webhook-check). A reopened tunnel with a new URL moves the
 * button to it. Without a public URL (the polling bridge, polling) one line says so and points to the chat page.
 */
import {maskUrl} from '../../lib/mask-url.js'
import {restoreMenuButton} from '../menu-button.js'
import type {SessionContext, SessionPart} from '../part.js'
import {abandonWindow} from '../options.js'
import {errorMessage} from '../render.js'

/** How long restoring may take at exit. */
const RESTORE_MS = 3000

const REPAIR_FIX = 'Run `bot dev` again (it puts the previous menu button back), or set it with @BotFather.'

export function webAppPart(): SessionPart {
  let ctx: SessionContext | undefined
  return {
    name: 'web-app',
    stopMinMs: RESTORE_MS + 1000,
    async start(c) {
      ctx = c
      if (!c.options.webApp) return
      const devServer = c.options.webApp.url
      const url = c.webAppUrl()
      if (!url) {
        c.emit({
          type: 'web-app',
          devServer,
          text: `--web-app: this session has no public URL (${c.delivery?.name === 'bridge' ? 'the polling bridge' : 'polling'}), so ${devServer} is not served and the menu button is left as it is; open the app from the chat page instead (w, or \`bot dev --offline\`).`,
        })
        return
      }
      await c.step(
        'menu-button',
        'Setting the menu button to the web app…',
        () => c.menuButton.set(url, c.signal),
        () => `Menu button "Open app" → ${url} (your dev server ${devServer}); the previous one is put back on exit`,
      )
      c.emit({type: 'web-app', devServer, url, text: `Web app: ${url} → ${devServer} (WEB_APP_URL)`})
      // A reopened tunnel has a new URL: the button follows it.
      c.events.on('webhook-url', (webhookUrl) => {
        const moved = c.webAppUrl(webhookUrl)
        if (!moved || moved === c.menuButton.url || c.signal.aborted) return
        c.menuButton.set(moved, c.signal).then(
          () =>
            c.emit({type: 'web-app', devServer, url: moved, text: `Web app moved to ${moved}; menu button updated`}),
          (error: unknown) => {
            if (!c.signal.aborted)
              c.emit({type: 'warn', text: `Could not move the menu button to ${moved}: ${errorMessage(error)}`})
          },
        )
      })
    },
    async stop() {
      // (also without --web-app: a dead session's button whose repair failed at start)
      if (!ctx) return
      const {menuButton, emit} = ctx
      try {
        const result = await menuButton.restore(RESTORE_MS)
        if (result !== 'nothing') emit({type: 'teardown', step: 'menu-button', ok: true, text: restoredText(result)})
      } catch (error) {
        emit({
          type: 'teardown',
          step: 'menu-button',
          ok: false,
          text: `✗ Could not put the previous menu button back: ${errorMessage(error)}`,
        })
        emit({type: 'warn', text: 'The menu button still opens this (now closed) session’s app.', fix: REPAIR_FIX})
      }
    },
    async abandon() {
      if (!ctx) return
      const result = await ctx.menuButton.abandon(Math.max(1, abandonWindow(ctx.options) - 500))
      if (result === 'nothing') return
      if (typeof result === 'object')
        ctx.emit({
          type: 'warn',
          text: `Could not put the previous menu button back: ${errorMessage(result.error)}`,
          fix: REPAIR_FIX,
        })
      else ctx.emit({type: 'teardown', step: 'menu-button', ok: true, text: restoredText(result)})
    },
  }
}

function restoredText(result: 'restored' | 'left-foreign'): string {
  return result === 'restored'
    ? '✓ Menu button put back as it was'
    : 'The menu button was changed by someone else during this session: it is left as it is.'
}

/**
 * A dead session left its menu button set (its state file says so): put back the one it replaced, unless the button
 * changed since. A failure is said and the record kept: this session then restores it on exit (its own button,
 * if any, replaces the dead one's, the original kept as the one to put back), or the next run tries again.
 */
export async function repairMenuButton(ctx: SessionContext): Promise<void> {
  const record = ctx.previous?.menuButton
  if (!record) return
  try {
    const result = await restoreMenuButton(ctx.api, record, {timeoutMs: 10_000})
    ctx.saveState({menuButton: undefined})
    if (result === 'restored')
      ctx.emit({
        type: 'repaired',
        pid: ctx.previous!.pid,
        text: `Repaired: the previous \`bot dev\` (pid ${ctx.previous!.pid}) died and left the menu button on its app (${maskUrl(record.url)}); put the previous one back.`,
      })
  } catch (error) {
    ctx.menuButton.adopt(record)
    ctx.emit({
      type: 'warn',
      text: `Could not put back the menu button a dead session left: ${errorMessage(error)}`,
      fix: 'This session tries again on exit; or set it with @BotFather.',
    })
  }
}

/**
 * Runs the echo bot the way `bot dev` (and production) expects, from the environment:
 *   BOT_TOKEN       the token (required)
 *   BOT_API_ROOT    Bot API server (optional; `bot dev --offline` points it at the emulator)
 *   BOT_MODE        'webhook' → serve POST WEBHOOK_PATH on PORT, checking WEBHOOK_SECRET;
 *                   anything else → long polling
 * The CLI, not the bot, calls setWebhook/deleteWebhook.
 */
import {createServer} from 'node:http'

import {webhookCallback} from 'grammy'

import {createEchoBot, describeError} from './bot.js'

const token = process.env.BOT_TOKEN
if (!token) {
  console.error('BOT_TOKEN is not set. Run me with `bot dev` (or `bot dev --offline`), or set BOT_TOKEN.')
  process.exit(1)
}

const bot = createEchoBot(token, {apiRoot: process.env.BOT_API_ROOT})

if (process.env.BOT_MODE === 'webhook') {
  const port = Number(process.env.PORT ?? 8080)
  const path = process.env.WEBHOOK_PATH ?? '/webhook'
  const handle = webhookCallback(bot, 'http', {secretToken: process.env.WEBHOOK_SECRET || undefined})
  const server = createServer((req, res) => {
    if (req.method === 'POST' && req.url?.split('?')[0] === path) {
      handle(req, res).catch((error: unknown) => {
        // 500: Telegram (or the emulator) sends the update again later.
        console.error(`webhook handler failed: ${describeError(error)}`)
        if (!res.headersSent) res.writeHead(500)
        res.end()
      })
    } else {
      res.writeHead(404).end()
    }
  })
  server.listen(port, () => console.log(`echo-bot: webhook on :${port}${maskPath(path)}`))
  const stop = () => server.close(() => process.exit(0))
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
} else {
  const stop = () => void bot.stop()
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  await bot.start({onStart: (me) => console.log(`echo-bot: @${me.username} polling`)})
}

/** The webhook path is a secret (half of what a forger needs): logs show its first segment and at most 4 more characters. */
function maskPath(path: string): string {
  const bare = path.replace(/[?#].*$/s, '')
  const query = bare === path ? '' : '?…'
  const cut = bare.indexOf('/', 1)
  const lone = cut === -1
  const head = lone ? (bare.length <= 13 ? bare : '/') : bare.slice(0, cut + 1)
  const secret = lone ? (bare.length <= 13 ? '' : bare.slice(1)) : bare.slice(cut + 1)
  return head + (secret.length <= 4 ? secret : `${secret.slice(0, 4)}…`) + query
}

/**
 * How updates reach the bot. `bot dev` and production hosts set BOT_MODE:
 *   webhook  an HTTP server on PORT serves POST WEBHOOK_PATH (Telegram's secret header checked);
 *            whoever runs the bot registers the URL (`bot dev` does it; in production `bot webhook set`)
 *   polling  (default) long polling with getUpdates
 */
import {webhookHandler} from 'gramio'

import {createBot} from './bot.js'
import {close, createWebhookServer, hasSecret, listen} from './http.js'
import {configOrExit, fail, logError, onShutdown} from './lifecycle.js'

const config = configOrExit()
const bot = createBot({token: config.token, apiRoot: config.apiRoot, onError: logError})

if (config.webhook) {
  const {webhook} = config
  // `webhook: true` = webhook mode without calling setWebhook (the CLI or the deploy owns it).
  // It checks the token (getMe) before anything listens, so a wrong token fails at once.
  const me = await bot.start({webhook: true}).catch((err: unknown) => fail('The bot could not start', err, 'Check BOT_TOKEN (from @BotFather) and BOT_API_ROOT; `bot doctor` tells what is wrong.'))
  // GramIO's adapter checks the secret too; checking it first here also keeps a forged
  // request's body from ever being parsed. shouldWait: answer once the handlers have run
  // (like grammY and Telegraf), so an update is acknowledged only after it was handled.
  const handle = webhookHandler(bot, 'http', {secretToken: webhook.secret, shouldWait: true})
  const server = createWebhookServer(
    webhook,
    (req, res) => {
      if (!hasSecret(req, webhook.secret)) return void res.writeHead(401).end('secret token is invalid')
      return handle(req, res)
    },
    logError,
  )
  const port = await listen(server, webhook.port).catch((err: unknown) =>
    fail(`Could not listen on port ${webhook.port}`, err, 'Another process uses that port: stop it, or set PORT to a free one.'),
  )
  console.log(`@${me.username} is running (webhook: POST ${webhook.path} on port ${port})`)
  onShutdown(async () => {
    await close(server)
    await bot.stop()
  })
} else {
  // Long polling runs in the background until bot.stop().
  const me = await bot.start().catch((err: unknown) => fail('The bot could not start', err, 'Check BOT_TOKEN (from @BotFather) and BOT_API_ROOT; `bot doctor` tells what is wrong.'))
  console.log(`@${me.username} is running (long polling)`)
  onShutdown(() => bot.stop())
}

/**
 * How updates reach the bot. `bot dev` and production hosts set BOT_MODE:
 *   webhook  an HTTP server on PORT serves POST WEBHOOK_PATH (Telegram's secret header checked);
 *            whoever runs the bot registers the URL (`bot dev` does it; in production `bot webhook set`)
 *   polling  (default) long polling with getUpdates
 */
import {createBot} from './bot.js'
import {close, createWebhookServer, listen} from './http.js'
import {configOrExit, fail, logError, onShutdown} from './lifecycle.js'

const config = configOrExit()
const bot = createBot({token: config.token, apiRoot: config.apiRoot, onError: logError})

try {
  // Checks the token (getMe) before anything listens, so a wrong token fails at once.
  bot.botInfo = await bot.telegram.getMe()
} catch (err) {
  fail('The bot could not start', err, 'Check BOT_TOKEN (from @BotFather) and BOT_API_ROOT; `bot doctor` tells what is wrong.')
}

if (config.webhook) {
  const {webhook} = config
  // Telegraf's adapter answers 403 when the path or the secret header is wrong.
  const server = createWebhookServer(webhook, bot.webhookCallback(webhook.path, {secretToken: webhook.secret}), logError)
  const port = await listen(server, webhook.port).catch((err: unknown) =>
    fail(`Could not listen on port ${webhook.port}`, err, 'Another process uses that port: stop it, or set PORT to a free one.'),
  )
  console.log(`@${bot.botInfo.username} is running (webhook: POST ${webhook.path} on port ${port})`)
  onShutdown(() => close(server))
} else {
  onShutdown((): Promise<void> => {
    // stop() ends the polling loop; launch() resolves once the loop has finished.
    bot.stop('shutdown')
    return polling
  })
  // launch() resolves only when polling stops; the callback runs once it has started.
  const polling = bot
    .launch(() => console.log(`@${bot.botInfo?.username} is running (long polling)`))
    .catch((err: unknown) => fail('Long polling stopped', err, 'A 409 Conflict means another process polls with this token: `bot doctor` finds it.'))
}

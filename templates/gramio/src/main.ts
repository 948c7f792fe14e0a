/**
 * How updates reach the bot. `bot dev` and production hosts set BOT_MODE:
 *   webhook  an HTTP server on PORT serves POST WEBHOOK_PATH (Telegram's secret header checked);
 *            whoever runs the bot registers the URL (`bot dev` does it; in production `bot webhook set`)
 *   polling  (default) long polling with getUpdates
 * Sessions live in Redis when REDIS_URL is set (any number of instances), else in memory (one).
 */
import {webhookHandler} from 'gramio'

import {createBot, type SessionData} from './bot.js'
import {redisHost} from './config.js'
import {close, createWebhookServer, hasSecret, listen} from './http.js'
import {configOrExit, fail, logError, onShutdown} from './lifecycle.js'
import {connectRedis, type SessionStore} from './storage.js'
import {drain} from './tasks.js'
import {serveWebApp} from './web-app.js'

const config = configOrExit()

let store: SessionStore<SessionData> | undefined
if (config.redisUrl) {
  const url = config.redisUrl
  store = await connectRedis<SessionData>(url, logError).catch((err: unknown) =>
    fail(
      `Redis at ${redisHost(url)} is unreachable`,
      err,
      'Start Redis, or fix REDIS_URL (unset it to keep sessions in memory, for one process only).',
    ),
  )
}

const bot = createBot({
  token: config.token,
  apiRoot: config.apiRoot,
  onError: logError,
  storage: store?.storage,
  webAppUrl: config.webAppUrl,
  testCommands: config.testCommands,
})

/** After the last update: background work finishes, then Redis closes. */
async function finish(): Promise<void> {
  await drain()
  await store?.close()
}

const where = config.redisUrl ? 'Redis' : 'memory'
if (config.webhook) {
  const {webhook} = config
  // `webhook: true` = webhook mode without calling setWebhook (the CLI or the deploy owns it).
  // It checks the token (getMe) before anything listens, so a wrong token fails at once.
  const me = await bot
    .start({webhook: true})
    .catch((err: unknown) =>
      fail(
        'The bot could not start',
        err,
        'Check BOT_TOKEN (from @BotFather) and BOT_API_ROOT; `bot doctor` tells what is wrong.',
      ),
    )
  // GramIO's adapter checks the secret too; checking it first here also keeps a forged
  // request's body from ever being parsed. shouldWait: answer once the handlers have run, so an
  // update is acknowledged only after it was handled; after 10 s ("return") it is acknowledged
  // anyway while the handler goes on (a clean stop still waits for it), instead of answering an
  // error that would make Telegram deliver it again. Slow work goes in afterAck() (src/tasks.ts).
  const handle = webhookHandler(bot, 'http', {
    secretToken: webhook.secret,
    shouldWait: {timeout: 10_000, onTimeout: 'return'},
  })
  const server = createWebhookServer(
    webhook,
    (req, res) => {
      if (!hasSecret(req, webhook.secret)) return void res.writeHead(401).end('secret token is invalid')
      return handle(req, res)
    },
    logError,
    () => store?.check(),
    (req, res) => serveWebApp(req, res, config.token), // the Mini App at /app/ (src/web-app.ts)
  )
  const port = await listen(server, webhook.port).catch((err: unknown) =>
    fail(
      `Could not listen on port ${webhook.port}`,
      err,
      'Another process uses that port: stop it, or set PORT to a free one.',
    ),
  )
  console.log(
    `@${me.username} is running (webhook: POST ${maskPath(webhook.path)} on port ${port}); sessions in ${where}`,
  )
  onShutdown(async () => {
    await close(server) // no new updates; the ones in flight finish
    await bot.stop()
    await finish()
  })
} else {
  // Long polling runs in the background until bot.stop().
  const me = await bot
    .start()
    .catch((err: unknown) =>
      fail(
        'The bot could not start',
        err,
        'Check BOT_TOKEN (from @BotFather) and BOT_API_ROOT; `bot doctor` tells what is wrong.',
      ),
    )
  console.log(`@${me.username} is running (long polling); sessions in ${where}`)
  onShutdown(async () => {
    await bot.stop()
    await finish()
  })
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

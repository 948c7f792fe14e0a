/**
 * How updates reach the bot. `bot dev` and production hosts set BOT_MODE:
 *   webhook  an HTTP server on PORT serves POST WEBHOOK_PATH (Telegram's secret header checked);
 *            whoever runs the bot registers the URL (`bot dev` does it; in production `bot webhook set`)
 *   polling  (default) long polling with getUpdates
 * Sessions live in Redis when REDIS_URL is set (any number of instances), else in memory (one).
 */
import {webhookCallback} from 'grammy'

import {createBot, type SessionData} from './bot.js'
import {redisHost} from './config.js'
import {close, createWebhookServer, listen} from './http.js'
import {configOrExit, fail, logError, onShutdown} from './lifecycle.js'
import {StorageError} from './storage-error.js'
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

try {
  // Checks the token (getMe) before anything listens, so a wrong token fails at once.
  await bot.init()
} catch (err) {
  fail(
    'The bot could not start',
    err,
    'Check BOT_TOKEN (from @BotFather) and BOT_API_ROOT; `bot doctor` tells what is wrong.',
  )
}

/** After the last update: background work finishes, then Redis closes. */
async function finish(): Promise<void> {
  await drain()
  await store?.close()
}

if (config.webhook) {
  const {webhook} = config
  // grammY gives up waiting for a handler after 10 s; "return" then acknowledges the update (200)
  // while the handler goes on (a clean stop still waits for it), instead of answering 500, which
  // would make Telegram deliver the update again and run it twice. Keep handlers fast anyway:
  // slow work goes in afterAck() (src/tasks.ts).
  const handle = webhookCallback(bot, 'http', {
    secretToken: webhook.secret,
    onTimeout: 'return',
    timeoutMilliseconds: 10_000,
  })
  const server = createWebhookServer(
    webhook,
    handle,
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
    `@${bot.botInfo.username} is running (webhook: POST ${maskPath(webhook.path)} on port ${port}); sessions in ${config.redisUrl ? 'Redis' : 'memory'}`,
  )
  onShutdown(async () => {
    await close(server) // no new updates; the ones in flight finish
    await finish()
  })
} else {
  onShutdown(async () => {
    await bot.stop() // confirms the updates handled so far
    await finish()
  })
  // Resolves when bot.stop() has been called and the last updates are confirmed.
  await bot
    .start({
      onStart: (me) =>
        console.log(`@${me.username} is running (long polling); sessions in ${config.redisUrl ? 'Redis' : 'memory'}`),
    })
    .catch((err: unknown) =>
      fail(
        'Long polling stopped',
        err,
        err instanceof StorageError
          ? 'Bring Redis back (REDIS_URL) and start the bot again: the update was not confirmed, so it comes again.'
          : 'A 409 Conflict means another process polls with this token: `bot doctor` finds it.',
      ),
    )
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

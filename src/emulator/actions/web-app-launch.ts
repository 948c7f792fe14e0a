/** A user opens a Mini App: the launch URL as a Telegram web client loads it, initData signed (../user/web-app-launch.ts). */
import {type WebAppLaunch, type WebAppLaunchOptions, launchWebApp as launch} from '../user/web-app-launch.js'
import {defineAction} from './action.js'
import {field, InputError, int, who} from './fields.js'

/** Any string, even empty: a `startapp` parameter as the link carries it. */
const startParam = field(
  {
    json: {type: 'string', maxLength: 512},
    description: 'the startapp parameter of a direct link (t.me/bot/app?startapp=…)',
  },
  (value, name) => {
    if (typeof value !== 'string' || value.length > 512)
      throw new InputError(`${name} must be a string of up to 512 characters`)
    return value
  },
)

export const launchWebApp = defineAction({
  name: 'launch_web_app',
  description:
    "the user opens a Mini App: the app's URL with the launch parameters, initData signed with the bot's token",
  params: {
    url: field(
      {json: {type: 'string', format: 'uri'}, description: "the app's URL (default: the bot's web_app menu button)"},
      (value, name) => {
        if (typeof value !== 'string' || value === '') throw new InputError(`${name} must be a non-empty string`)
        return value
      },
    ),
    user_id: who.user_id,
    chat_id: int("the chat it is opened in (default: the user's private chat with the bot)", {nonZero: true}),
    start_param: startParam,
  },
  result: "{url, init_data, query_id?}: query_id when opened from a button in the bot's chat (answerWebAppQuery)",
  route: 'web_apps/open',
  read: (f): WebAppLaunchOptions => ({url: f.url, userId: f.user_id, chatId: f.chat_id, startParam: f.start_param}),
  run: ({bot}, options: WebAppLaunchOptions): WebAppLaunch => launch(bot, options),
  json: (made) => ({url: made.url, init_data: made.initData, ...(made.queryId ? {query_id: made.queryId} : {})}),
})

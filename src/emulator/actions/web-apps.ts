/** Mini Apps: an app sends data (Telegram.WebApp.sendData), or is opened with a query for answerWebAppQuery (../user/boosts.ts). */
import type {Update} from '../types.js'
import {openWebApp, webAppData} from '../user/boosts.js'
import {defineAction} from './action.js'
import {int, text, who} from './fields.js'

export interface WebAppDataInput {
  userId?: number
  data: string
  buttonText: string
}

export const sendWebAppData = defineAction({
  name: 'send_web_app_data',
  description: "a Mini App opened from a reply keyboard's web_app button sends data: a web_app_data message",
  params: {
    user_id: who.user_id,
    data: text('what the app sends (up to 4096 bytes)', {required: true}),
    button_text: text('the web_app button it was opened from', {required: true}),
  },
  result: '{update_id, message}: the update queued',
  route: 'web_app_data',
  read: (f): WebAppDataInput => ({userId: f.user_id, data: f.data, buttonText: f.button_text}),
  run: ({bot, inject}, options: WebAppDataInput): Update => inject(webAppData(bot, options)),
  json: (update) => update,
})

export interface WebAppQueryInput {
  userId?: number
  chatId?: number
}

export const openWebAppQuery = defineAction({
  name: 'open_web_app_query',
  description:
    'a Mini App is opened with a query (inline button, menu): the query_id the bot answers with answerWebAppQuery',
  params: {
    user_id: who.user_id,
    chat_id: int("the chat it was opened in (default: the user's private chat)", {nonZero: true}),
  },
  result: '{query_id}',
  route: 'web_app_queries',
  read: (f): WebAppQueryInput => ({userId: f.user_id, chatId: f.chat_id}),
  run: ({bot}, options: WebAppQueryInput): string => openWebApp(bot, options),
  json: (queryId) => ({query_id: queryId}),
})

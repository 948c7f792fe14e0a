/**
 * The control API's routes for the table of user actions (../actions/index.ts): one POST route per action that
 * names one, its path's `:name` segments and its JSON body checked by the table, its answer the action's JSON.
 * A new action with a `route` is served here with nothing else to write.
 */
import {ACTIONS} from '../actions/index.js'
import type {Route} from './route.js'

export function actionRoutes(): Record<string, Route> {
  const routes: Record<string, Route> = {}
  for (const action of Object.values(ACTIONS)) {
    if (!action.route) continue
    routes[action.route] = {
      method: 'POST',
      handler: ({emu, bot, body, path}) => emu.runAction(bot.token, action.name, body, path),
    }
  }
  return routes
}

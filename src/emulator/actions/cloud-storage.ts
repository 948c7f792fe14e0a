/** A Mini App uses CloudStorage, kept per bot and user (../user/cloud-storage.ts). */
import {CLOUD_STORAGE_METHODS, type CloudStorageCall, cloudStorageCall} from '../user/cloud-storage.js'
import {defineAction} from './action.js'
import {InputError, object, oneOf, who} from './fields.js'
import {errorText} from '../errors.js'

export const webAppCloudStorage = defineAction({
  name: 'web_app_cloud_storage',
  description:
    "a Mini App calls CloudStorage (web_app_invoke_custom_method): the user's values kept with the bot, nothing sent to it",
  params: {
    user_id: who.user_id,
    method: oneOf('the CloudStorage method the app invokes', CLOUD_STORAGE_METHODS, {required: true}),
    params: object("the method's parameters ({key, value}, {keys}, {})"),
  },
  result: '{result}: true, {key: value}, or the keys, as the app receives them',
  route: 'web_apps/cloud_storage',
  read: (f): CloudStorageCall => ({userId: f.user_id, method: f.method, params: f.params}),
  run: ({bot}, call: CloudStorageCall): unknown => {
    try {
      return cloudStorageCall(bot, call)
    } catch (err) {
      throw new InputError(errorText(err))
    }
  },
  json: (result) => ({result}),
})

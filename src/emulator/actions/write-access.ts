/** A user allows the bot to write to them: the write_access_allowed service message (../user/write-access.ts). */
import type {Update} from '../types.js'
import {type WriteAccessOptions, allowWriteAccess as allow} from '../user/write-access.js'
import {defineAction} from './action.js'
import {bool, int, text, who} from './fields.js'

export const allowWriteAccess = defineAction({
  name: 'allow_write_access',
  description:
    'the user allows the bot to write to them (a Web App launched from a link, its requestWriteAccess accepted, the attachment menu): a write_access_allowed message',
  params: {
    web_app_name: text('the Web App launched from a link (its short name)'),
    from_request: bool("true: the user accepted a Web App's requestWriteAccess"),
    from_attachment_menu: bool('true: the user added the bot to the attachment or side menu'),
    inviter_user_id: int('the user who invited this one (Bot API 10.5 WriteAccessAllowed.inviter)', {min: 1}),
    user_id: who.user_id,
    first_name: who.first_name,
    username: who.username,
  },
  result: '{update_id, message}: the update queued',
  route: 'write_access',
  read: (f): WriteAccessOptions => ({
    webAppName: f.web_app_name,
    fromRequest: f.from_request,
    fromAttachmentMenu: f.from_attachment_menu,
    inviterUserId: f.inviter_user_id,
    userId: f.user_id,
    firstName: f.first_name,
    username: f.username,
  }),
  run: ({bot, inject}, options: WriteAccessOptions): Update => inject(allow(bot, options)),
  json: (update) => update,
})

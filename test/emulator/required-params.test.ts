/**
 * Every method's first check, as the official server makes it: each method called with no parameter at all answers
 * what its `process_*_query` in tdlib/telegram-bot-api `telegram-bot-api/Client.cpp` answers first (the reads it
 * makes before anything else, in their order: get_required_string_arg's `parameter "X" is required`, get_user_id,
 * get_location, get_input_file, get_message_ids, …, then check_chat / check_user / check_business_connection). Only
 * the parameters the server reads with get_required_string_arg answer `parameter "X" is required`; a documented
 * String it reads with `query->arg` fails later. Then the methods with several such reads are walked one parameter
 * at a time, each step answering the next missing one.
 *
 * The table is checked against the catalogue (src/emulator/methods/catalog): a method without a row fails the test.
 * Kinds: 'server' (the answer comes from Client.cpp, function named), 'td' (the server hands the empty value to td:
 * the emulator's answer is td's, never `is required`), 'newer' (the method is newer than the source: the documented
 * required parameters are checked in their order with the server's words).
 */
import {describe, expect, it} from 'vitest'
import {allMethods} from '../../src/emulator/methods/catalog/index.js'
import {setup} from './helpers.js'

type Kind = 'server' | 'td' | 'newer'

/** Method → [kind, the answer to a call without parameters (`ok` or the description after `Bad Request: `), function]. */
const EMPTY_CALL: Record<string, [Kind, string, string]> = {
  getUpdates: ['server', 'ok', 'process_get_updates_query'],
  setWebhook: ['server', 'ok', 'process_set_webhook_query'],
  deleteWebhook: ['server', 'ok', 'process_set_webhook_query'],
  getWebhookInfo: ['server', 'ok', 'process_get_webhook_info_query'],
  getMe: ['server', 'ok', 'process_get_me_query'],
  sendMessage: ['server', 'message text is empty', 'process_send_message_query'],
  forwardMessage: ['server', 'parameter "from_chat_id" is required', 'process_forward_message_query'],
  forwardMessages: ['server', 'parameter "from_chat_id" is required', 'process_forward_messages_query'],
  copyMessage: ['server', 'parameter "from_chat_id" is required', 'process_copy_message_query'],
  copyMessages: ['server', 'parameter "from_chat_id" is required', 'process_copy_messages_query'],
  sendPhoto: ['server', 'there is no photo in the request', 'process_send_photo_query'],
  sendLivePhoto: ['server', 'there is no live photo in the request', 'process_send_live_photo_query'],
  sendAudio: ['server', 'there is no audio in the request', 'process_send_audio_query'],
  sendDocument: ['server', 'there is no document in the request', 'process_send_document_query'],
  sendVideo: ['server', 'there is no video in the request', 'process_send_video_query'],
  sendAnimation: ['server', 'there is no animation in the request', 'process_send_animation_query'],
  sendVoice: ['server', 'there is no voice in the request', 'process_send_voice_query'],
  sendVideoNote: ['server', 'there is no video note in the request', 'process_send_video_note_query'],
  sendPaidMedia: ['server', 'parameter "media" is required', 'process_send_paid_media_query'],
  sendMediaGroup: ['server', 'parameter "media" is required', 'process_send_media_group_query'],
  sendLocation: ['server', 'latitude is empty', 'process_send_location_query'],
  sendVenue: ['server', 'latitude is empty', 'process_send_venue_query'],
  sendContact: ['server', 'parameter "phone_number" is required', 'process_send_contact_query'],
  sendPoll: ['server', "can't parse options JSON object", 'process_send_poll_query'],
  sendChecklist: ['server', 'parameter "checklist" is required', 'process_send_checklist_query'],
  sendDice: ['server', 'chat_id is empty', 'process_send_dice_query'],
  sendMessageDraft: ['server', 'chat_id is empty', 'process_send_message_draft_query'],
  sendChatAction: ['server', 'wrong parameter action in request', 'process_send_chat_action_query'],
  setMessageReaction: ['server', 'chat_id is empty', 'process_set_message_reaction_query'],
  getUserProfilePhotos: ['server', 'invalid user_id specified', 'process_get_user_profile_photos_query'],
  getUserProfileAudios: ['server', 'invalid user_id specified', 'process_get_user_profile_audios_query'],
  setUserEmojiStatus: ['server', 'invalid user_id specified', 'process_set_user_emoji_status_query'],
  getFile: ['server', 'file_id not specified', 'process_get_file_query'],
  banChatMember: ['server', 'invalid user_id specified', 'process_ban_chat_member_query'],
  unbanChatMember: ['server', 'invalid user_id specified', 'process_unban_chat_member_query'],
  restrictChatMember: ['server', 'invalid user_id specified', 'process_restrict_chat_member_query'],
  promoteChatMember: ['server', 'invalid user_id specified', 'process_promote_chat_member_query'],
  setChatAdministratorCustomTitle: [
    'server',
    'invalid user_id specified',
    'process_set_chat_administrator_custom_title_query',
  ],
  setChatMemberTag: ['server', 'invalid user_id specified', 'process_set_chat_member_tag_query'],
  banChatSenderChat: ['server', 'chat_id is empty', 'process_ban_chat_sender_chat_query'],
  unbanChatSenderChat: ['server', 'chat_id is empty', 'process_unban_chat_sender_chat_query'],
  setChatPermissions: ['server', 'chat_id is empty', 'process_set_chat_permissions_query'],
  exportChatInviteLink: ['server', 'chat_id is empty', 'process_export_chat_invite_link_query'],
  createChatInviteLink: ['server', 'chat_id is empty', 'process_create_chat_invite_link_query'],
  editChatInviteLink: ['server', 'chat_id is empty', 'process_edit_chat_invite_link_query'],
  createChatSubscriptionInviteLink: [
    'server',
    'chat_id is empty',
    'process_create_chat_subscription_invite_link_query',
  ],
  editChatSubscriptionInviteLink: ['server', 'chat_id is empty', 'process_edit_chat_subscription_invite_link_query'],
  revokeChatInviteLink: ['server', 'chat_id is empty', 'process_revoke_chat_invite_link_query'],
  approveChatJoinRequest: ['server', 'invalid user_id specified', 'process_approve_chat_join_request_query'],
  declineChatJoinRequest: ['server', 'invalid user_id specified', 'process_decline_chat_join_request_query'],
  answerChatJoinRequestQuery: ['newer', 'parameter "chat_join_request_query_id" is required', ''],
  sendChatJoinRequestWebApp: ['newer', 'parameter "chat_join_request_query_id" is required', ''],
  setChatPhoto: ['server', 'there is no photo in the request', 'process_set_chat_photo_query'],
  deleteChatPhoto: ['server', 'chat_id is empty', 'process_delete_chat_photo_query'],
  setChatTitle: ['server', 'chat_id is empty', 'process_set_chat_title_query'],
  setChatDescription: ['server', 'chat_id is empty', 'process_set_chat_description_query'],
  pinChatMessage: ['server', 'chat_id is empty', 'process_pin_chat_message_query'],
  unpinChatMessage: ['server', 'chat_id is empty', 'process_unpin_chat_message_query'],
  unpinAllChatMessages: ['server', 'chat_id is empty', 'process_unpin_all_chat_messages_query'],
  leaveChat: ['server', 'chat_id is empty', 'process_leave_chat_query'],
  getChat: ['server', 'chat_id is empty', 'process_get_chat_query'],
  getChatAdministrators: ['server', 'chat_id is empty', 'process_get_chat_administrators_query'],
  getChatMemberCount: ['server', 'chat_id is empty', 'process_get_chat_member_count_query'],
  getChatMember: ['server', 'invalid user_id specified', 'process_get_chat_member_query'],
  getUserPersonalChatMessages: ['server', 'invalid user_id specified', 'process_get_user_personal_chat_messages_query'],
  setChatStickerSet: ['server', 'chat_id is empty', 'process_set_chat_sticker_set_query'],
  deleteChatStickerSet: ['server', 'chat_id is empty', 'process_delete_chat_sticker_set_query'],
  getForumTopicIconStickers: ['server', 'ok', 'process_get_forum_topic_icon_stickers_query'],
  createForumTopic: ['server', 'chat_id is empty', 'process_create_forum_topic_query'],
  editForumTopic: ['server', 'chat_id is empty', 'process_edit_forum_topic_query'],
  closeForumTopic: ['server', 'chat_id is empty', 'process_close_forum_topic_query'],
  reopenForumTopic: ['server', 'chat_id is empty', 'process_reopen_forum_topic_query'],
  deleteForumTopic: ['server', 'chat_id is empty', 'process_delete_forum_topic_query'],
  unpinAllForumTopicMessages: ['server', 'chat_id is empty', 'process_unpin_all_forum_topic_messages_query'],
  editGeneralForumTopic: ['server', 'chat_id is empty', 'process_edit_general_forum_topic_query'],
  closeGeneralForumTopic: ['server', 'chat_id is empty', 'process_close_general_forum_topic_query'],
  reopenGeneralForumTopic: ['server', 'chat_id is empty', 'process_reopen_general_forum_topic_query'],
  hideGeneralForumTopic: ['server', 'chat_id is empty', 'process_hide_general_forum_topic_query'],
  unhideGeneralForumTopic: ['server', 'chat_id is empty', 'process_unhide_general_forum_topic_query'],
  unpinAllGeneralForumTopicMessages: [
    'server',
    'chat_id is empty',
    'process_unpin_all_general_forum_topic_messages_query',
  ],
  answerCallbackQuery: [
    'td',
    'query is too old and response timeout expired or query ID is invalid',
    'process_answer_callback_query_query',
  ],
  answerGuestQuery: ['server', "result isn't specified", 'process_answer_guest_query_query'],
  getUserChatBoosts: ['server', 'invalid user_id specified', 'process_get_user_chat_boosts_query'],
  getBusinessConnection: ['server', 'business connection not found', 'process_get_business_connection_query'],
  getManagedBotToken: ['server', 'invalid user_id specified', 'process_get_managed_bot_token_query'],
  replaceManagedBotToken: ['server', 'invalid user_id specified', 'process_replace_managed_bot_token_query'],
  getManagedBotAccessSettings: ['server', 'invalid user_id specified', 'process_get_managed_bot_access_settings_query'],
  setManagedBotAccessSettings: ['server', 'invalid user_id specified', 'process_set_managed_bot_access_settings_query'],
  setMyCommands: ['server', 'ok', 'process_set_my_commands_query'],
  deleteMyCommands: ['server', 'ok', 'process_delete_my_commands_query'],
  getMyCommands: ['server', 'ok', 'process_get_my_commands_query'],
  setMyName: ['server', 'ok', 'process_set_my_name_query'],
  getMyName: ['server', 'ok', 'process_get_my_name_query'],
  setMyDescription: ['server', 'ok', 'process_set_my_description_query'],
  getMyDescription: ['server', 'ok', 'process_get_my_description_query'],
  setMyShortDescription: ['server', 'ok', 'process_set_my_short_description_query'],
  getMyShortDescription: ['server', 'ok', 'process_get_my_short_description_query'],
  setMyProfilePhoto: ['server', "photo isn't specified", 'process_set_my_profile_photo_query'],
  removeMyProfilePhoto: ['server', 'ok', 'process_remove_my_profile_photo_query'],
  setChatMenuButton: ['server', 'ok', 'process_set_chat_menu_button_query'],
  getChatMenuButton: ['server', 'ok', 'process_get_chat_menu_button_query'],
  setMyDefaultAdministratorRights: ['server', 'ok', 'process_set_my_default_administrator_rights_query'],
  getMyDefaultAdministratorRights: ['server', 'ok', 'process_get_my_default_administrator_rights_query'],
  getAvailableGifts: ['server', 'ok', 'process_get_available_gifts_query'],
  sendGift: ['server', 'invalid user_id specified', 'process_send_gift_query'],
  giftPremiumSubscription: ['server', 'invalid user_id specified', 'process_gift_premium_subscription_query'],
  verifyUser: ['server', 'invalid user_id specified', 'process_verify_user_query'],
  verifyChat: ['server', 'chat_id is empty', 'process_verify_chat_query'],
  removeUserVerification: ['server', 'invalid user_id specified', 'process_remove_user_verification_query'],
  removeChatVerification: ['server', 'chat_id is empty', 'process_remove_chat_verification_query'],
  readBusinessMessage: ['server', 'chat identifier is empty', 'process_read_business_message_query'],
  deleteBusinessMessages: ['server', 'message identifiers are not specified', 'process_delete_business_messages_query'],
  setBusinessAccountName: ['server', 'parameter "first_name" is required', 'process_set_business_account_name_query'],
  setBusinessAccountUsername: [
    'server',
    'business connection not found',
    'process_set_business_account_username_query',
  ],
  setBusinessAccountBio: ['server', 'business connection not found', 'process_set_business_account_bio_query'],
  setBusinessAccountProfilePhoto: [
    'server',
    "photo isn't specified",
    'process_set_business_account_profile_photo_query',
  ],
  removeBusinessAccountProfilePhoto: [
    'server',
    'business connection not found',
    'process_remove_business_account_profile_photo_query',
  ],
  setBusinessAccountGiftSettings: [
    'server',
    "accepted gift types aren't specified",
    'process_set_business_account_gift_settings_query',
  ],
  getBusinessAccountStarBalance: [
    'server',
    'business connection not found',
    'process_get_business_account_star_balance_query',
  ],
  transferBusinessAccountStars: [
    'server',
    'business connection not found',
    'process_transfer_business_account_stars_query',
  ],
  getBusinessAccountGifts: ['server', 'business connection not found', 'process_get_business_account_gifts_query'],
  getUserGifts: ['server', 'invalid user_id specified', 'process_get_user_gifts_query'],
  getChatGifts: ['server', 'chat_id is empty', 'process_get_chat_gifts_query'],
  convertGiftToStars: ['server', 'business connection not found', 'process_convert_gift_to_stars_query'],
  upgradeGift: ['server', 'business connection not found', 'process_upgrade_gift_query'],
  transferGift: ['server', 'chat identifier is empty', 'process_transfer_gift_query'],
  postStory: ['server', "story content isn't specified", 'process_post_story_query'],
  repostStory: ['server', 'parameter "from_chat_id" is required', 'process_repost_story_query'],
  editStory: ['server', "story content isn't specified", 'process_edit_story_query'],
  deleteStory: ['server', 'business connection not found', 'process_delete_story_query'],
  answerWebAppQuery: ['server', "result isn't specified", 'process_answer_web_app_query_query'],
  savePreparedInlineMessage: ['server', 'invalid user_id specified', 'process_save_prepared_inline_message_query'],
  savePreparedKeyboardButton: ['server', 'invalid user_id specified', 'process_save_prepared_keyboard_button_query'],
  editMessageText: ['server', 'message text is empty', 'process_edit_message_text_query'],
  editMessageCaption: ['server', 'message identifier is not specified', 'process_edit_message_caption_query'],
  editMessageMedia: ['server', 'parameter "media" is required', 'process_edit_message_media_query'],
  editMessageLiveLocation: ['server', 'latitude is empty', 'process_edit_message_live_location_query'],
  stopMessageLiveLocation: [
    'server',
    'message identifier is not specified',
    'process_edit_message_live_location_query',
  ],
  editMessageChecklist: ['server', 'parameter "checklist" is required', 'process_edit_message_checklist_query'],
  editMessageReplyMarkup: ['server', 'message identifier is not specified', 'process_edit_message_reply_markup_query'],
  stopPoll: ['server', 'chat_id is empty', 'process_stop_poll_query'],
  approveSuggestedPost: ['server', 'chat_id is empty', 'process_approve_suggested_post_query'],
  declineSuggestedPost: ['server', 'chat_id is empty', 'process_decline_suggested_post_query'],
  deleteMessage: ['server', 'chat identifier is not specified', 'process_delete_message_query'],
  deleteMessages: ['server', 'message identifiers are not specified', 'process_delete_messages_query'],
  deleteMessageReaction: ['server', 'chat_id is empty', 'process_delete_message_reaction_query'],
  deleteAllMessageReactions: ['server', 'chat_id is empty', 'process_delete_all_message_reactions_query'],
  sendSticker: ['server', 'there is no sticker in the request', 'process_send_sticker_query'],
  getStickerSet: ['td', 'STICKERSET_INVALID', 'process_get_sticker_set_query'],
  getCustomEmojiStickers: [
    'server',
    'parameter "custom_emoji_ids" is required',
    'process_get_custom_emoji_stickers_query',
  ],
  uploadStickerFile: ['server', 'invalid user_id specified', 'process_upload_sticker_file_query'],
  createNewStickerSet: ['server', 'invalid user_id specified', 'process_create_new_sticker_set_query'],
  addStickerToSet: ['server', 'invalid user_id specified', 'process_add_sticker_to_set_query'],
  setStickerPositionInSet: ['server', 'sticker is not specified', 'process_set_sticker_position_in_set_query'],
  deleteStickerFromSet: ['server', 'sticker is not specified', 'process_delete_sticker_from_set_query'],
  replaceStickerInSet: ['server', 'invalid user_id specified', 'process_replace_sticker_in_set_query'],
  setStickerEmojiList: ['server', 'sticker is not specified', 'process_set_sticker_emoji_list_query'],
  setStickerKeywords: ['server', 'sticker is not specified', 'process_set_sticker_keywords_query'],
  setStickerMaskPosition: ['server', 'sticker is not specified', 'process_set_sticker_mask_position_query'],
  setStickerSetTitle: ['td', 'STICKERSET_INVALID', 'process_set_sticker_set_title_query'],
  setStickerSetThumbnail: ['server', 'invalid user_id specified', 'process_set_sticker_set_thumbnail_query'],
  setCustomEmojiStickerSetThumbnail: ['td', 'ok', 'process_set_custom_emoji_sticker_set_thumbnail_query'],
  deleteStickerSet: ['td', 'STICKERSET_INVALID', 'process_delete_sticker_set_query'],
  sendRichMessage: ['newer', 'parameter "rich_message" is required', ''],
  sendRichMessageDraft: ['newer', 'parameter "rich_message" is required', ''],
  answerInlineQuery: [
    'td',
    'query is too old and response timeout expired or query ID is invalid',
    'process_answer_inline_query_query',
  ],
  sendInvoice: ['server', 'parameter "title" is required', 'process_send_invoice_query'],
  createInvoiceLink: ['server', 'parameter "title" is required', 'process_create_invoice_link_query'],
  answerShippingQuery: ['server', 'parameter "error_message" is required', 'process_answer_shipping_query_query'],
  answerPreCheckoutQuery: [
    'server',
    'parameter "error_message" is required',
    'process_answer_pre_checkout_query_query',
  ],
  getMyStarBalance: ['server', 'ok', 'process_get_my_star_balance_query'],
  getStarTransactions: ['server', 'ok', 'process_get_star_transactions_query'],
  refundStarPayment: ['server', 'invalid user_id specified', 'process_refund_star_payment_query'],
  editUserStarSubscription: ['server', 'invalid user_id specified', 'process_edit_user_star_subscription_query'],
  setPassportDataErrors: ['server', 'invalid user_id specified', 'process_set_passport_data_errors_query'],
  sendGame: ['server', 'parameter "game_short_name" is required', 'process_send_game_query'],
  setGameScore: ['server', 'invalid user_id specified', 'process_set_game_score_query'],
  getGameHighScores: ['server', 'invalid user_id specified', 'process_get_game_high_scores_query'],
  editEphemeralMessageText: ['newer', 'message text is empty', ''],
  editEphemeralMessageMedia: ['newer', 'parameter "media" is required', ''],
  editEphemeralMessageCaption: ['newer', 'chat_id is empty', ''],
  editEphemeralMessageReplyMarkup: ['newer', 'chat_id is empty', ''],
  deleteEphemeralMessage: ['newer', 'chat_id is empty', ''],
  sendWidget: ['newer', 'parameter "html" is required', ''],
  sendSharedWidget: ['newer', 'parameter "widget_id" is required', ''],
  answerWidgetQuery: ['newer', 'query is too old and response timeout expired or query ID is invalid', ''],
  editMessageWidgetData: ['newer', 'message identifier is not specified', ''],
  editSharedWidgetData: ['newer', 'parameter "widget_id" is required', ''],
  setMySettings: ['newer', 'ok', ''],
}

/** Methods the table leaves out on purpose: calling them ends the bot's session. */
const SKIPPED = new Set(['logOut', 'close'])

/** The methods whose required reads are walked one parameter at a time: [method, steps, Client.cpp function]. */
const STEPS: Array<[string, Array<[Record<string, unknown>, string]>, string]> = [
  [
    'sendContact',
    [
      [{}, 'parameter "phone_number" is required'],
      [{phone_number: '+1'}, 'parameter "first_name" is required'],
    ],
    'process_send_contact_query',
  ],
  ...['sendInvoice', 'createInvoiceLink'].map((method): [string, Array<[Record<string, unknown>, string]>, string] => [
    method,
    [
      [{}, 'parameter "title" is required'],
      [{title: 'T'}, 'parameter "description" is required'],
      [{title: 'T', description: 'D'}, 'parameter "payload" is required'],
      [{title: 'T', description: 'D', payload: 'p'}, 'parameter "currency" is required'],
      [{title: 'T', description: 'D', payload: 'p', currency: 'XTR'}, 'parameter "prices" is required'],
    ],
    'get_input_message_invoice',
  ]),
  [
    'sendVenue',
    [
      [{}, 'latitude is empty'],
      [{latitude: ' '}, 'latitude is empty'],
      [{latitude: 1}, 'longitude is empty'],
    ],
    'get_location',
  ],
  [
    'sendLivePhoto',
    [
      [{}, 'there is no live photo in the request'],
      [{live_photo: 'x'}, 'there is no photo in the request'],
    ],
    'process_send_live_photo_query',
  ],
  [
    'refundStarPayment',
    [
      [{}, 'invalid user_id specified'],
      [{user_id: 5}, 'parameter "telegram_payment_charge_id" is required'],
    ],
    'process_refund_star_payment_query',
  ],
  [
    'answerShippingQuery',
    [
      [{}, 'parameter "error_message" is required'],
      [{ok: true}, 'parameter "shipping_options" is required'],
    ],
    'process_answer_shipping_query_query, get_shipping_options',
  ],
  [
    'deleteMessage',
    [
      [{}, 'chat identifier is not specified'],
      [{chat_id: 5}, 'message identifier is not specified'],
      [{chat_id: 5, message_id: '+5'}, 'message identifier is not specified'],
      [{chat_id: 5, message_id: 5}, 'chat not found'],
    ],
    'process_delete_message_query',
  ],
  [
    'sendChatAction',
    [
      [{chat_id: 5}, 'wrong parameter action in request'],
      [{action: 'TYPING'}, 'chat_id is empty'],
    ],
    'process_send_chat_action_query, get_chat_action',
  ],
  [
    'getChatMember',
    [
      [{chat_id: 5}, 'invalid user_id specified'],
      [{user_id: 5}, 'chat_id is empty'],
    ],
    'process_get_chat_member_query',
  ],
  [
    'readBusinessMessage',
    [
      [{}, 'chat identifier is empty'],
      [{chat_id: ' 5'}, 'chat identifier must be a valid Integer'],
      [{chat_id: 5}, 'business connection not found'],
    ],
    'process_read_business_message_query, get_business_connection_chat_id',
  ],
  [
    'setBusinessAccountName',
    [
      [{}, 'parameter "first_name" is required'],
      [{first_name: 'A'}, 'business connection not found'],
    ],
    'process_set_business_account_name_query',
  ],
  [
    'repostStory',
    [
      [{}, 'parameter "from_chat_id" is required'],
      [{from_chat_id: 5}, 'business connection not found'],
    ],
    'process_repost_story_query',
  ],
  [
    'createForumTopic',
    [
      [{name: 'n'}, 'chat_id is empty'],
      [{}, 'chat_id is empty'],
    ],
    'process_create_forum_topic_query',
  ],
  [
    'sendGift',
    [
      [{gift_id: '1'}, 'invalid user_id specified'],
      [{gift_id: '1', user_id: 5}, 'user not found'],
    ],
    'process_send_gift_query',
  ],
]

const describeOf = (json: any): string => (json.ok ? 'ok' : String(json.description).replace(/^Bad Request: /, ''))

describe('required parameters as the server checks them (BA telegram-bot-api/Client.cpp process_*_query)', () => {
  it('every method of the catalogue, called without parameters, answers the server first check', async () => {
    const {api} = await setup()
    const missing = allMethods()
      .map((m) => m.name)
      .filter((name) => !SKIPPED.has(name) && !(name in EMPTY_CALL))
    expect(missing, 'methods of the catalogue without a row').toEqual([])
    const wrong: string[] = []
    for (const [method, [kind, expected, fn]] of Object.entries(EMPTY_CALL)) {
      const answer = describeOf((await api(method, {})).json)
      if (kind === 'td' ? /is required/.test(answer) : answer !== expected)
        wrong.push(`${method} (${fn || kind}): ${answer} ≠ ${expected}`)
    }
    expect(wrong).toEqual([])
  })

  it('walks the methods with several required reads one parameter at a time, in the server order', async () => {
    const {api} = await setup()
    const wrong: string[] = []
    for (const [method, steps, fn] of STEPS)
      for (const [params, expected] of steps) {
        const answer = describeOf((await api(method, params)).json)
        if (answer !== expected) wrong.push(`${method} ${JSON.stringify(params)} (${fn}): ${answer} ≠ ${expected}`)
      }
    expect(wrong).toEqual([])
  })
})

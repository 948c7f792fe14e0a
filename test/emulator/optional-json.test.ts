/**
 * Optional JSON parameters parsed and type-checked with the server's texts, never silently ignored: each case names
 * the BA telegram-bot-api/Client.cpp function whose words it expects (fail_query_with_error lower-cases the first
 * letter after `Bad Request: `). A parameter the server itself ignores when it cannot parse it (get_input_entities,
 * get_allowed_update_types) is ignored here too.
 */
import {describe, expect, it} from 'vitest'
import {setup} from './helpers.js'

/** [method, parameters, the description after `Bad Request: ` (or `ok`), Client.cpp function]. */
const CASES: Array<[string, Record<string, unknown>, string, string]> = [
  // get_input_suggested_post_info / get_suggested_post_price, read by do_send_message and the batch methods
  [
    'sendMessage',
    {text: 'x', suggested_post_parameters: 'x{'},
    "can't parse suggested post parameters JSON object",
    'get_input_suggested_post_info',
  ],
  [
    'sendMessage',
    {text: 'x', suggested_post_parameters: 5},
    'object expected as suggested post parameters',
    'get_input_suggested_post_info',
  ],
  [
    'sendMessage',
    {text: 'x', suggested_post_parameters: {send_date: true}},
    'field "send_date" must be a Number',
    'get_input_suggested_post_info',
  ],
  [
    'sendMessage',
    {text: 'x', suggested_post_parameters: {price: 5}},
    'field "price" must be of type Object',
    'get_input_suggested_post_info',
  ],
  [
    'sendMessage',
    {text: 'x', suggested_post_parameters: {price: {amount: 5}}},
    'can\'t find field "currency"',
    'get_suggested_post_price',
  ],
  [
    'sendMessage',
    {text: 'x', suggested_post_parameters: {price: {currency: 'USD', amount: 5}}},
    'invalid suggested post price currency specified',
    'get_suggested_post_price',
  ],
  [
    'sendMessage',
    {text: 'x', suggested_post_parameters: {price: {currency: 'TON', amount: 5}}},
    'suggested post price must be divisible by 10000000 nanotoncoins',
    'get_suggested_post_price',
  ],
  [
    'forwardMessage',
    {from_chat_id: 97, message_id: 1, suggested_post_parameters: 5},
    'object expected as suggested post parameters',
    'do_send_message',
  ],
  [
    'forwardMessages',
    {from_chat_id: 97, message_ids: [1], suggested_post_parameters: 5},
    'object expected as suggested post parameters',
    'process_forward_messages_query',
  ],
  // get_bot_command_scope, get_bot_commands
  ['setMyCommands', {commands: [], scope: 'x{'}, "can't parse BotCommandScope JSON object", 'get_bot_command_scope'],
  [
    'setMyCommands',
    {commands: [], scope: 5},
    "can't parse BotCommandScope: BotCommandScope must be an Object",
    'get_bot_command_scope',
  ],
  [
    'deleteMyCommands',
    {scope: {type: 'nope'}},
    "can't parse BotCommandScope: Unsupported type specified",
    'get_bot_command_scope',
  ],
  ['setMyCommands', {commands: 5}, 'expected an Array of BotCommand', 'get_bot_commands'],
  // get_bot_menu_button, get_chat_administrator_rights
  [
    'setChatMenuButton',
    {menu_button: 5},
    "can't parse menu button: MenuButton must be an Object",
    'get_bot_menu_button',
  ],
  [
    'setMyDefaultAdministratorRights',
    {rights: {can_manage_chat: 'yes'}},
    'can\'t parse ChatAdministratorRights: Field "can_manage_chat" must be of type Boolean',
    'get_chat_administrator_rights',
  ],
  // get_reaction_types, get_strings, process_send_poll_query
  ['setMessageReaction', {message_id: 1, reaction: 5}, 'expected an Array of ReactionType', 'get_reaction_types'],
  [
    'sendPoll',
    {question: 'q', options: ['a', 'b'], country_codes: 'x{'},
    "can't parse country_codes JSON object",
    'get_strings',
  ],
  ['sendPoll', {question: 'q', options: ['a', 'b'], country_codes: [5]}, 'expected an Array of String', 'get_strings'],
  [
    'sendPoll',
    {question: 'q', options: ['a', 'b'], country_codes: Array(13).fill('US')},
    'too many items specified',
    'get_strings',
  ],
  // process_set_sticker_keywords_query, get_passport_element_errors, get_shipping_options
  [
    'setStickerKeywords',
    {sticker: 'x', keywords: 5},
    'field "keywords" must be an Array',
    'process_set_sticker_keywords_query',
  ],
  [
    'setStickerKeywords',
    {sticker: 'x', keywords: [5]},
    'keyword must be a string',
    'process_set_sticker_keywords_query',
  ],
  [
    'setPassportDataErrors',
    {user_id: 97, errors: 5},
    'expected an Array of PassportElementError',
    'get_passport_element_errors',
  ],
  [
    'answerShippingQuery',
    {shipping_query_id: '1', ok: true, shipping_options: []},
    'there must be at least one shipping option',
    'get_shipping_options',
  ],
  // ignored by the server when unreadable: get_input_entities, get_allowed_update_types
  ['sendMessage', {text: 'x', entities: 'x{'}, 'ok', 'get_input_entities'],
  ['getUpdates', {allowed_updates: 'x{'}, 'ok', 'get_allowed_update_types'],
]

describe('optional JSON parameters are type-checked with the server texts (BA Client.cpp)', () => {
  it('answers each bad optional JSON parameter in the words of the function that reads it', async () => {
    const {emu, api, token} = await setup()
    emu.sendUserMessage(token, {text: 'hi', chatId: 97, userId: 97})
    const wrong: string[] = []
    for (const [method, params, expected, fn] of CASES) {
      const {json} = await api(method, {chat_id: 97, ...params})
      const answer = json.ok ? 'ok' : String(json.description).replace(/^Bad Request: /, '')
      if (answer !== expected) wrong.push(`${method} ${JSON.stringify(params)} (${fn}): ${answer} ≠ ${expected}`)
    }
    expect(wrong).toEqual([])
  })
})

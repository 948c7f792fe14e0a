/**
 * Parameters whose bytes are not UTF-8 (flagged by the HTTP reader, http/td-args.ts): the server passes them to td,
 * which refuses them with its own texts (td check_utf8 / clean_input_string), never reading U+FFFD in their place:
 *
 * - a text or caption with a parse_mode: td SynchronousRequests `parseTextEntities`, `Text must be encoded in UTF-8`;
 * - a keyboard: td ReplyMarkup.cpp `get_keyboard_button` / `get_inline_keyboard_button`, `Keyboard button text must be
 *   encoded in UTF-8` / `Inline keyboard button text must be encoded in UTF-8` (the button's text: the emulator does
 *   not tell which field of the button held the bytes);
 * - any other string: td MessageEntity.cpp `fix_formatted_text` and the requests' CLEAN_INPUT_STRING (Requests.cpp),
 *   `Strings must be encoded in UTF-8`.
 *
 * Client.cpp `fail_query_with_error` prefixes `Bad Request: ` and lower-cases the first letter. A chat_id is looked up
 * as it is (an @username that is not UTF-8 names no chat: `chat not found`); a parameter the method does not read is
 * ignored, as the server ignores it.
 */
import {badRequest} from '../errors.js'
import type {Params} from '../http/params.js'
import {methodSpec} from './catalog/index.js'

export function checkUtf8(lower: string, params: Params): void {
  const bad = params.badUtf8
  if (bad === undefined) return
  const spec = methodSpec(lower)
  // get_input_message_invoice checks the payload itself, before anything reaches td (BA Client.cpp)
  if ((lower === 'sendinvoice' || lower === 'createinvoicelink') && bad.has('payload'))
    throw badRequest('the payload must be encoded in UTF-8')
  for (const name of bad) {
    if (name === 'chat_id' || name === 'from_chat_id') continue
    if (spec && !spec.params.some((p) => p.name === name)) continue
    if ((name === 'text' || name === 'caption') && (params.get('parse_mode') ?? '') !== '')
      throw badRequest('text must be encoded in UTF-8')
    if (name === 'reply_markup') {
      const raw = params.get(name) ?? ''
      if (raw.includes('"inline_keyboard"')) throw badRequest('inline keyboard button text must be encoded in UTF-8')
      if (raw.includes('"keyboard"')) throw badRequest('keyboard button text must be encoded in UTF-8')
    }
    throw badRequest('strings must be encoded in UTF-8')
  }
}

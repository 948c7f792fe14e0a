/**
 * One line explaining a well-known Bot API failure, for the api proxy's call records (the terminal
 * line under an update and the inspector). The descriptions are Telegram's exact texts
 * (Client.cpp fail_query_with_error, WebhookActor.cpp); an unknown failure gets no explanation.
 */

interface Rule {
  test: RegExp
  explain: (match: RegExpExecArray, method: string, params: Record<string, unknown>) => string
}

function formatHint(params: Record<string, unknown>): string {
  const mode = String(params.parse_mode ?? '').toLowerCase()
  if (mode === 'markdownv2')
    return 'In MarkdownV2 every one of _ * [ ] ( ) ~ ` > # + - = | { } . ! outside an entity must be escaped with a backslash.'
  if (mode === 'html')
    return 'In HTML only <b>, <i>, <u>, <s>, <a>, <code>, <pre>, <tg-spoiler>, <blockquote> … are allowed, and <, > and & in text must be written &lt; &gt; &amp;.'
  if (mode === 'markdown') return 'Legacy Markdown has no escapes for * _ ` [ in text; prefer MarkdownV2 or HTML.'
  return 'Escape the text for its parse_mode, or send it without parse_mode.'
}

const RULES: Rule[] = [
  {
    test: /can't parse entities: (.*)/i,
    explain: (m, _method, params) =>
      `Telegram could not parse the ${params.parse_mode ? `${String(params.parse_mode)} ` : ''}formatting of the text (${m[1]}). ${formatHint(params)}`,
  },
  {
    test: /message is not modified/i,
    explain: (_m, method) =>
      `${method} asked for the text and keyboard the message already has: nothing changed. Compare before editing, or ignore this error.`,
  },
  {
    test: /message to edit not found/i,
    explain: () => 'No such message in that chat (a wrong message_id or chat_id, or it was deleted).',
  },
  {
    test: /message to be replied not found|reply message not found/i,
    explain: () =>
      'The message to reply to is gone or in another chat; use reply_parameters with allow_sending_without_reply, or drop the reply.',
  },
  {
    test: /message can't be edited/i,
    explain: () => "Only messages the bot sent (and not too old) can be edited; a user's message cannot.",
  },
  {
    test: /message can't be deleted/i,
    explain: () =>
      'The bot may not delete that message (not its own, older than 48 hours, or no delete right in the group).',
  },
  {
    test: /private chat not found|chat not found/i,
    explain: () =>
      'The bot does not know that chat: the id is wrong (groups are negative, supergroups start with -100), the user never started the bot, or the bot is not a member of it.',
  },
  {
    test: /chat_id is empty/i,
    explain: () => 'chat_id is missing or empty: pass the chat of the update you are answering (ctx.chat.id).',
  },
  {
    test: /bot was blocked by the user/i,
    explain: () =>
      'The user blocked the bot; every message to them fails until they unblock it. Stop sending to this chat.',
  },
  {
    test: /user is deactivated/i,
    explain: () => 'That Telegram account was deleted; stop sending to it.',
  },
  {
    test: /bot can't initiate conversation with a user/i,
    explain: () => 'A bot cannot write first: the user has to open the bot and press Start before it can message them.',
  },
  {
    test: /bot was kicked|bot is not a member/i,
    explain: () => 'The bot is no longer in that chat; it needs to be added again before it can post there.',
  },
  {
    test: /not enough rights/i,
    explain: () => 'The bot lacks the admin right this needs in that chat; give it the right, or skip the call there.',
  },
  {
    test: /Too Many Requests: retry after (\d+)/i,
    explain: (m) =>
      `Flood control: wait ${m[1]} s before calling again (about 1 message per second per chat, 20 per minute in a group, 30 per second in all).`,
  },
  {
    test: /query is too old/i,
    explain: () =>
      'The callback or inline query was answered too late (about 15 s) or its id is wrong: call answerCallbackQuery first, before slow work.',
  },
  {
    test: /message text is empty/i,
    explain: () => 'The text is empty (or only formatting): send at least one visible character.',
  },
  {
    test: /message (caption )?is too long|text is too long/i,
    explain: () => 'A message text is at most 4096 characters (a caption 1024) after formatting; split it.',
  },
  {
    test: /group chat was upgraded to a supergroup/i,
    explain: () =>
      'The group became a supergroup with a new id (parameters.migrate_to_chat_id); send there and store the new id.',
  },
  {
    test: /wrong file identifier|wrong remote file id|failed to get HTTP URL content|wrong type of the web page content/i,
    explain: () =>
      'Telegram could not use the file: a file_id from another bot or a malformed one, or a URL Telegram could not download.',
  },
  {
    test: /can't parse (reply keyboard markup|inline keyboard button)/i,
    explain: () =>
      'reply_markup is not a valid keyboard: every inline button needs text plus one action (callback_data, url, …).',
  },
  {
    test: /BUTTON_DATA_INVALID/,
    explain: () => 'callback_data must be 1-64 bytes.',
  },
  {
    test: /terminated by other getUpdates request/i,
    explain: () =>
      'Another process polls with the same token (only one may); stop the other instance (`bot doctor` finds it).',
  },
  {
    test: /can't use getUpdates method while webhook is active/i,
    explain: () =>
      'A webhook is set, so getUpdates is refused: delete it (`bot webhook delete`) or run in webhook mode.',
  },
  {
    test: /method not found/i,
    explain: (_m, method) => `The Bot API has no method "${method}": check its spelling.`,
  },
  {
    test: /^Unauthorized/i,
    explain: () => 'The token was rejected: it is wrong or was revoked (get the current one from @BotFather).',
  },
]

/** The explanation for a failed call, or undefined when the failure is not a well-known one. */
export function explainCall(
  method: string,
  description: string | undefined,
  params: Record<string, unknown>,
): string | undefined {
  if (!description) return undefined
  for (const rule of RULES) {
    const match = rule.test.exec(description)
    if (match) return rule.explain(match, method, params)
  }
  return undefined
}

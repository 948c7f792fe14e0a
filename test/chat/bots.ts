/**
 * The bots the chat page's tests talk to: a real grammY bot and a real Telegraf bot, polling the emulator in this
 * process, each answering what the page's tests do (text, formatting, keyboards, shares, polls, invoices, media,
 * inline mode, chat actions, reactions, edits and deletes).
 */
import {Bot, InlineKeyboard, InputFile, Keyboard} from 'grammy'
import {Telegraf} from 'telegraf'

import {PNG} from './helpers.js'

export interface RunningBot {
  stop(): Promise<void>
}

const FORMATTED =
  '<b>bold</b> <i>italic</i> <u>under</u> <s>struck</s> <tg-spoiler>secret</tg-spoiler> <code>inline</code> ' +
  '<a href="https://example.com/x">a link</a> <tg-emoji emoji-id="5368324170671202286">👍</tg-emoji>\n' +
  '<pre><code class="language-python">print("hi")</code></pre>' +
  '<blockquote>quoted</blockquote><blockquote expandable>long expandable quote line one\nline two\nline three\nline four</blockquote>'

export async function startGrammy(apiRoot: string, token: string): Promise<RunningBot> {
  const bot = new Bot(token, {client: {apiRoot}})
  await bot.api.setMyDescription('I am the test bot. Press Start.')
  await bot.api.setMyCommands([
    {command: 'start', description: 'start the bot'},
    {command: 'help', description: 'what I can do'},
    {command: 'kb', description: 'an inline keyboard'},
  ])
  await bot.api.setMyCommands([{command: 'hilfe', description: 'Hilfe'}], {language_code: 'de'})
  bot.command('start', (ctx) => ctx.reply('Welcome!'))
  bot.command('help', (ctx) => ctx.reply('I help.'))
  bot.command('kb', (ctx) =>
    ctx.reply('Pick one', {
      reply_markup: new InlineKeyboard()
        .text('Toast', 'toast')
        .text('Alert', 'alert')
        .row()
        .text('Edit me', 'edit')
        .url('Site', 'https://example.com/')
        .row()
        .copyText('Copy', 'copied text')
        .switchInlineCurrent('Inline here', 'cats')
        .row()
        .webApp('App', 'https://app.example.com/'),
    }),
  )
  bot.command('reply', (ctx) =>
    ctx.reply('Reply keyboard', {
      reply_markup: new Keyboard()
        .text('Plain')
        .requestContact('Contact')
        .row()
        .requestLocation('Location')
        .requestUsers('Users', 7)
        .row()
        .requestChat('Chat', 8, {chat_is_channel: false})
        .webApp('KB app', 'https://kb.example.com/')
        .resized(),
    }),
  )
  bot.callbackQuery('toast', (ctx) => ctx.answerCallbackQuery('Toasted!'))
  bot.callbackQuery('alert', (ctx) => ctx.answerCallbackQuery({text: 'An alert!', show_alert: true}))
  bot.callbackQuery('edit', async (ctx) => {
    await ctx.editMessageText('Edited text')
    await ctx.answerCallbackQuery()
  })
  // an ephemeral message (Bot API 10.2-10.3) only the sender sees, its buttons edit or delete it
  bot.hears('secret', (ctx) =>
    ctx.api.raw.sendMessage({
      chat_id: ctx.chat.id,
      text: 'Only for you',
      reply_markup: new InlineKeyboard().text('Reveal', 'eph-edit').text('Dismiss', 'eph-delete'),
      ephemeral_message_parameters: {receiver_user_id: ctx.from!.id},
    } as Parameters<typeof ctx.api.raw.sendMessage>[0]),
  )
  const ephemeralCall = (method: string, ctx: {callbackQuery: {message?: object}}, extra: object = {}) => {
    const m = ctx.callbackQuery.message as {
      chat: {id: number}
      receiver_user: {id: number}
      ephemeral_message_id: number
    }
    const raw = bot.api.raw as unknown as Record<string, (payload: object) => Promise<unknown>>
    return raw[method]({
      chat_id: m.chat.id,
      receiver_user_id: m.receiver_user.id,
      ephemeral_message_id: m.ephemeral_message_id,
      ...extra,
    })
  }
  bot.callbackQuery('eph-edit', async (ctx) => {
    await ephemeralCall('editEphemeralMessageText', ctx, {
      text: 'Revealed: 42',
      reply_markup: new InlineKeyboard().text('Dismiss', 'eph-delete'),
    })
    await ctx.answerCallbackQuery()
  })
  bot.callbackQuery('eph-delete', async (ctx) => {
    await ephemeralCall('deleteEphemeralMessage', ctx)
    await ctx.answerCallbackQuery()
  })
  bot.on('message:contact', (ctx) => ctx.reply(`got contact ${ctx.message.contact.phone_number}`))
  bot.on('message:location', (ctx) => ctx.reply(`got location ${ctx.message.location.latitude}`))
  bot.on('message:users_shared', (ctx) =>
    ctx.reply(`got users ${ctx.message.users_shared.users.map((u) => u.user_id).join(',')}`),
  )
  bot.on('message:chat_shared', (ctx) => ctx.reply(`got chat ${ctx.message.chat_shared.chat_id}`))
  bot.on('message:photo', (ctx) =>
    ctx.reply(`nice photo ${ctx.message.photo.at(-1)!.width}x${ctx.message.photo.at(-1)!.height}`),
  )
  bot.on('message:document', (ctx) => ctx.reply(`got file ${ctx.message.document.file_name}`))
  bot.hears('hello', (ctx) => ctx.reply('Hi there!'))
  bot.hears('fmt', (ctx) => ctx.reply(FORMATTED, {parse_mode: 'HTML'}))
  bot.hears('typing', async (ctx) => {
    await ctx.replyWithChatAction('typing')
  })
  bot.hears('react', (ctx) => ctx.react('👍'))
  bot.hears('del', async (ctx) => {
    const sent = await ctx.reply('to be deleted')
    await ctx.api.deleteMessage(ctx.chat.id, sent.message_id)
  })
  bot.hears('quote', (ctx) =>
    ctx.reply('answer with a quote', {
      reply_parameters: {message_id: ctx.message!.message_id, quote: 'quote'},
    }),
  )
  bot.hears('photo', (ctx) =>
    ctx.replyWithPhoto(new InputFile(PNG, 'red.png'), {caption: 'a <b>red</b> square', parse_mode: 'HTML'}),
  )
  bot.hears('doc', (ctx) => ctx.replyWithDocument(new InputFile(Buffer.from('hello file\n'), 'notes.txt')))
  bot.hears('places', async (ctx) => {
    await ctx.replyWithLocation(51.5, -0.12)
    await ctx.replyWithVenue(48.85, 2.35, 'Louvre', 'Rue de Rivoli')
    await ctx.replyWithContact('+15550002222', 'Ann')
    await ctx.replyWithDice('🎲')
  })
  bot.hears('voice', (ctx) => ctx.replyWithVoice(new InputFile(Buffer.from('OggS fake voice'), 'v.ogg')))
  bot.hears('video', (ctx) =>
    ctx.replyWithVideo(new InputFile(Buffer.from('fake mp4 video'), 'clip.mp4'), {caption: 'a clip'}),
  )
  bot.hears('audio', (ctx) =>
    ctx.replyWithAudio(new InputFile(Buffer.from('ID3 fake mp3'), 'song.mp3'), {performer: 'Ann', title: 'Song'}),
  )
  bot.hears('sticker', (ctx) => ctx.replyWithSticker(new InputFile(PNG, 'sticker.webp')))
  bot.hears('round', (ctx) => ctx.replyWithVideoNote(new InputFile(Buffer.from('fake mp4 round'), 'note.mp4')))
  // the menu button of this chat becomes a Mini App (setChatMenuButton), given by the user as "menuapp URL"
  bot.hears(/^menuapp (\S+)$/, async (ctx) => {
    await ctx.api.setChatMenuButton({
      chat_id: ctx.chat.id,
      menu_button: {type: 'web_app', text: 'Open app', web_app: {url: ctx.match[1]}},
    })
    await ctx.reply('menu set')
  })
  bot.on('channel_post:text', (ctx) => ctx.reply(`channel echo: ${ctx.channelPost.text}`))
  bot.hears('poll', (ctx) => ctx.replyWithPoll('Best colour?', ['red', 'green', 'blue'], {is_anonymous: false}))
  bot.hears('quiz', (ctx) =>
    ctx.replyWithPoll('2+2?', ['3', '4'], {
      type: 'quiz',
      correct_option_ids: [1],
      explanation: 'It is four',
      is_anonymous: false,
    }),
  )
  bot.hears('stars', (ctx) =>
    ctx.replyWithInvoice('Star pack', 'Fifty stars of joy', 'stars-1', 'XTR', [{label: 'pack', amount: 50}]),
  )
  bot.hears('shop', (ctx) =>
    ctx.replyWithInvoice('T-shirt', 'A nice shirt', 'shirt-1', 'USD', [{label: 'shirt', amount: 1500}], {
      provider_token: '1234567890:TEST:emulator',
      is_flexible: true,
      max_tip_amount: 1000,
      suggested_tip_amounts: [100, 500],
    }),
  )
  bot.on('shipping_query', (ctx) =>
    ctx.answerShippingQuery(true, {
      shipping_options: [
        {id: 'post', title: 'Post', prices: [{label: 'post', amount: 300}]},
        {id: 'courier', title: 'Courier', prices: [{label: 'courier', amount: 900}]},
      ],
    }),
  )
  bot.on('pre_checkout_query', (ctx) => ctx.answerPreCheckoutQuery(true))
  bot.on('message:successful_payment', (ctx) =>
    ctx.reply(`thanks for ${ctx.message.successful_payment.total_amount} ${ctx.message.successful_payment.currency}`),
  )
  bot.on('inline_query', (ctx) =>
    ctx.answerInlineQuery(
      [
        {
          type: 'article',
          id: 'a1',
          title: `Result for ${ctx.inlineQuery.query}`,
          description: 'the first',
          input_message_content: {message_text: `picked ${ctx.inlineQuery.query}`},
        },
        {type: 'article', id: 'a2', title: 'Another', input_message_content: {message_text: 'another'}},
      ],
      {cache_time: 0},
    ),
  )
  bot.on('chosen_inline_result', () => {})
  bot.on('message:text', (ctx) => ctx.reply(`echo: ${ctx.message.text}`))
  bot.catch(() => {})
  await bot.init()
  void bot.start({
    drop_pending_updates: false,
    allowed_updates: [
      'message',
      'callback_query',
      'inline_query',
      'chosen_inline_result',
      'shipping_query',
      'pre_checkout_query',
      'poll_answer',
      'message_reaction',
      'channel_post',
    ],
  })
  return {
    async stop() {
      await bot.stop()
    },
  }
}

export async function startTelegraf(apiRoot: string, token: string): Promise<RunningBot> {
  const bot = new Telegraf(token, {telegram: {apiRoot}})
  bot.start((ctx) => ctx.reply('Telegraf welcomes you'))
  bot.hears('buttons', (ctx) =>
    ctx.reply('Telegraf keyboard', {
      reply_markup: {inline_keyboard: [[{text: 'Press', callback_data: 'press'}]]},
    }),
  )
  bot.action('press', async (ctx) => {
    await ctx.answerCbQuery('Telegraf toast')
    await ctx.editMessageText('Telegraf edited')
  })
  bot.hears('poll', (ctx) => ctx.replyWithPoll('Telegraf poll?', ['yes', 'no'], {is_anonymous: false}))
  bot.hears('bold', (ctx) => ctx.replyWithMarkdownV2('*strong* and ||hidden|| and `code`'))
  bot.on('poll_answer', () => {})
  bot.on('text', (ctx) => ctx.reply(`telegraf echo: ${ctx.message.text}`))
  bot.catch(() => {})
  // launch() resolves only when polling stops; updates the page sends meanwhile wait in the emulator's queue
  void bot.launch({allowedUpdates: ['message', 'callback_query', 'poll_answer']})
  return {
    async stop() {
      bot.stop('test over')
    },
  }
}

// Mini Apps (docs/chat.md): this module is filled by the Mini App part of the page. It listens for
// `bot-chat:open-web-app` events the chat page dispatches when a web_app button (inline, reply
// keyboard, menu button) is pressed: {token, url, chatId, userId, source, startParam}.
export {}

// The chat page (docs/chat.md): a Telegram client for the bot, over the page API of src/chat/server.ts.
'use strict'
;(function () {
  const R = window.BotChatRender
  const key = document.querySelector('meta[name="bot-chat-key"]').content
  const base = document.querySelector('meta[name="bot-chat-base"]').content || '/'
  const $ = (id) => document.getElementById(id)
  const REACTIONS = ['👍', '❤', '🔥', '🎉', '😁', '👎']
  /** Messages fetched at a time: the newest when a chat opens, older ones on scrolling up. */
  const PAGE = 100

  const state = {
    me: {id: 0, username: 'bot', first_name: 'bot'},
    token: '',
    users: [],
    user: undefined,
    chats: new Map(),
    chatId: undefined,
    /** chat id → Map message_id → view */
    messages: new Map(),
    /** chat id → the reply keyboard shown (or undefined) */
    keyboards: new Map(),
    card: undefined,
    replyTo: undefined,
    myReactions: new Map(),
    myVotes: new Map(),
    paid: new Set(),
    inlineQueryId: undefined,
    typingTimer: undefined,
    /** 'chat:receiver:ephemeral_message_id' → view: the ephemeral messages (Bot API 10.2) the page knows */
    ephemeral: new Map(),
    /** Online (`bot dev` against Telegram): {synthetic, reason?}; what the page sends is a synthetic update. */
    online: undefined,
  }

  /** Online, an action a person takes in Telegram itself: say why it is not sent from here (true: refused). */
  function offlineOnly(reason) {
    if (!state.online) return false
    toast(reason)
    return true
  }

  function url(path, params) {
    const q = new URLSearchParams(params || {})
    if (key) q.set('key', key)
    const s = q.toString()
    return base + path + (s ? '?' + s : '')
  }

  function api(path, init) {
    init = init || {}
    init.headers = Object.assign(key ? {'x-bot-dev-key': key} : {}, init.headers || {})
    return fetch(base + path, init).then((res) =>
      res.json().then((body) => {
        if (!res.ok) throw new Error((body && body.error) || 'HTTP ' + res.status)
        return body
      }),
    )
  }

  function act(name, input) {
    return api('api/actions/' + name, {
      method: 'POST',
      headers: {'content-type': 'application/json'},
      body: JSON.stringify(input),
    })
  }

  function who() {
    return {user_id: state.user.id, first_name: state.user.first_name}
  }

  function where() {
    const out = {chat_id: state.chatId}
    const chat = state.chats.get(state.chatId)
    if (chat && chat.type !== 'private' && chat.title) out.chat_title = chat.title
    const topic = Number($('topic').value)
    if (chat && chat.is_forum && Number.isInteger(topic) && topic > 0) out.message_thread_id = topic
    return out
  }

  let toastTimer
  function toast(text) {
    const t = $('toast')
    t.textContent = text
    t.hidden = false
    clearTimeout(toastTimer)
    toastTimer = setTimeout(() => (t.hidden = true), 3000)
  }

  function alertBox(text) {
    $('alert-text').textContent = text
    if (!$('alert').open) $('alert').showModal()
  }

  function fail(err) {
    toast('✗ ' + (err && err.message ? err.message : String(err)))
  }

  // ── chats and users ───────────────────────────────────────────────────
  function privateChatOf(user) {
    return {id: user.id, type: 'private', first_name: user.first_name}
  }

  function addChat(chat) {
    const known = state.chats.get(chat.id)
    state.chats.set(chat.id, Object.assign({}, known || {}, chat))
    if (!known) drawChats()
  }

  function drawChats() {
    const list = $('chats')
    list.textContent = ''
    for (const chat of state.chats.values()) {
      if (chat.type === 'private' && !state.users.some((u) => u.id === chat.id)) continue
      const li = document.createElement('li')
      li.dataset.chatId = chat.id
      li.textContent = chat.type === 'private' ? R.nameOf(chat) : chat.title || String(chat.id)
      const kind = document.createElement('span')
      kind.className = 'kind'
      kind.textContent = chat.type === 'private' ? 'private chat' : chat.is_forum ? 'supergroup · topics' : chat.type
      li.append(kind)
      if (chat.id === state.chatId) li.setAttribute('aria-current', 'true')
      li.addEventListener('click', () => openChat(chat.id))
      list.append(li)
    }
  }

  function drawUsers() {
    const sel = $('user-select')
    sel.textContent = ''
    for (const u of state.users) {
      const o = document.createElement('option')
      o.value = u.id
      o.textContent = u.first_name + ' (' + u.id + ')'
      sel.append(o)
    }
    sel.value = state.user.id
  }

  function setUser(id) {
    const user = state.users.find((u) => u.id === id)
    if (!user) return
    const wasPrivate = state.chats.get(state.chatId)
    state.user = user
    addChat(privateChatOf(user))
    drawUsers()
    drawChats()
    // In a private chat, switching who types switches to that user's own chat with the bot.
    if (!wasPrivate || wasPrivate.type === 'private') openChat(user.id)
    else loadCard(), loadEphemeral(state.chatId)
  }

  // ── messages ──────────────────────────────────────────────────────────
  const ctx = {
    get me() {
      return state.me
    },
    get userId() {
      return state.user.id
    },
    fileUrl: (fileId) => url('api/files/' + encodeURIComponent(fileId)),
    press: (view, button) => press(view, button),
    vote: (view, ids) => vote(view, ids),
    react: (view, emoji) => react(view, emoji),
    pickReaction: (view, node) => pickReaction(view, node),
    myReaction: (view) => state.myReactions.get(view.message.chat.id + ':' + view.message.message_id),
    myVotes: (pollId) => state.myVotes.get(state.user.id + ':' + pollId),
    isPaid: (view) => state.paid.has(view.message.chat.id + ':' + view.message.message_id),
    pay: (view) => payDialog(view),
    sendText: (text) => sendText(text),
    openReply: (id) => {
      const node = $('messages').querySelector('[data-message-id="' + id + '"]')
      if (node) node.scrollIntoView({block: 'center'})
    },
  }

  function chatMessages(chatId) {
    let map = state.messages.get(chatId)
    if (!map) state.messages.set(chatId, (map = new Map()))
    return map
  }

  /** Draw a message (a new one, or its new state); `onlyNew`: an action's own answer, which never replaces what the live feed drew since. */
  function put(view, live, onlyNew) {
    const m = view.message
    const chatId = m.chat.id
    if (onlyNew && chatMessages(chatId).has(m.message_id)) return
    if (state.online && m.chat.type === 'private' && !state.users.some((u) => u.id === chatId)) {
      // (the stand-in of a session that had no chat yet, id 0, goes)
      state.users = state.users.filter((u) => u.id !== 0)
      state.users.push(m.from && m.from.id === chatId ? m.from : Object.assign({}, m.chat))
      drawUsers()
    }
    addChat(m.chat)
    if (state.online && !state.chatId) return openChat(chatId)
    chatMessages(chatId).set(m.message_id, view)
    if (chatId !== state.chatId) return
    const box = $('messages')
    const node = R.message(view, ctx)
    const old = box.querySelector('[data-message-id="' + m.message_id + '"]')
    if (old) old.replaceWith(node)
    else {
      const stick = box.scrollHeight - box.scrollTop - box.clientHeight < 80
      let after
      for (const other of box.children)
        if (Number(other.dataset.messageId) > m.message_id) {
          after = other
          break
        }
      box.insertBefore(node, after || null)
      if (stick || (m.from && m.from.id === state.user.id)) box.scrollTop = box.scrollHeight
    }
    if (live && m.from && m.from.id === state.me.id) $('chat-sub').classList.remove('typing'), drawSub()
    drawIntro()
  }

  function remove(chatId, ids) {
    const map = chatMessages(chatId)
    for (const id of ids) {
      map.delete(id)
      if (chatId === state.chatId) {
        const node = $('messages').querySelector('[data-message-id="' + id + '"]')
        if (node) node.remove()
      }
    }
    drawIntro()
  }

  // ── ephemeral messages (Bot API 10.2): shown only to their receiver, never in the chat's history ──
  function ephemeralKey(chatId, userId, id) {
    return chatId + ':' + userId + ':' + id
  }

  function ephemeralNode(view) {
    const node = R.message(view, ctx)
    node.title = 'Only you can see this message (an ephemeral message)'
    return node
  }

  /** The feed's `ephemeral` event: keep it, and draw it if it is the acting user's in the open chat. */
  function putEphemeral(e) {
    const k = ephemeralKey(e.chat_id, e.receiver_user_id, e.ephemeral_message_id)
    if (e.view) state.ephemeral.set(k, e.view)
    else state.ephemeral.delete(k)
    if (state.ephemeral.size > 1000) state.ephemeral.delete(state.ephemeral.keys().next().value)
    if (e.chat_id !== state.chatId || !state.user || e.receiver_user_id !== state.user.id) return
    const box = $('messages')
    const old = box.querySelector('[data-ephemeral-id="' + e.ephemeral_message_id + '"]')
    if (!e.view) {
      if (old) old.remove()
      return
    }
    const node = ephemeralNode(e.view)
    if (old) {
      // where it stood among the chat's messages stays
      node.dataset.messageId = old.dataset.messageId
      old.replaceWith(node)
      return
    }
    drawEphemeralAtEnd(node)
    box.scrollTop = box.scrollHeight
  }

  /** After the newest message drawn: its data-message-id is that message's, so later messages come after it. */
  function drawEphemeralAtEnd(node) {
    const box = $('messages')
    let last = 0
    for (const other of box.children)
      if (!other.dataset.ephemeralId) last = Math.max(last, Number(other.dataset.messageId) || 0)
    node.dataset.messageId = String(last)
    box.append(node)
  }

  /** Redraw the open chat's ephemeral messages for the acting user (a chat opened, another user chosen). */
  function drawEphemeral() {
    const box = $('messages')
    for (const node of [...box.querySelectorAll('[data-ephemeral-id]')]) node.remove()
    const prefix = state.chatId + ':' + state.user.id + ':'
    for (const [k, view] of state.ephemeral) if (k.startsWith(prefix)) drawEphemeralAtEnd(ephemeralNode(view))
  }

  function loadEphemeral(chatId) {
    return api('api/chats/' + chatId + '/ephemeral?' + new URLSearchParams({user_id: String(state.user.id)}))
      .then((views) => {
        for (const view of views)
          state.ephemeral.set(ephemeralKey(chatId, state.user.id, view.message.ephemeral_message_id), view)
        if (state.chatId === chatId) drawEphemeral()
      })
      .catch(() => {})
  }

  function openChat(chatId, preloaded) {
    state.chatId = chatId
    // Online a private chat is its user's: the page sends as them there.
    const person = state.online && chatId > 0 && state.users.find((u) => u.id === chatId)
    if (person && person !== state.user) {
      state.user = person
      $('user-select').value = String(person.id)
    }
    state.replyTo = undefined
    $('reply-preview').hidden = true
    const chat = state.chats.get(chatId) || {id: chatId, type: chatId > 0 ? 'private' : 'group'}
    drawChats()
    $('chat-title').textContent = chat.type === 'private' ? R.nameOf(state.me) : chat.title || String(chatId)
    $('topic-box').hidden = !chat.is_forum
    // (offline, in a channel the acting user writes as its administrator: a post, which the bot gets as channel_post;
    // online, the page sends through the trigger engine, which makes private and group messages only)
    $('composer').hidden = state.online ? chat.type === 'channel' || !chatId : false
    drawSub()
    $('messages').textContent = ''
    const started = performance.now()
    state.older = undefined
    // The newest PAGE messages first, as Telegram's clients open a chat; older ones as the user scrolls up.
    return (preloaded ? Promise.resolve(preloaded) : api('api/chats/' + chatId + '/messages?limit=' + PAGE))
      .then((views) => {
        if (state.chatId !== chatId) return
        const map = chatMessages(chatId)
        // Messages the live feed drew while the list was on its way, newer than its newest, stay.
        const newest = views.length ? views[views.length - 1].message.message_id : -Infinity
        const live = [...map.values()]
          .filter((v) => v.message.message_id > newest)
          .sort((a, b) => a.message.message_id - b.message.message_id)
        map.clear()
        state.keyboards.delete(chatId)
        state.older = views.length === PAGE ? views[0].message.message_id : undefined
        const frag = document.createDocumentFragment()
        for (const view of views.concat(live)) {
          map.set(view.message.message_id, view)
          frag.append(R.message(view, ctx))
        }
        const box = $('messages')
        box.textContent = ''
        box.append(frag)
        box.scrollTop = box.scrollHeight
        // how long the chat took to open: its messages fetched and drawn (and since the page's navigation)
        document.body.dataset.openedMs = String(Math.round(performance.now() - started))
        document.body.dataset.loadedAtMs = String(Math.round(performance.now()))
        document.body.dataset.chatLoaded = String(chatId)
        drawIntro()
        return Promise.all([loadCard(), loadKeyboard(chatId), loadEphemeral(chatId)])
      })
      .catch(fail)
  }

  /** Scrolled to the top: the PAGE messages before the oldest drawn, the view kept where it was. */
  let loadingOlder = false
  function loadOlder() {
    const chatId = state.chatId
    if (state.older === undefined || loadingOlder) return
    loadingOlder = true
    api('api/chats/' + chatId + '/messages?limit=' + PAGE + '&before=' + state.older)
      .then((views) => {
        if (state.chatId !== chatId) return
        state.older = views.length === PAGE ? views[0].message.message_id : undefined
        const box = $('messages')
        const fromBottom = box.scrollHeight - box.scrollTop
        const frag = document.createDocumentFragment()
        const map = chatMessages(chatId)
        for (const view of views) {
          if (map.has(view.message.message_id)) continue
          map.set(view.message.message_id, view)
          frag.append(R.message(view, ctx))
        }
        box.insertBefore(frag, box.firstChild)
        box.scrollTop = box.scrollHeight - fromBottom
      })
      .catch(fail)
      .finally(() => (loadingOlder = false))
  }

  function drawSub(text) {
    const chat = state.chats.get(state.chatId)
    const sub = $('chat-sub')
    if (text) {
      sub.textContent = text
      sub.classList.add('typing')
      return
    }
    sub.classList.remove('typing')
    sub.textContent =
      !chat || chat.type === 'private'
        ? 'bot · you are ' + state.user.first_name
        : chat.type + ' · you are ' + state.user.first_name
  }

  function loadCard() {
    return api('api/bot?chat_id=' + state.chatId + '&user_id=' + state.user.id).then((card) => {
      state.card = card
      state.me = card.user
      $('bot-name').textContent = card.name || R.nameOf(card.user)
      $('menu-button').textContent =
        card.menu_button && card.menu_button.type === 'web_app' ? card.menu_button.text || 'App' : '☰ Menu'
      $('menu-button').hidden = !(card.menu_button && card.menu_button.type === 'web_app') && card.commands.length === 0
      drawIntro()
    })
  }

  function drawIntro() {
    const chat = state.chats.get(state.chatId)
    const empty = chatMessages(state.chatId).size === 0
    const show = empty && (!chat || chat.type === 'private')
    $('intro').hidden = !show
    if (!show) return
    if (state.online) {
      // Online a chat is listed once its user wrote: before that there is nothing to show.
      $('start').hidden = true
      $('intro-name').textContent = R.nameOf(state.me)
      $('intro-text').textContent = state.chatId
        ? 'No messages in this chat yet.'
        : 'No chat yet: write to @' + state.me.username + ' in Telegram. Each chat this session sees shows here.'
      return
    }
    const card = state.card || {}
    $('intro-name').textContent = card.name || R.nameOf(state.me)
    $('intro-text').textContent = card.description || 'What can this bot do?'
  }

  // ── sending ───────────────────────────────────────────────────────────
  function sendText(text) {
    const input = Object.assign({text}, who(), where())
    if (state.replyTo) input.reply_to_message_id = state.replyTo
    state.replyTo = undefined
    $('reply-preview').hidden = true
    return act('send_message', input)
      .then((r) => r && r.message && put({message: r.message, reactions: []}, true, true))
      .catch(fail)
  }

  function upload(file) {
    if (offlineOnly('Online the page sends text and button presses; `bot trigger photo` sends a synthetic photo.'))
      return
    const image = /^image\/(png|jpeg|gif|webp)$/.test(file.type)
    const params = Object.assign({kind: image ? 'photo' : 'document', filename: file.name}, who(), where())
    return fetch(url('api/upload', params), {
      method: 'POST',
      headers: {'content-type': file.type || 'application/octet-stream'},
      body: file,
    })
      .then((res) =>
        res.json().then((b) => {
          if (!res.ok) throw new Error(b.error)
          if (b.message) put({message: b.message, reactions: []}, true, true)
        }),
      )
      .catch(fail)
  }

  // ── buttons ───────────────────────────────────────────────────────────
  function openWebApp(webApp, source, chatId, buttonText) {
    if (offlineOnly('Mini Apps open in Telegram in an online session.')) return
    window.dispatchEvent(
      new CustomEvent('bot-chat:open-web-app', {
        detail: {
          token: state.token,
          url: webApp.url,
          chatId: chatId,
          userId: state.user.id,
          source: source,
          startParam: webApp.start_param,
          buttonText: buttonText,
        },
      }),
    )
  }

  function press(view, button) {
    const m = view.message
    if (button.callback_data !== undefined)
      return act(
        'press_button',
        Object.assign(
          {data: button.callback_data, chat_id: m.chat.id},
          // an ephemeral message (Bot API 10.2: message_id 0) is pressed by its ephemeral_message_id
          m.message_id === 0 && m.ephemeral_message_id
            ? {ephemeral_message_id: m.ephemeral_message_id}
            : {message_id: m.message_id},
          who(),
        ),
      ).catch(fail)
    if (button.url || button.login_url) {
      const href = R.safeUrl(button.url || button.login_url.url)
      if (href) window.open(href, '_blank', 'noopener,noreferrer')
      return
    }
    if (button.web_app) return openWebApp(button.web_app, 'inline', m.chat.id)
    if (button.copy_text) {
      const text = button.copy_text.text
      if (navigator.clipboard) navigator.clipboard.writeText(text).catch(() => {})
      document.body.dataset.copied = text
      return toast('Copied to clipboard')
    }
    const inline =
      button.switch_inline_query ??
      button.switch_inline_query_current_chat ??
      (button.switch_inline_query_chosen_chat && (button.switch_inline_query_chosen_chat.query || ''))
    if (inline !== undefined) {
      $('input').value = '@' + state.me.username + ' ' + inline
      $('input').focus()
      return inlineQuery()
    }
    if (button.callback_game !== undefined)
      return act(
        'press_button',
        Object.assign(
          {data: '', game_short_name: (m.game && m.game.title) || 'game', message_id: m.message_id, chat_id: m.chat.id},
          who(),
        ),
      ).catch(fail)
    if (button.pay) return payDialog(view)
  }

  function vote(view, ids) {
    const p = view.message.poll
    return act('vote_poll', Object.assign({poll_id: p.id, option_ids: ids}, who()))
      .then(() => {
        state.myVotes.set(state.user.id + ':' + p.id, ids)
        return refresh(view.message.chat.id, view.message.message_id)
      })
      .catch(fail)
  }

  function refresh(chatId, messageId) {
    return api('api/chats/' + chatId + '/messages/' + messageId).then((v) => put(v, false))
  }

  function react(view, emoji) {
    const k = view.message.chat.id + ':' + view.message.message_id
    const mine = state.myReactions.get(k) === emoji
    return act(
      'react',
      Object.assign(
        {chat_id: view.message.chat.id, message_id: view.message.message_id, reaction: mine ? [] : [emoji]},
        who(),
      ),
    )
      .then(() => {
        if (mine) state.myReactions.delete(k)
        else state.myReactions.set(k, emoji)
        return refresh(view.message.chat.id, view.message.message_id)
      })
      .catch(fail)
  }

  function pickReaction(view, node) {
    if (
      offlineOnly('Online the page sends text and button presses; `bot trigger reaction` sends a synthetic reaction.')
    )
      return
    const old = node.querySelector('.react-bar')
    if (old) return old.remove()
    const bar = document.createElement('div')
    bar.className = 'react-bar'
    for (const e of REACTIONS) {
      const b = document.createElement('button')
      b.type = 'button'
      b.textContent = e
      b.addEventListener('click', () => react(view, e))
      bar.append(b)
    }
    node.append(bar)
  }

  // ── payments ──────────────────────────────────────────────────────────
  let paying
  function payDialog(view) {
    if (offlineOnly('A real invoice is paid in Telegram; `bot trigger payment` sends a synthetic payment.')) return
    const inv = view.message.invoice
    paying = view
    $('pay-title').textContent = inv.title
    $('pay-desc').textContent = inv.description
    $('pay-total').textContent = R.money(inv.total_amount, inv.currency)
    $('pay-result').textContent = ''
    const tips = $('pay-tip')
    tips.textContent = ''
    const suggested = view.message.invoice_tips || []
    $('pay-tip-box').hidden = inv.currency === 'XTR'
    for (const amount of [0].concat(suggested.length ? suggested : inv.currency === 'XTR' ? [] : [100, 500, 1000])) {
      const o = document.createElement('option')
      o.value = amount
      o.textContent = amount ? R.money(amount, inv.currency) : 'no tip'
      tips.append(o)
    }
    $('pay-shipping-box').hidden = inv.currency === 'XTR'
    $('pay-go').disabled = false
    if (!$('pay').open) $('pay').showModal()
  }

  function pay() {
    const view = paying
    if (!view) return
    const input = Object.assign({invoice: view.message.message_id, chat_id: view.message.chat.id}, who())
    const tip = Number($('pay-tip').value)
    if (tip > 0) input.tip_amount = tip
    if ($('pay-shipping').value.trim()) input.shipping_option_id = $('pay-shipping').value.trim()
    $('pay-go').disabled = true
    $('pay-result').textContent = 'Paying…'
    return act('pay_invoice', input)
      .then((attempt) => {
        $('pay-result').textContent =
          attempt.status === 'paid'
            ? '✓ Paid'
            : '✗ ' + attempt.status + (attempt.error_message ? ': ' + attempt.error_message : '')
        $('pay-result').dataset.status = attempt.status
        if (attempt.status === 'paid') {
          state.paid.add(view.message.chat.id + ':' + view.message.message_id)
          refresh(view.message.chat.id, view.message.message_id).catch(() => {})
        }
      })
      .catch((err) => {
        $('pay-result').textContent = '✗ ' + err.message
        $('pay-result').dataset.status = 'error'
      })
  }

  // ── the reply keyboard ────────────────────────────────────────────────
  function loadKeyboard(chatId) {
    return api('api/chats/' + chatId + '/keyboard').then((r) => {
      if (r.markup) state.keyboards.set(chatId, r.markup)
      else state.keyboards.delete(chatId)
      drawReplyKeyboard()
    })
  }

  function drawReplyKeyboard() {
    const box = $('reply-keyboard')
    const markup = state.keyboards.get(state.chatId)
    box.textContent = ''
    box.hidden = !markup
    $('keyboard-toggle').hidden = !markup
    if (!markup) return
    if (markup.input_field_placeholder) $('input').placeholder = markup.input_field_placeholder
    for (const row of markup.keyboard) {
      const r = document.createElement('div')
      r.className = 'row'
      for (const raw of row) {
        const button = typeof raw === 'string' ? {text: raw} : raw
        const b = document.createElement('button')
        b.type = 'button'
        b.textContent = button.text
        b.addEventListener('click', () => pressReply(button, markup))
        r.append(b)
      }
      box.append(r)
    }
  }

  function pressReply(button, markup) {
    if (markup.one_time_keyboard) {
      state.keyboards.delete(state.chatId)
      drawReplyKeyboard()
    }
    if (button.web_app) return openWebApp(button.web_app, 'keyboard', state.chatId, button.text)
    if (button.request_contact) return share('contact', button)
    if (button.request_location) return share('location', button)
    if (button.request_users) return share('users', button)
    if (button.request_chat) return share('chat', button)
    return sendText(button.text)
  }

  let sharing
  function share(kind, button) {
    if (offlineOnly('Online the page sends text and button presses: share it from Telegram.')) return
    sharing = {kind, button}
    const fields = $('share-fields')
    fields.textContent = ''
    const field = (name, label, value) => {
      const l = document.createElement('label')
      l.textContent = label + ' '
      const i = document.createElement('input')
      i.name = name
      i.value = value
      l.append(i)
      fields.append(l)
    }
    if (kind === 'contact') {
      $('share-title').textContent = 'Share your phone number'
      field('phone_number', 'Phone', '+15550001111')
    }
    if (kind === 'location') {
      $('share-title').textContent = 'Share your location'
      field('latitude', 'Latitude', '51.5074')
      field('longitude', 'Longitude', '-0.1278')
    }
    if (kind === 'users') {
      $('share-title').textContent = 'Choose users'
      field(
        'user_ids',
        'User ids (comma-separated)',
        state.users
          .filter((u) => u.id !== state.user.id)
          .map((u) => u.id)
          .join(',') || '2222',
      )
    }
    if (kind === 'chat') {
      $('share-title').textContent = 'Choose a chat'
      const other = [...state.chats.values()].find((c) => c.type !== 'private')
      field('shared_chat_id', 'Chat id', other ? other.id : '-1001234567890')
    }
    $('share').showModal()
  }

  function doShare() {
    const s = sharing
    if (!s) return
    const form = new FormData($('share-form'))
    const input = Object.assign({}, who(), where())
    let name
    if (s.kind === 'contact') {
      name = 'share_contact'
      input.phone_number = String(form.get('phone_number'))
    }
    if (s.kind === 'location') {
      name = 'share_location'
      input.latitude = Number(form.get('latitude'))
      input.longitude = Number(form.get('longitude'))
    }
    if (s.kind === 'users') {
      name = 'share_users'
      input.request_id = s.button.request_users.request_id
      input.user_ids = String(form.get('user_ids'))
        .split(',')
        .map((x) => Number(x.trim()))
        .filter((x) => x > 0)
    }
    if (s.kind === 'chat') {
      name = 'share_chat'
      input.request_id = s.button.request_chat.request_id
      input.shared_chat_id = Number(form.get('shared_chat_id'))
    }
    $('share').close()
    return act(name, input)
      .then((r) => r && r.message && put({message: r.message, reactions: []}, true, true))
      .catch(fail)
  }

  // ── commands menu, menu button, inline mode ───────────────────────────
  function drawCommands(filter) {
    const menu = $('commands-menu')
    const commands = ((state.card && state.card.commands) || []).filter(
      (c) => !filter || ('/' + c.command).startsWith(filter),
    )
    menu.textContent = ''
    menu.hidden = commands.length === 0
    for (const c of commands) {
      const b = document.createElement('button')
      b.type = 'button'
      b.dataset.command = c.command
      const name = document.createElement('span')
      name.className = 'cmd'
      name.textContent = '/' + c.command
      const desc = document.createElement('span')
      desc.className = 'desc'
      desc.textContent = c.description
      b.append(name, desc)
      b.addEventListener('click', () => {
        menu.hidden = true
        $('input').value = ''
        sendText('/' + c.command)
      })
      menu.append(b)
    }
  }

  let inlineTimer
  function inlineQuery() {
    const value = $('input').value
    const prefix = '@' + state.me.username + ' '
    const box = $('inline-results')
    if (!state.me.username || !value.toLowerCase().startsWith(prefix.toLowerCase())) {
      box.hidden = true
      return
    }
    clearTimeout(inlineTimer)
    inlineTimer = setTimeout(() => {
      const chat = state.chats.get(state.chatId)
      act(
        'inline_query',
        Object.assign(
          {
            query: value.slice(prefix.length),
            chat_type: chat && chat.type === 'private' ? 'sender' : (chat && chat.type) || 'sender',
          },
          who(),
        ),
      )
        .then((r) => {
          state.inlineQueryId = r.inline_query.id
          // the bot may have answered before this request came back (the event stream is faster)
          if (answeredInline.has(r.inline_query.id)) return showInline(r.inline_query.id)
          box.hidden = false
          box.textContent = ''
          const wait = document.createElement('div')
          wait.className = 'empty'
          wait.textContent = 'Waiting for the bot…'
          box.append(wait)
        })
        .catch((err) => {
          box.hidden = false
          box.textContent = ''
          const e = document.createElement('div')
          e.className = 'empty'
          e.textContent = err.message
          box.append(e)
        })
    }, 250)
  }

  /** Inline queries the bot has answered (newest few), for an answer that comes before the query's own request ends. */
  const answeredInline = new Set()
  function showInline(queryId) {
    answeredInline.add(queryId)
    if (answeredInline.size > 50) answeredInline.delete(answeredInline.values().next().value)
    if (queryId !== state.inlineQueryId) return
    api('api/inline/' + encodeURIComponent(queryId)).then((r) => {
      const box = $('inline-results')
      box.textContent = ''
      box.hidden = false
      const results = (r.answer && r.answer.results) || []
      if (results.length === 0) {
        const e = document.createElement('div')
        e.className = 'empty'
        e.textContent = 'No results'
        box.append(e)
      }
      for (const result of results) {
        const b = document.createElement('button')
        b.type = 'button'
        b.dataset.resultId = result.id
        const title = document.createElement('div')
        title.textContent =
          result.title || (result.input_message_content && result.input_message_content.message_text) || result.type
        const desc = document.createElement('div')
        desc.className = 'desc'
        desc.textContent = result.description || result.type
        b.append(title, desc)
        b.addEventListener('click', () => chooseInline(queryId, result))
        box.append(b)
      }
    })
  }

  function chooseInline(queryId, result) {
    $('inline-results').hidden = true
    $('input').value = ''
    return act('choose_inline_result', {query_id: queryId, result_id: String(result.id)})
      .then(() => {
        const content = result.input_message_content || {}
        const message = {
          message_id: -Date.now(),
          from: state.user,
          chat: state.chats.get(state.chatId),
          date: Math.floor(Date.now() / 1000),
          via_bot: state.me,
          text: content.message_text || result.title || result.type,
          entities: content.entities,
        }
        put({message, reactions: []}, false)
      })
      .catch(fail)
  }

  function menuButton() {
    const mb = state.card && state.card.menu_button
    if (mb && mb.type === 'web_app') return openWebApp(mb.web_app, 'menu', state.chatId)
    const menu = $('commands-menu')
    if (!menu.hidden) return (menu.hidden = true)
    drawCommands('')
  }

  // ── the live feed ─────────────────────────────────────────────────────
  function connect() {
    const source = new EventSource(url('api/events'))
    const status = $('status')
    source.onopen = () => {
      status.dataset.state = 'live'
      status.textContent = 'live'
    }
    source.onerror = () => {
      status.dataset.state = 'lost'
      status.textContent = 'reconnecting…'
    }
    const on = (name, fn) =>
      source.addEventListener(name, (ev) => {
        try {
          fn(JSON.parse(ev.data))
        } catch (err) {
          console.warn(err)
        }
      })
    on('message', (e) => put(e.view, true))
    on('delete', (e) => remove(e.chat_id, e.message_ids))
    on('ephemeral', putEphemeral)
    on('action', (e) => {
      if (e.chat_id !== state.chatId) return
      const words = {
        typing: 'typing…',
        upload_photo: 'sending a photo…',
        record_video: 'recording a video…',
        upload_video: 'sending a video…',
        record_voice: 'recording a voice message…',
        upload_voice: 'sending a voice message…',
        upload_document: 'sending a file…',
        choose_sticker: 'choosing a sticker…',
        find_location: 'finding a location…',
        record_video_note: 'recording a video message…',
        upload_video_note: 'sending a video message…',
      }
      drawSub(words[e.action] || e.action + '…')
      clearTimeout(state.typingTimer)
      state.typingTimer = setTimeout(() => drawSub(), 5000)
    })
    on('callback', (e) => {
      if (e.url) window.open(e.url, '_blank', 'noopener,noreferrer')
      if (!e.text) return
      if (e.show_alert) alertBox(e.text)
      else toast(e.text)
    })
    on('inline', (e) => showInline(e.query_id))
    on('keyboard', (e) => {
      if (e.markup) state.keyboards.set(e.chat_id, e.markup)
      else state.keyboards.delete(e.chat_id)
      if (e.chat_id === state.chatId) drawReplyKeyboard()
    })
    on('profile', () => loadCard().catch(() => {}))
  }

  /**
   * Online: the chats are the real ones the session saw, the page's input goes to the bot as a synthetic update (the
   * session's `bot trigger`); what a person does only in Telegram is disabled with the reason.
   */
  function goOnline(config) {
    document.body.dataset.online = 'true'
    $('status').title = 'bot dev against Telegram: what you send here is a synthetic update (bot trigger)'
    $('new-chat-box').hidden = true
    $('new-user-box').hidden = true
    const attach = document.querySelector('.attach')
    attach.classList.add('disabled')
    attach.title = 'Online the page sends text and button presses; `bot trigger photo` sends a synthetic photo.'
    $('file').disabled = true
    if (config.online.synthetic) {
      $('input').placeholder = 'Message (sent as a synthetic update, as bot trigger does)'
      return
    }
    $('input').disabled = true
    $('send').disabled = true
    $('input').placeholder = config.online.reason
    $('composer').title = config.online.reason
  }

  // ── wiring ────────────────────────────────────────────────────────────
  function wire() {
    $('composer').addEventListener('submit', (ev) => {
      ev.preventDefault()
      const text = $('input').value
      if (!text.trim()) return
      if (!$('inline-results').hidden) return
      $('input').value = ''
      $('commands-menu').hidden = true
      sendText(text)
    })
    $('input').addEventListener('input', () => {
      const v = $('input').value
      if (/^\/\S*$/.test(v)) drawCommands(v)
      else $('commands-menu').hidden = true
      inlineQuery()
    })
    $('start').addEventListener('click', () => sendText('/start'))
    $('menu-button').addEventListener('click', menuButton)
    $('keyboard-toggle').addEventListener('click', () => ($('reply-keyboard').hidden = !$('reply-keyboard').hidden))
    $('file').addEventListener('change', () => {
      const f = $('file').files[0]
      if (f) upload(f)
      $('file').value = ''
    })
    const main = $('main')
    main.addEventListener('dragover', (ev) => {
      ev.preventDefault()
      main.classList.add('drop-target')
    })
    main.addEventListener('dragleave', () => main.classList.remove('drop-target'))
    main.addEventListener('drop', (ev) => {
      ev.preventDefault()
      main.classList.remove('drop-target')
      for (const f of ev.dataTransfer.files) upload(f)
    })
    $('messages').addEventListener('scroll', () => {
      if ($('messages').scrollTop < 200) loadOlder()
    })
    $('user-select').addEventListener('change', () => setUser(Number($('user-select').value)))
    $('new-user').addEventListener('submit', (ev) => {
      ev.preventDefault()
      const name = $('new-user-name').value.trim()
      let id = Number($('new-user-id').value)
      if (!Number.isInteger(id) || id <= 0)
        id =
          Math.max.apply(
            null,
            state.users.map((u) => u.id),
          ) + 1
      if (!name || state.users.some((u) => u.id === id)) return fail(new Error('that user exists already'))
      state.users.push({id, first_name: name})
      $('new-user-name').value = $('new-user-id').value = ''
      setUser(id)
    })
    $('new-chat').addEventListener('submit', (ev) => {
      ev.preventDefault()
      const t = $('new-chat-type').value
      const body = {type: t === 'forum' ? 'supergroup' : t, title: $('new-chat-title').value, is_forum: t === 'forum'}
      api('api/chats', {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify(body)})
        .then((r) => {
          addChat(r.chat)
          $('new-chat-title').value = ''
          openChat(r.chat.id)
        })
        .catch(fail)
    })
    $('pay-go').addEventListener('click', pay)
    $('pay-cancel').addEventListener('click', () => $('pay').close())
    $('share-go').addEventListener('click', doShare)
    $('share-cancel').addEventListener('click', () => $('share').close())
    $('reply-cancel').addEventListener('click', () => {
      state.replyTo = undefined
      $('reply-preview').hidden = true
    })
    $('messages').addEventListener('dblclick', (ev) => {
      const node = ev.target.closest('.msg')
      if (!node || node.classList.contains('service') || node.dataset.ephemeralId) return
      state.replyTo = Number(node.dataset.messageId)
      $('reply-preview-text').textContent =
        'Reply to: ' + (node.querySelector('.text') ? node.querySelector('.text').textContent.slice(0, 60) : 'message')
      $('reply-preview').hidden = false
      $('input').focus()
    })
  }

  const asked0 = new URLSearchParams(location.search)
  api('api/config?' + new URLSearchParams({user: asked0.get('user') || '', chat: asked0.get('chat') || ''}))
    .then((config) => {
      state.me = config.me
      state.token = config.token || ''
      state.online = config.online
      if (state.online) goOnline(config)
      // ?user=ID&name=NAME opens the page as another user (a second tab as a second person)
      const asked = new URLSearchParams(location.search)
      const askedId = Number(asked.get('user'))
      if (Number.isSafeInteger(askedId) && askedId > 0) {
        config.user = {id: askedId, first_name: asked.get('name') || 'User ' + askedId}
        config.chat_id = askedId
      }
      const askedChat = Number(asked.get('chat'))
      if (Number.isSafeInteger(askedChat) && askedChat !== 0) config.chat_id = askedChat
      state.users = config.users && config.users.length ? config.users.slice() : [config.user]
      state.user = state.users.find((u) => u.id === config.user.id) || config.user
      for (const chat of config.chats) addChat(chat)
      if (!state.online) addChat(privateChatOf(config.user))
      drawUsers()
      wire()
      connect()
      // the config carries the default chat's newest messages: a chat opens with one request
      return openChat(config.chat_id, config.chat_id === config.history_chat_id ? config.history : undefined)
    })
    .then(() => (document.body.dataset.ready = 'true'))
    .catch(fail)
})()

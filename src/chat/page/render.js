// The chat page's rendering (docs/chat.md): a Message as Telegram's clients draw it. Every text of a
// message goes into the page as text (textContent), never as HTML. `ctx` carries what the page does
// when the user clicks something: ctx.fileUrl(file_id), ctx.press(view, button), ctx.vote(view, ids),
// ctx.pay(view), ctx.react(view, emoji), ctx.sendText(text), ctx.openReply(message_id), ctx.me (the bot), ctx.userId.
'use strict'
;(function () {
  function el(tag, cls, text) {
    const node = document.createElement(tag)
    if (cls) node.className = cls
    if (text !== undefined && text !== null) node.textContent = String(text)
    return node
  }

  function safeUrl(url) {
    try {
      const u = new URL(String(url))
      return ['http:', 'https:', 'mailto:', 'tel:', 'tg:'].includes(u.protocol) ? u.href : undefined
    } catch (_e) {
      return undefined
    }
  }

  function nameOf(user) {
    if (!user) return ''
    return (
      [user.first_name, user.last_name].filter(Boolean).join(' ') ||
      user.title ||
      (user.username ? '@' + user.username : String(user.id))
    )
  }

  // ── text with entities ────────────────────────────────────────────────
  function entityNode(e, piece, ctx) {
    switch (e.type) {
      case 'bold':
        return el('strong')
      case 'italic':
        return el('em')
      case 'underline':
        return el('u')
      case 'strikethrough':
        return el('s')
      case 'spoiler': {
        const s = el('span', 'spoiler')
        s.dataset.entity = 'spoiler'
        s.title = 'spoiler: click to reveal'
        s.addEventListener('click', () => s.classList.add('revealed'))
        return s
      }
      case 'code':
        return el('code')
      case 'pre': {
        const pre = el('pre')
        if (e.language) pre.append(el('span', 'lang', e.language))
        const code = el('code')
        if (e.language) code.dataset.language = e.language
        pre.append(code)
        return {outer: pre, inner: code}
      }
      case 'blockquote':
        return el('blockquote')
      case 'expandable_blockquote': {
        const q = el('blockquote', 'expandable collapsed')
        q.addEventListener('click', () => q.classList.toggle('collapsed'))
        return q
      }
      case 'text_link': {
        const a = el('a')
        const href = safeUrl(e.url)
        if (href) a.href = href
        a.target = '_blank'
        a.rel = 'noopener noreferrer'
        return a
      }
      case 'url': {
        const a = el('a')
        const href = safeUrl(/^[a-z][a-z0-9+.-]*:/i.test(piece) ? piece : 'http://' + piece)
        if (href) a.href = href
        a.target = '_blank'
        a.rel = 'noopener noreferrer'
        return a
      }
      case 'email': {
        const a = el('a')
        a.href = 'mailto:' + piece
        return a
      }
      case 'phone_number': {
        const a = el('a')
        a.href = 'tel:' + piece.replace(/[^\d+]/g, '')
        return a
      }
      case 'text_mention': {
        const a = el('a', 'mention')
        a.title = nameOf(e.user)
        return a
      }
      case 'mention':
      case 'hashtag':
      case 'cashtag':
        return el('a', e.type)
      case 'bot_command': {
        const a = el('a', 'command')
        a.href = '#'
        a.addEventListener('click', (ev) => {
          ev.preventDefault()
          ctx.sendText && ctx.sendText(piece)
        })
        return a
      }
      case 'custom_emoji': {
        const s = el('span', 'custom-emoji')
        s.dataset.customEmojiId = e.custom_emoji_id || ''
        return s
      }
      default: {
        const s = el('span')
        s.dataset.entity = e.type
        return s
      }
    }
  }

  function build(parent, text, start, end, list, ctx) {
    let pos = start
    let i = 0
    while (i < list.length) {
      const e = list[i]
      const eEnd = Math.min(e.offset + e.length, end)
      if (e.offset < pos || e.offset >= end) {
        i++
        continue
      }
      if (e.offset > pos) parent.append(text.slice(pos, e.offset))
      const inner = []
      let j = i + 1
      while (j < list.length && list[j].offset < eEnd) {
        inner.push(list[j])
        j++
      }
      const made = entityNode(e, text.slice(e.offset, eEnd), ctx)
      const outer = made.outer || made
      outer.dataset.entity = e.type
      build(made.inner || made, text, e.offset, eEnd, inner, ctx)
      parent.append(outer)
      pos = eEnd
      i = j
    }
    if (pos < end) parent.append(text.slice(pos, end))
  }

  function formatted(text, entities, ctx, cls) {
    const box = el('div', cls || 'text')
    const list = (entities || []).slice().sort((a, b) => a.offset - b.offset || b.length - a.length)
    build(box, String(text || ''), 0, String(text || '').length, list, ctx)
    return box
  }

  // ── media ─────────────────────────────────────────────────────────────
  function size(n) {
    if (!n && n !== 0) return ''
    if (n < 1024) return n + ' B'
    if (n < 1024 * 1024) return (n / 1024).toFixed(1) + ' KB'
    return (n / 1024 / 1024).toFixed(1) + ' MB'
  }

  function media(m, ctx) {
    const out = []
    if (m.photo && m.photo.length) {
      const img = el('img', 'photo')
      img.alt = 'photo'
      img.src = ctx.fileUrl(m.photo[m.photo.length - 1].file_id)
      out.push(img)
    }
    if (m.sticker) {
      const s = m.sticker
      if (s.is_video) {
        const v = el('video', 'sticker')
        v.src = ctx.fileUrl(s.file_id)
        v.autoplay = v.loop = v.muted = true
        out.push(v)
      } else {
        const img = el('img', 'sticker')
        img.alt = s.emoji || 'sticker'
        img.src = ctx.fileUrl(s.file_id)
        out.push(img)
      }
    }
    if (m.animation) {
      const v = el('video', 'video animation')
      v.src = ctx.fileUrl(m.animation.file_id)
      v.autoplay = v.loop = v.muted = true
      out.push(v)
    } else if (m.video) {
      const v = el('video', 'video')
      v.src = ctx.fileUrl(m.video.file_id)
      v.controls = true
      v.preload = 'metadata'
      out.push(v)
    }
    if (m.video_note) {
      const v = el('video', 'video-note')
      v.src = ctx.fileUrl(m.video_note.file_id)
      v.controls = true
      out.push(v)
    }
    if (m.audio) {
      const box = el('div', 'audio-box')
      box.append(
        el(
          'div',
          'audio-title',
          [m.audio.performer, m.audio.title || m.audio.file_name].filter(Boolean).join(' — ') || 'audio',
        ),
      )
      const a = el('audio')
      a.controls = true
      a.src = ctx.fileUrl(m.audio.file_id)
      a.preload = 'none'
      box.append(a)
      out.push(box)
    }
    if (m.voice) {
      const a = el('audio', 'voice')
      a.controls = true
      a.src = ctx.fileUrl(m.voice.file_id)
      a.preload = 'none'
      a.title = 'voice message' + (m.voice.duration ? ' (' + m.voice.duration + ' s)' : '')
      out.push(a)
    }
    if (m.document && !m.animation) {
      const d = el('div', 'doc')
      d.append(el('span', 'icon', '📄'))
      const a = el('a', 'download', m.document.file_name || 'file')
      a.href = ctx.fileUrl(m.document.file_id)
      a.download = m.document.file_name || 'file'
      d.append(a, el('span', 'size', size(m.document.file_size)))
      out.push(d)
    }
    if (m.venue) {
      const b = el('div', 'box venue')
      b.append(el('div', 'title', '📍 ' + m.venue.title), el('div', 'address', m.venue.address))
      out.push(b)
    } else if (m.location) {
      const b = el(
        'div',
        'box location',
        '📍 ' + m.location.latitude + ', ' + m.location.longitude + (m.location.live_period ? ' (live)' : ''),
      )
      out.push(b)
    }
    if (m.contact) {
      const b = el('div', 'box contact')
      b.append(el('div', 'title', '👤 ' + nameOf(m.contact)), el('div', 'phone', m.contact.phone_number))
      out.push(b)
    }
    if (m.dice) {
      const b = el('div', 'dice-box')
      b.append(el('div', 'dice', m.dice.emoji), el('div', 'dice-value', 'value ' + m.dice.value))
      b.dataset.value = m.dice.value
      out.push(b)
    }
    if (m.game) out.push(el('div', 'box game', '🎮 ' + (m.game.title || 'game')))
    if (m.paid_media) out.push(el('div', 'box paid', '⭐ paid media: ' + m.paid_media.star_count + ' Stars'))
    if (m.story) out.push(el('div', 'box story', 'story'))
    if (m.checklist) {
      const b = el('div', 'box checklist')
      b.append(formatted(m.checklist.title, m.checklist.title_entities, ctx, 'title'))
      for (const t of m.checklist.tasks || []) b.append(el('div', 'task', (t.completion_date ? '☑ ' : '☐ ') + t.text))
      out.push(b)
    }
    if (m.rich_message) out.push(rich(m.rich_message, ctx))
    return out
  }

  // Bot API 10.1 rich messages (core.telegram.org/bots/api#richmessage): RichBlock blocks whose texts are RichText
  // (a string, an array of RichText, or a styled object {type, text}); drawn as Telegram's clients draw an article.
  const RICH_TAGS = {
    bold: 'strong',
    italic: 'em',
    underline: 'u',
    strikethrough: 's',
    code: 'code',
    subscript: 'sub',
    superscript: 'sup',
    marked: 'mark',
  }

  function richText(rt, ctx) {
    if (rt === undefined || rt === null) return document.createTextNode('')
    if (typeof rt === 'string' || typeof rt === 'number') return document.createTextNode(String(rt))
    if (Array.isArray(rt)) {
      const frag = document.createDocumentFragment()
      for (const part of rt) frag.append(richText(part, ctx))
      return frag
    }
    if (typeof rt !== 'object') return document.createTextNode('')
    const type = String(rt.type || '')
    let node
    if (RICH_TAGS[type]) node = el(RICH_TAGS[type])
    else if (type === 'spoiler') {
      node = el('span', 'spoiler')
      node.dataset.entity = 'spoiler'
      node.title = 'spoiler: click to reveal'
      node.addEventListener('click', () => node.classList.add('revealed'))
    } else if (type === 'custom_emoji') {
      node = el('span', 'custom-emoji', rt.alternative_text)
      node.dataset.customEmojiId = rt.custom_emoji_id || ''
      return node
    } else if (type === 'mathematical_expression') return el('code', 'math', rt.expression)
    else if (type === 'anchor') return document.createTextNode('')
    else if (type === 'url' || type === 'email_address' || type === 'phone_number') {
      const target =
        type === 'url' ? rt.url : type === 'email_address' ? 'mailto:' + rt.email_address : 'tel:' + rt.phone_number
      const href = safeUrl(target)
      node = el(href ? 'a' : 'span')
      if (href) {
        node.href = href
        node.target = '_blank'
        node.rel = 'noopener noreferrer'
      }
    } else node = el('span', 'rich-' + type.replace(/[^a-z_]/g, ''))
    node.dataset.rich = type
    node.append(richText(rt.text, ctx))
    return node
  }

  function richCaption(caption, ctx) {
    if (!caption) return undefined
    const c = el('div', 'rich-caption')
    c.append(richText(caption.text !== undefined ? caption.text : caption, ctx))
    if (caption.credit !== undefined) {
      const credit = el('div', 'rich-credit')
      credit.append(richText(caption.credit, ctx))
      c.append(credit)
    }
    return c
  }

  function richBlocks(blocks, ctx, into) {
    for (const b of Array.isArray(blocks) ? blocks : []) {
      const node = richBlock(b, ctx)
      if (node) into.append(node)
    }
    return into
  }

  function richBlock(b, ctx) {
    if (!b || typeof b !== 'object') return undefined
    const type = String(b.type || '')
    const text = (cls, tag) => {
      const node = el(tag || 'div', cls)
      // (the blocks of older drafts carried a plain text with entities)
      if (typeof b.text === 'string' && Array.isArray(b.entities)) node.append(formatted(b.text, b.entities, ctx, cls))
      else node.append(richText(b.text, ctx))
      return node
    }
    switch (type) {
      case 'paragraph':
        return text('rich-text', 'p')
      case 'heading': {
        const level = Math.min(Math.max(Number(b.size) || 1, 1), 4) + 1
        return text('rich-heading', 'h' + level)
      }
      case 'footer':
        return text('rich-footer')
      case 'thinking':
        return text('rich-thinking')
      case 'pre': {
        const pre = el('pre')
        if (b.language) pre.append(el('span', 'lang', b.language))
        const code = el('code')
        code.append(richText(b.text, ctx))
        pre.append(code)
        return pre
      }
      case 'mathematical_expression':
        return el('pre', 'math', b.expression)
      case 'divider':
        return el('hr')
      case 'anchor':
        return undefined
      case 'list': {
        const ordered = (b.items || []).some((i) => i && /^\d/.test(String(i.label || '')))
        const list = el(ordered ? 'ol' : 'ul', 'rich-list')
        for (const item of b.items || []) {
          const li = el('li')
          if (item.has_checkbox) li.append(el('span', 'check', item.is_checked ? '☑ ' : '☐ '))
          if (item.label && !ordered) li.dataset.label = item.label
          richBlocks(item.blocks, ctx, li)
          list.append(li)
        }
        return list
      }
      case 'blockquote':
      case 'expandable_blockquote':
      case 'pullquote': {
        const q = el('blockquote', type === 'blockquote' ? '' : type === 'pullquote' ? 'pull' : 'expandable collapsed')
        if (type === 'expandable_blockquote') q.addEventListener('click', () => q.classList.toggle('collapsed'))
        if (b.blocks) richBlocks(b.blocks, ctx, q)
        else q.append(richText(b.text, ctx))
        if (b.credit !== undefined) {
          const credit = el('div', 'rich-credit')
          credit.append(richText(b.credit, ctx))
          q.append(credit)
        }
        return q
      }
      case 'details': {
        const d = el('details', 'rich-details')
        d.open = Boolean(b.is_open)
        const summary = el('summary')
        summary.append(richText(b.summary, ctx))
        d.append(summary)
        return richBlocks(b.blocks, ctx, d)
      }
      case 'collage':
      case 'slideshow': {
        const box = richBlocks(b.blocks, ctx, el('div', 'rich-' + type))
        const caption = richCaption(b.caption, ctx)
        if (caption) box.append(caption)
        return box
      }
      case 'table': {
        const table = el('table', 'rich-table')
        for (const row of b.cells || []) {
          const tr = el('tr')
          for (const cell of row || []) {
            const td = el(cell && cell.is_header ? 'th' : 'td')
            if (cell) td.append(richText(cell.text, ctx))
            if (cell && cell.colspan) td.colSpan = cell.colspan
            if (cell && cell.rowspan) td.rowSpan = cell.rowspan
            tr.append(td)
          }
          table.append(tr)
        }
        if (b.caption !== undefined) {
          const caption = el('caption')
          caption.append(richText(b.caption, ctx))
          table.prepend(caption)
        }
        return table
      }
      case 'map': {
        const loc = b.location || {}
        return el('div', 'box location', '📍 ' + loc.latitude + ', ' + loc.longitude)
      }
      case 'buttons':
        return undefined
      case 'photo':
      case 'video':
      case 'animation':
      case 'audio':
      case 'voice_note':
      case 'document': {
        const field = type === 'voice_note' ? 'voice' : type
        const m = {}
        m[field] = b[type] || b[field]
        const box = el('div', 'rich-media')
        for (const node of media(m, ctx)) box.append(node)
        const caption = richCaption(b.caption, ctx)
        if (caption) box.append(caption)
        return box
      }
      default:
        return b.text !== undefined ? text('rich-text') : undefined
    }
  }

  function rich(r, ctx) {
    const box = el('div', 'rich')
    richBlocks(Array.isArray(r.blocks) ? r.blocks : Array.isArray(r) ? r : [], ctx, box)
    return box
  }

  // ── polls, invoices, service messages ─────────────────────────────────
  function poll(view, ctx) {
    const p = view.message.poll
    const box = el('div', 'poll')
    box.dataset.pollId = p.id
    box.append(formatted(p.question, p.question_entities, ctx, 'question'))
    const kind =
      (p.is_anonymous ? 'Anonymous ' : '') + (p.type === 'quiz' ? 'Quiz' : 'Poll') + (p.is_closed ? ' · closed' : '')
    box.append(el('div', 'summary', kind))
    const mine = ctx.myVotes(p.id) || []
    const voted = mine.length > 0 || p.is_closed
    const total = p.total_voter_count || 0
    const correct = p.correct_option_ids || (p.correct_option_id !== undefined ? [p.correct_option_id] : [])
    const chosen = new Set()
    p.options.forEach((o, i) => {
      const row = el('div', 'option')
      row.dataset.index = i
      if (voted && p.type === 'quiz' && correct.length)
        row.classList.add(correct.includes(i) ? 'correct' : mine.includes(i) ? 'wrong' : 'other')
      const b = el('button')
      b.type = 'button'
      const pct = total ? Math.round((o.voter_count / total) * 100) : 0
      if (voted) {
        const bar = el('span', 'bar')
        bar.style.width = pct + '%'
        b.append(bar)
      }
      b.append(el('span', 'label', (voted ? pct + '% ' : '') + (mine.includes(i) ? '✓ ' : '') + o.text))
      b.disabled = p.is_closed
      b.addEventListener('click', () => {
        if (p.allows_multiple_answers && !voted) {
          if (chosen.has(i)) chosen.delete(i)
          else chosen.add(i)
          b.classList.toggle('chosen', chosen.has(i))
          return
        }
        if (voted && !p.allows_revoting) return
        ctx.vote(view, [i])
      })
      row.append(b)
      box.append(row)
    })
    if (p.allows_multiple_answers && !voted && !p.is_closed) {
      const go = el('button', 'vote', 'Vote')
      go.type = 'button'
      go.addEventListener('click', () => ctx.vote(view, [...chosen].sort()))
      box.append(go)
    }
    box.append(el('div', 'summary total', total + (total === 1 ? ' vote' : ' votes')))
    if (voted && p.explanation)
      box.append(formatted('💡 ' + p.explanation, shift(p.explanation_entities, 3), ctx, 'explanation'))
    return box
  }

  function shift(entities, by) {
    return (entities || []).map((e) => Object.assign({}, e, {offset: e.offset + by}))
  }

  function money(amount, currency) {
    if (currency === 'XTR') return '⭐ ' + amount
    const digits = ['JPY', 'KRW', 'VND', 'CLP', 'ISK', 'UGX'].includes(currency) ? 0 : 2
    return (amount / Math.pow(10, digits)).toFixed(digits) + ' ' + currency
  }

  function invoice(view, ctx) {
    const inv = view.message.invoice
    const box = el('div', 'invoice')
    box.append(
      el('div', 'title', inv.title),
      el('div', 'desc', inv.description),
      el('div', 'price', money(inv.total_amount, inv.currency)),
    )
    const paid = ctx.isPaid && ctx.isPaid(view)
    if (paid) box.append(el('div', 'receipt', '✓ Paid'))
    // A client draws the Pay button itself when the bot's keyboard has none (core.telegram.org/bots/api#sendinvoice).
    const rows = (view.message.reply_markup && view.message.reply_markup.inline_keyboard) || []
    if (!paid && !rows.some((row) => row.some((b) => b.pay))) {
      const kb = el('div', 'inline-kb')
      const b = el('button', 'kb-button pay', 'Pay ' + money(inv.total_amount, inv.currency))
      b.type = 'button'
      b.dataset.kind = 'pay'
      b.addEventListener('click', () => ctx.pay(view))
      kb.append(b)
      box.append(kb)
    }
    return box
  }

  function service(m, ctx) {
    const who = nameOf(m.from)
    if (m.new_chat_members) return m.new_chat_members.map(nameOf).join(', ') + ' joined the group'
    if (m.left_chat_member) return nameOf(m.left_chat_member) + ' left the group'
    if (m.pinned_message)
      return who + ' pinned "' + (m.pinned_message.text || m.pinned_message.caption || 'a message').slice(0, 40) + '"'
    if (m.new_chat_title) return who + ' changed the title to "' + m.new_chat_title + '"'
    if (m.group_chat_created || m.supergroup_chat_created) return who + ' created the group'
    if (m.channel_chat_created) return 'Channel created'
    if (m.successful_payment) {
      const p = m.successful_payment
      return (
        'You paid ' + money(p.total_amount, p.currency) + ' to ' + nameOf(ctx.me) + (p.is_recurring ? ' (renewal)' : '')
      )
    }
    if (m.refunded_payment) return 'Refunded ' + money(m.refunded_payment.total_amount, m.refunded_payment.currency)
    if (m.web_app_data) return 'Data from the "' + m.web_app_data.button_text + '" Mini App sent to the bot'
    if (m.users_shared) return 'You shared ' + (m.users_shared.users || []).length + ' user(s) with the bot'
    if (m.chat_shared) return 'You shared a chat with the bot: ' + (m.chat_shared.title || m.chat_shared.chat_id)
    if (m.write_access_allowed) return 'You allowed this bot to message you'
    if (m.migrate_to_chat_id) return 'The group was upgraded to a supergroup'
    if (m.forum_topic_created) return 'Topic "' + m.forum_topic_created.name + '" created'
    if (m.boost_added) return who + ' boosted the group'
    if (m.video_chat_started) return 'Video chat started'
    if (m.video_chat_ended) return 'Video chat ended'
    if (m.chat_owner_left) return 'The owner left the chat'
    return undefined
  }

  // ── keyboards ─────────────────────────────────────────────────────────
  const KINDS = [
    ['url', '↗'],
    ['login_url', '↗'],
    ['web_app', '⧉'],
    ['switch_inline_query', '↪'],
    ['switch_inline_query_current_chat', '↪'],
    ['switch_inline_query_chosen_chat', '↪'],
    ['copy_text', '⎘'],
    ['callback_game', '🎮'],
    ['pay', '💳'],
  ]

  function inlineKeyboard(view, ctx) {
    const rows = view.message.reply_markup && view.message.reply_markup.inline_keyboard
    if (!Array.isArray(rows) || rows.length === 0) return undefined
    const kb = el('div', 'inline-kb')
    for (const row of rows) {
      const r = el('div', 'row')
      for (const button of row) {
        const b = el('button', 'kb-button')
        b.type = 'button'
        b.append(el('span', 'label', button.text))
        const kind = KINDS.find(([k]) => button[k] !== undefined)
        if (kind) {
          b.append(el('span', 'kind', kind[1]))
          b.dataset.kind = kind[0]
        } else b.dataset.kind = 'callback_data'
        b.addEventListener('click', () => ctx.press(view, button))
        r.append(b)
      }
      kb.append(r)
    }
    return kb
  }

  // ── the message ───────────────────────────────────────────────────────
  function message(view, ctx) {
    const m = view.message
    const fromBot = m.from ? m.from.id === ctx.me.id : m.chat.type === 'channel'
    const serviceText = service(m, ctx)
    const node = el('div', 'msg ' + (serviceText ? 'service' : fromBot ? 'in' : 'out'))
    node.dataset.messageId = m.message_id
    node.dataset.from = fromBot ? 'bot' : 'user'
    // An ephemeral message (Bot API 10.2: message_id 0, receiver_user): only its receiver sees it
    const ephemeral = m.message_id === 0 && m.ephemeral_message_id !== undefined
    if (ephemeral) {
      node.classList.add('ephemeral')
      node.dataset.ephemeralId = m.ephemeral_message_id
    }
    // Online: an update bot dev made up (bot trigger, the page's own input), not sent by a person in Telegram.
    if (view.synthetic) {
      node.classList.add('synthetic')
      node.dataset.synthetic = 'true'
      node.title = 'Synthetic: sent by bot dev (as bot trigger does), not by a person in Telegram'
    }
    if (serviceText) {
      node.textContent = serviceText
      return node
    }
    if (m.chat.type !== 'private' && m.chat.type !== 'channel' && !fromBot && m.from && m.from.id !== ctx.userId)
      node.append(el('div', 'sender', nameOf(m.from)))
    if (m.chat.type !== 'private' && fromBot) node.append(el('div', 'sender', nameOf(m.from || m.sender_chat)))
    if (m.forward_origin) {
      const o = m.forward_origin
      const from = o.sender_user
        ? nameOf(o.sender_user)
        : o.sender_user_name || (o.chat ? nameOf(o.chat) : o.sender_chat ? nameOf(o.sender_chat) : '')
      node.append(el('div', 'fwd', 'Forwarded from ' + from))
    }
    if (m.reply_to_message || m.external_reply) {
      const r = m.reply_to_message || m.external_reply
      const box = el('div', 'reply')
      box.append(el('div', 'reply-from', nameOf(r.from || (r.origin && (r.origin.sender_user || r.origin.chat)))))
      if (m.quote) box.append(el('div', 'quote', m.quote.text))
      else
        box.append(
          el(
            'div',
            'reply-text',
            (r.text || r.caption || (r.photo ? 'Photo' : r.document ? 'File' : 'Message')).slice(0, 80),
          ),
        )
      if (r.message_id) box.addEventListener('click', () => ctx.openReply(r.message_id))
      node.append(box)
    }
    if (m.via_bot) node.append(el('div', 'via', 'via @' + m.via_bot.username))
    const above = m.show_caption_above_media
    const caption = m.caption !== undefined ? formatted(m.caption, m.caption_entities, ctx, 'text caption') : undefined
    if (caption && above) node.append(caption)
    for (const part of media(m, ctx)) node.append(part)
    if (m.poll) node.append(poll(view, ctx))
    if (m.invoice) node.append(invoice(view, ctx))
    if (m.text !== undefined) node.append(formatted(m.text, m.entities, ctx))
    if (caption && !above) node.append(caption)
    const kb = inlineKeyboard(view, ctx)
    if (kb) node.append(kb)
    if (view.reactions && view.reactions.length) {
      const rs = el('div', 'reactions')
      for (const r of view.reactions) {
        const label = r.type.type === 'emoji' ? r.type.emoji : r.type.type === 'paid' ? '⭐' : '✨'
        const b = el('button', 'reaction', label + ' ' + r.total_count)
        b.type = 'button'
        if (r.type.type === 'emoji' && ctx.myReaction(view) === r.type.emoji) b.classList.add('mine')
        b.addEventListener('click', () => r.type.type === 'emoji' && ctx.react(view, r.type.emoji))
        rs.append(b)
      }
      node.append(rs)
    }
    if (!ephemeral) {
      const react = el('button', 'react-open', '☺')
      react.type = 'button'
      react.title = 'React'
      react.addEventListener('click', () => ctx.pickReaction(view, node))
      node.append(react)
    }
    const meta = el('div', 'meta')
    if (ephemeral) meta.append(el('span', 'ephemeral-mark', 'only you can see this'))
    if (view.synthetic) meta.append(el('span', 'synthetic-mark', 'synthetic'))
    if (m.edit_date) meta.append(el('span', 'edited', 'edited'))
    const d = new Date(m.date * 1000)
    meta.append(
      el('span', 'time', String(d.getHours()).padStart(2, '0') + ':' + String(d.getMinutes()).padStart(2, '0')),
    )
    node.append(meta)
    return node
  }

  window.BotChatRender = {message, formatted, nameOf, money, safeUrl}
})()

// The bot dev inspector page: a live list of updates (newest first) over the JSON API and SSE,
// a detail view with Replay and Edit and replay. Plain JavaScript, no framework, no CDN.
// Everything from the session is put into the page with textContent, never as HTML.
'use strict'
;(function () {
  const key = new URLSearchParams(location.search).get('key') || ''
  const MAX_ENTRIES = 2000

  /** seq -> entry, and seq -> its row */
  const entries = new Map()
  const rows = new Map()
  let selectedSeq = null
  let filterChat = ''
  let filterType = ''
  let filterTag = ''

  const $ = (id) => document.getElementById(id)
  const tbody = $('rows')

  function el(tag, className, text) {
    const node = document.createElement(tag)
    if (className) node.className = className
    if (text !== undefined && text !== null) node.textContent = String(text)
    return node
  }

  function api(path, options) {
    const init = Object.assign({cache: 'no-store'}, options || {})
    init.headers = Object.assign({'x-bot-dev-key': key}, init.headers || {})
    return fetch(path, init).then(function (res) {
      return res.text().then(function (text) {
        let body = null
        try {
          body = text ? JSON.parse(text) : null
        } catch (e) {
          body = {error: text}
        }
        if (!res.ok) {
          const err = new Error((body && body.error) || 'HTTP ' + res.status)
          err.fix = body && body.fix
          throw err
        }
        return body
      })
    })
  }

  // ---- formatting -------------------------------------------------------

  function clock(iso) {
    const d = new Date(iso)
    if (isNaN(d.getTime())) return ''
    const pad = (n, w) => String(n).padStart(w || 2, '0')
    return pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds()) + '.' + pad(d.getMilliseconds(), 3)
  }

  function ms(value) {
    if (typeof value !== 'number') return ''
    return value < 10 ? value.toFixed(1) + ' ms' : Math.round(value) + ' ms'
  }

  function pretty(text) {
    if (typeof text !== 'string') return JSON.stringify(text, null, 2)
    try {
      return JSON.stringify(JSON.parse(text), null, 2)
    } catch (e) {
      return text
    }
  }

  function failed(call) {
    return !call.ok
  }

  /** A call the bot made in its answer to the webhook request (ApiCall.webhookReply). */
  const WEBHOOK_REPLY =
    'Sent in the bot\u2019s answer to the webhook request: Telegram runs it but reports no result, so its success is not known.'

  function answerText(entry) {
    if (entry.answer) return String(entry.answer.status) + (typeof entry.ms === 'number' ? ' · ' + ms(entry.ms) : '')
    if (entry.source === 'polling') return typeof entry.ms === 'number' ? ms(entry.ms) : 'polling'
    return '…'
  }

  function answerClass(entry) {
    if (!entry.answer) return 'answer pending'
    return entry.answer.status >= 200 && entry.answer.status < 300 ? 'answer ok' : 'answer bad'
  }

  function callLabel(call) {
    return call.ok ? call.method : call.method + ' ' + (call.errorCode || 'failed')
  }

  /** Made up by the api proxy for an id `bot trigger` invented (ApiCall.answeredLocally). */
  const ANSWERED_LOCALLY =
    'Answered by bot dev\u2019s api proxy, not Telegram: it names a query, file or charge that bot trigger made up.'

  /** What each step of a payment thread is. */
  const STEPS = {
    invoice: 'the invoice',
    shipping: 'the shipping query',
    pre_checkout: 'the pre-checkout query',
    payment: 'the payment',
    refund: 'the refund',
    refunded: 'refunded',
  }

  // ---- the list ---------------------------------------------------------

  function visible(entry) {
    if (filterChat && String(entry.chatId) !== filterChat) return false
    if (filterType && entry.type !== filterType) return false
    if (filterTag && !(entry.tags || []).includes(filterTag)) return false
    return true
  }

  function buildRow(entry) {
    const tr = el('tr')
    tr.dataset.seq = String(entry.seq)
    tr.dataset.updateId = String(entry.updateId)
    tr.appendChild(el('td', 'time', clock(entry.time)))
    const id = el('td', 'id mono', entry.updateId)
    if (entry.source === 'replay' || entry.source === 'trigger') {
      id.appendChild(
        el(
          'span',
          'tag',
          entry.source === 'replay' && entry.replayOf !== undefined ? 'replay of ' + entry.replayOf : entry.source,
        ),
      )
    }
    tr.appendChild(id)
    tr.appendChild(el('td', 'type', entry.type))
    const kinds = el('td', 'kinds')
    for (const tag of entry.tags || []) kinds.appendChild(el('span', 'kind', tag))
    if (entry.thread) {
      const step = el('span', 'kind step', STEPS[entry.thread.step] || entry.thread.step)
      step.title = 'part of ' + entry.thread.kind + ' ' + entry.thread.id
      kinds.appendChild(step)
    }
    tr.appendChild(kinds)
    tr.appendChild(el('td', 'chat mono', entry.chatId === undefined ? '' : entry.chatId))
    const preview = el('td', 'preview', entry.preview || '')
    preview.title = entry.preview || ''
    tr.appendChild(preview)
    tr.appendChild(el('td', answerClass(entry), answerText(entry)))
    const calls = el('td', 'calls')
    for (const call of entry.calls || []) {
      const chip = el('span', failed(call) ? 'call failed' : 'call', callLabel(call))
      if (call.description) chip.title = call.description
      if (call.webhookReply) {
        chip.classList.add('webhook-reply')
        chip.appendChild(el('span', 'tag', 'webhook reply'))
        chip.title = WEBHOOK_REPLY
      }
      if (call.answeredLocally) {
        chip.appendChild(el('span', 'tag', 'local'))
        chip.title = ANSWERED_LOCALLY
      }
      calls.appendChild(chip)
    }
    if (entry.droppedCalls) calls.appendChild(el('span', 'call more', '+' + entry.droppedCalls + ' more'))
    tr.appendChild(calls)
    if (entry.seq === selectedSeq) tr.classList.add('selected')
    tr.hidden = !visible(entry)
    tr.tabIndex = 0
    tr.addEventListener('click', function () {
      select(entry.seq)
    })
    tr.addEventListener('keydown', function (event) {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault()
        select(entry.seq)
      }
    })
    return tr
  }

  /** Puts a new or changed entry in place (rows ordered by seq, newest first). */
  function upsert(entry, fresh) {
    entries.set(entry.seq, entry)
    const row = buildRow(entry)
    const old = rows.get(entry.seq)
    if (old) {
      tbody.replaceChild(row, old)
    } else {
      if (fresh) row.classList.add('fresh')
      let before = null
      for (const node of tbody.children) {
        if (Number(node.dataset.seq) < entry.seq) {
          before = node
          break
        }
      }
      tbody.insertBefore(row, before)
    }
    rows.set(entry.seq, row)
    trim()
    noteFilterValues(entry)
    if (entry.seq === selectedSeq) showDetail(entry)
    updateCount()
  }

  function trim() {
    while (entries.size > MAX_ENTRIES) {
      const oldest = Math.min.apply(null, Array.from(entries.keys()))
      entries.delete(oldest)
      const row = rows.get(oldest)
      if (row) row.remove()
      rows.delete(oldest)
    }
  }

  function updateCount() {
    let shown = 0
    for (const e of entries.values()) if (visible(e)) shown++
    $('count').textContent =
      entries.size === 0
        ? ''
        : shown === entries.size
          ? entries.size + ' updates'
          : shown + ' of ' + entries.size + ' updates'
    $('empty').hidden = entries.size > 0
  }

  // ---- filters ----------------------------------------------------------

  const known = {chat: new Set(), type: new Set(), tag: new Set()}

  function addOption(select, set, value) {
    if (value === undefined || value === null || value === '' || set.has(String(value))) return
    set.add(String(value))
    const values = Array.from(set).sort()
    const option = el('option', null, value)
    option.value = String(value)
    const index = values.indexOf(String(value))
    select.insertBefore(option, select.options[index + 1] || null)
  }

  function noteFilterValues(entry) {
    addOption($('filter-chat'), known.chat, entry.chatId)
    addOption($('filter-type'), known.type, entry.type)
    for (const tag of entry.tags || []) addOption($('filter-tag'), known.tag, tag)
  }

  function applyFilters() {
    filterChat = $('filter-chat').value
    filterType = $('filter-type').value
    filterTag = $('filter-tag').value
    for (const [seq, row] of rows) row.hidden = !visible(entries.get(seq))
    updateCount()
  }

  // ---- the detail view --------------------------------------------------

  function select(seq) {
    selectedSeq = seq
    for (const [s, row] of rows) row.classList.toggle('selected', s === seq)
    hideEditor()
    showResult(null)
    const entry = entries.get(seq)
    if (entry) showDetail(entry)
  }

  function showDetail(entry) {
    $('detail').hidden = false
    $('detail-title').textContent = 'update ' + entry.updateId + ' · ' + entry.type
    const meta = [new Date(entry.time).toLocaleString(), 'via ' + entry.source]
    if (entry.chatId !== undefined) meta.push('chat ' + entry.chatId)
    if (entry.replayOf !== undefined) meta.push('replay of ' + entry.replayOf)
    if (entry.tags && entry.tags.length) meta.push(entry.tags.join(', '))
    $('detail-meta').textContent = meta.join(' · ')
    showThread(entry)

    const calls = $('detail-calls')
    calls.replaceChildren()
    if (!entry.calls || entry.calls.length === 0)
      calls.appendChild(el('p', 'dim', 'No Bot API calls recorded for this update.'))
    for (const call of entry.calls || []) calls.appendChild(callCard(call))
    if (entry.droppedCalls)
      calls.appendChild(
        el(
          'p',
          'dim',
          entry.droppedCalls +
            ' more calls were made for this update; the history keeps the first ' +
            entry.calls.length +
            '.',
        ),
      )

    // A truncated update (too large for the history to keep whole) cannot be replayed.
    $('truncated').hidden = !entry.truncated
    $('replay').disabled = Boolean(entry.truncated)
    $('edit').disabled = Boolean(entry.truncated)

    if (entry.answer) {
      $('detail-answer-status').textContent =
        'HTTP ' + entry.answer.status + (typeof entry.ms === 'number' ? ' in ' + ms(entry.ms) : '')
      $('detail-answer').textContent = entry.answer.body ? pretty(entry.answer.body) : '(empty body)'
      $('detail-answer').hidden = false
    } else {
      $('detail-answer-status').textContent =
        entry.source === 'polling'
          ? 'Polling mode: the bot fetched this update with getUpdates (no webhook answer).'
          : 'Waiting for the bot…'
      $('detail-answer').hidden = true
    }
    $('detail-update').textContent = JSON.stringify(entry.update, null, 2)
  }

  /** The other updates of the entry's flow (a payment), oldest first, each a link to its detail. */
  function showThread(entry) {
    const box = $('detail-thread')
    const list = $('detail-thread-steps')
    list.replaceChildren()
    if (!entry.thread) {
      box.hidden = true
      return
    }
    box.hidden = false
    $('detail-thread-title').textContent = 'Payment ' + entry.thread.id + ': one purchase, step by step'
    const steps = Array.from(entries.values())
      .filter((e) => e.thread && e.thread.id === entry.thread.id)
      .sort((a, b) => a.seq - b.seq)
    for (const step of steps) {
      const item = el('li', step.seq === entry.seq ? 'current' : '')
      item.dataset.seq = String(step.seq)
      item.dataset.step = step.thread.step
      const link = el('button', 'link', STEPS[step.thread.step] || step.thread.step)
      link.type = 'button'
      link.addEventListener('click', function () {
        select(step.seq)
      })
      item.appendChild(link)
      item.appendChild(el('span', 'dim', ' update ' + step.updateId + ' · ' + step.type))
      const calls = (step.calls || []).filter((c) =>
        /^(sendinvoice|createinvoicelink|answerprecheckoutquery|answershippingquery|refundstarpayment)$/i.test(
          c.method,
        ),
      )
      for (const call of calls) {
        const ok = call.ok && !(call.params && (call.params.ok === false || call.params.ok === 'false'))
        const chip = el('span', ok ? 'call' : 'call failed', callLabel(call) + (ok ? '' : ' (refused)'))
        if (call.params && call.params.error_message) chip.title = String(call.params.error_message)
        item.appendChild(chip)
      }
      const paid = step.update && step.update.message && step.update.message.successful_payment
      if (paid)
        item.appendChild(
          el('span', 'dim', ' ' + paid.total_amount + ' ' + paid.currency + ' · ' + paid.telegram_payment_charge_id),
        )
      list.appendChild(item)
    }
  }

  function callCard(call) {
    const card = el('div', failed(call) ? 'call-card failed' : 'call-card')
    card.dataset.method = call.method
    const title = el('div', 'title', call.method)
    const verdict = call.webhookReply
      ? 'handed over'
      : call.ok
        ? 'ok'
        : 'error ' + (call.errorCode !== undefined ? call.errorCode : '')
    title.appendChild(el('span', call.ok ? 'verdict ok' : 'verdict', verdict))
    if (call.webhookReply) title.appendChild(el('span', 'tag', 'webhook reply'))
    if (call.answeredLocally) title.appendChild(el('span', 'tag', 'answered locally'))
    title.appendChild(el('span', 'dim', ' · ' + ms(call.ms) + (call.time ? ' · ' + clock(call.time) : '')))
    card.appendChild(title)
    if (call.webhookReply) card.appendChild(el('div', 'dim', WEBHOOK_REPLY))
    if (call.answeredLocally) card.appendChild(el('div', 'dim', ANSWERED_LOCALLY))
    if (call.description) card.appendChild(el('div', 'description', call.description))
    if (call.explanation) card.appendChild(el('div', 'explanation dim', call.explanation))
    if (call.retryAfter !== undefined) card.appendChild(el('div', 'dim', 'retry after ' + call.retryAfter + ' s'))
    card.appendChild(el('pre', 'params', JSON.stringify(call.params || {}, null, 2)))
    if (call.result !== undefined) {
      const result = el('div', 'result')
      const message = call.result && typeof call.result === 'object' ? call.result.message_id : undefined
      result.appendChild(el('span', 'dim', message !== undefined ? 'result: message ' + message : 'result'))
      result.appendChild(el('pre', 'result-json', JSON.stringify(call.result, null, 2)))
      card.appendChild(result)
    }
    return card
  }

  function showResult(text, bad) {
    const p = $('action-result')
    if (!text) {
      p.hidden = true
      return
    }
    p.hidden = false
    p.className = bad ? 'action-result failed' : 'action-result'
    p.textContent = text
  }

  // ---- replay -----------------------------------------------------------

  function replay(edited) {
    const entry = entries.get(selectedSeq)
    if (!entry) return Promise.resolve()
    const buttons = [$('replay'), $('edit'), $('editor-send')]
    buttons.forEach((b) => {
      b.disabled = true
    })
    const restore = Boolean(entry.truncated)
    showResult('Replaying update ' + entry.updateId + '…')
    const init = {method: 'POST'}
    if (edited !== undefined) {
      init.body = JSON.stringify(edited)
      init.headers = {'content-type': 'application/json'}
    }
    return api('/api/updates/' + encodeURIComponent(entry.updateId) + '/replay', init)
      .then(function (result) {
        // Show the new delivery: its answer and calls.
        if (result && typeof result.seq === 'number') {
          upsert(result, true)
          select(result.seq)
        }
        hideEditor()
        showResult(
          'Delivered again as update ' +
            (result ? result.updateId : '?') +
            (result && result.answer ? ': the bot answered ' + result.answer.status : '') +
            '.',
        )
      })
      .catch(function (err) {
        showResult('Replay failed: ' + err.message + (err.fix ? ' (' + err.fix + ')' : ''), true)
      })
      .finally(function () {
        buttons.forEach((b) => {
          b.disabled = false
        })
        $('replay').disabled = restore
        $('edit').disabled = restore
      })
  }

  function showEditor() {
    const entry = entries.get(selectedSeq)
    if (!entry) return
    $('editor').hidden = false
    $('editor-text').value = JSON.stringify(entry.update, null, 2)
    $('editor-error').hidden = true
    $('editor-text').focus()
  }

  function hideEditor() {
    $('editor').hidden = true
    $('editor-error').hidden = true
  }

  function sendEdited() {
    let value
    try {
      value = JSON.parse($('editor-text').value)
    } catch (e) {
      return editorError('Not valid JSON: ' + e.message)
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return editorError('The update must be a JSON object, like {"update_id": 1, "message": {…}}.')
    $('editor-error').hidden = true
    replay(value)
  }

  function editorError(text) {
    $('editor-error').hidden = false
    $('editor-error').textContent = text
  }

  // ---- save as chat script ----------------------------------------------

  /** The range of a chat script: the seq of its first and last entry (POST /api/chat-script). */
  const script = {first: null, last: null}

  function showScriptRange() {
    const pane = $('script')
    pane.hidden = script.first === null
    if (pane.hidden) return
    const first = entries.get(script.first)
    const last = entries.get(script.last === null ? script.first : script.last)
    const name = (e, seq) => (e ? 'update ' + e.updateId + ' (' + e.type + ')' : 'entry ' + seq)
    $('script-range').textContent =
      'From ' +
      name(first, script.first) +
      ' to ' +
      (script.last === null
        ? name(first, script.first) + ' (mark the last with "Last of script")'
        : name(last, script.last)) +
      ', the updates of ' +
      (first && first.chatId !== undefined ? 'chat ' + first.chatId : 'its chat') +
      '. Names, ids, usernames, phone numbers, places and e-mail addresses are replaced.'
  }

  function markScript(which) {
    if (selectedSeq === null) return
    script[which] = selectedSeq
    if (which === 'last' && script.first === null) script.first = selectedSeq
    showScriptRange()
  }

  function saveScript(write) {
    if (script.first === null) return
    const body = {first: script.first, last: script.last === null ? script.first : script.last}
    const name = $('script-name').value.trim()
    if (write) {
      if (!name) return scriptResult('Give the script a name (letters, digits, - and _), e.g. start.', true)
      body.name = name
    }
    const buttons = [$('script-save'), $('script-preview')]
    buttons.forEach((b) => {
      b.disabled = true
    })
    return api('/api/chat-script', {
      method: 'POST',
      body: JSON.stringify(body),
      headers: {'content-type': 'application/json'},
    })
      .then(function (answer) {
        scriptResult(
          (answer.path ? 'Saved ' + answer.path + ': ' : 'The script: ') +
            answer.steps +
            ' steps from ' +
            answer.entries +
            ' updates' +
            (answer.otherChats
              ? ' (' +
                answer.otherChats +
                (answer.otherChats === 1 ? ' update' : ' updates') +
                ' of other chats left out)'
              : '') +
            (answer.skipped && answer.skipped.length ? '; left out: ' + answer.skipped.join('; ') : '') +
            (answer.fixtures && answer.fixtures.length
              ? '; stand-ins for the files: ' + answer.fixtures.join(', ')
              : '') +
            (answer.path ? '. Run it with: npx bot test ' + answer.path : '.'),
        )
        const list = $('script-replaced')
        list.replaceChildren()
        for (const r of answer.replaced || [])
          list.appendChild(el('li', null, r.what + ': ' + r.from + ' \u2192 ' + r.to))
        $('script-text').hidden = false
        $('script-text').textContent = answer.yaml
      })
      .catch(function (err) {
        scriptResult('Not saved: ' + err.message + (err.fix ? ' (' + err.fix + ')' : ''), true)
      })
      .finally(function () {
        buttons.forEach((b) => {
          b.disabled = false
        })
      })
  }

  function scriptResult(text, bad) {
    const p = $('script-result')
    p.hidden = false
    p.className = bad ? 'action-result failed' : 'action-result'
    p.textContent = text
  }

  // ---- live updates -----------------------------------------------------

  function setStatus(state, text) {
    const s = $('status')
    s.dataset.state = state
    s.textContent = text
  }

  function loadList() {
    return api('/api/updates')
      .then(function (list) {
        // Entries that came over SSE meanwhile are newer than the list's copy: keep them.
        for (const entry of (list || []).slice().reverse()) if (!entries.has(entry.seq)) upsert(entry, false)
        updateCount()
      })
      .catch(function (err) {
        setStatus('lost', err.message)
      })
  }

  function connect() {
    const source = new EventSource('/api/events?key=' + encodeURIComponent(key))
    source.addEventListener('open', function () {
      setStatus('live', 'live')
      loadList()
    })
    source.addEventListener('entry', function (event) {
      try {
        upsert(JSON.parse(event.data), true)
      } catch (e) {
        /* a malformed event is skipped */
      }
    })
    source.addEventListener('error', function () {
      setStatus('lost', source.readyState === EventSource.CLOSED ? 'disconnected' : 'reconnecting…')
    })
  }

  $('filter-chat').addEventListener('change', applyFilters)
  $('filter-type').addEventListener('change', applyFilters)
  $('filter-tag').addEventListener('change', applyFilters)
  $('replay').addEventListener('click', function () {
    replay(undefined)
  })
  $('edit').addEventListener('click', showEditor)
  $('script-first').addEventListener('click', function () {
    markScript('first')
  })
  $('script-last').addEventListener('click', function () {
    markScript('last')
  })
  $('script-save').addEventListener('click', function () {
    saveScript(true)
  })
  $('script-preview').addEventListener('click', function () {
    saveScript(false)
  })
  $('script-clear').addEventListener('click', function () {
    script.first = null
    script.last = null
    $('script-result').hidden = true
    $('script-text').hidden = true
    $('script-replaced').replaceChildren()
    showScriptRange()
  })
  $('editor-send').addEventListener('click', sendEdited)
  $('editor-cancel').addEventListener('click', hideEditor)
  $('close').addEventListener('click', function () {
    selectedSeq = null
    for (const row of rows.values()) row.classList.remove('selected')
    $('detail').hidden = true
  })

  updateCount()
  connect()
})()

// The chat page's Mini App host (docs/chat.md, "Mini Apps"): opens a bot's Mini App in a phone-sized frame as
// Telegram's web clients do and answers the app's postMessage bridge (core.telegram.org/api/web-events,
// core.telegram.org/bots/webapps).
//
// The page asks for an app with a window event (app.js, openWebApp):
//   window.dispatchEvent(new CustomEvent('bot-chat:open-web-app', {detail: {token, url, chatId, userId, source,
//     startParam, buttonText}}))
// source: 'inline' | 'keyboard' | 'menu' | 'main'; buttonText: the reply keyboard button's text (web_app_data).
// The host runs the emulator's user actions through the page's server (POST api/actions/{name}: launch_web_app for
// the launch URL, send_web_app_data, pay_invoice, web_app_cloud_storage) and asks it for the frame URL (POST
// api/miniapp/frame {url} → {url}: the app through the Mini App proxy, src/lib/mini-app-proxy.ts, which serves
// telegram-web-app.js offline). It tells the page what happened with window events: 'bot-chat:web-app-closed'
// {url}, 'bot-chat:web-app-data' {data}, 'bot-chat:open-link' {url}, 'bot-chat:open-tg-link' {path},
// 'bot-chat:switch-inline-query' {query, chat_types}, 'bot-chat:toast' {text}.

const THEME = {
  bg_color: '#ffffff',
  text_color: '#000000',
  hint_color: '#707579',
  link_color: '#3390ec',
  button_color: '#3390ec',
  button_text_color: '#ffffff',
  secondary_bg_color: '#f4f4f5',
  header_bg_color: '#ffffff',
  bottom_bar_bg_color: '#ffffff',
  accent_text_color: '#3390ec',
  section_bg_color: '#ffffff',
  section_header_text_color: '#3390ec',
  section_separator_color: '#e7e7e7',
  subtitle_text_color: '#707579',
  destructive_text_color: '#e53935',
}

const STYLE = `
.bc-miniapp-backdrop{position:fixed;inset:0;background:rgba(0,0,0,.45);display:flex;align-items:center;justify-content:center;z-index:1000}
.bc-miniapp{width:390px;height:min(760px,96vh);background:#fff;border-radius:18px;overflow:hidden;display:flex;flex-direction:column;box-shadow:0 10px 40px rgba(0,0,0,.35);font:14px system-ui,sans-serif;position:relative}
.bc-miniapp header{display:flex;align-items:center;gap:6px;height:48px;padding:0 8px;border-bottom:1px solid #e7e7e7}
.bc-miniapp header .bc-title{flex:1;font-weight:600;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.bc-miniapp header button{border:0;background:none;font-size:18px;cursor:pointer;padding:6px 8px;border-radius:8px}
.bc-miniapp header button:hover{background:#f0f0f0}
.bc-miniapp iframe{flex:1;border:0;width:100%;background:#fff}
.bc-miniapp .bc-bottom{display:flex;gap:8px;padding:8px;border-top:1px solid #e7e7e7}
.bc-miniapp .bc-bottom.bc-column{flex-direction:column}
.bc-miniapp .bc-bottom button{flex:1;height:44px;border:0;border-radius:10px;font-weight:600;font-size:15px;cursor:pointer}
.bc-miniapp .bc-bottom button:disabled{opacity:.6;cursor:default}
.bc-miniapp .bc-sheet{position:absolute;inset:0;background:rgba(0,0,0,.35);display:flex;align-items:center;justify-content:center}
.bc-miniapp .bc-dialog{background:#fff;border-radius:14px;padding:16px;width:80%;max-width:300px}
.bc-miniapp .bc-dialog h3{margin:0 0 6px;font-size:16px}
.bc-miniapp .bc-dialog p{margin:0 0 12px;white-space:pre-wrap}
.bc-miniapp .bc-dialog .bc-actions{display:flex;flex-wrap:wrap;gap:6px;justify-content:flex-end}
.bc-miniapp .bc-dialog button{border:0;background:none;color:#3390ec;font-weight:600;padding:8px 10px;cursor:pointer;border-radius:8px}
.bc-miniapp .bc-dialog button.bc-destructive{color:#e53935}
.bc-miniapp .bc-dialog button:hover{background:#f0f0f0}
.bc-miniapp .bc-note{position:absolute;left:12px;right:12px;bottom:70px;background:rgba(0,0,0,.8);color:#fff;padding:8px 12px;border-radius:10px}
`

function el(tag, attrs = {}, text) {
  const node = document.createElement(tag)
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value)
  if (text !== undefined) node.textContent = text
  return node
}

function meta(name) {
  return document.querySelector(`meta[name="${name}"]`)?.content ?? ''
}

async function post(path, body) {
  const key = meta('bot-chat-key')
  const res = await fetch((meta('bot-chat-base') || '/') + path, {
    method: 'POST',
    headers: {'content-type': 'application/json', ...(key ? {'x-bot-dev-key': key} : {})},
    body: JSON.stringify(body),
  })
  const json = await res.json().catch(() => ({}))
  if (!res.ok) throw new Error(json.error ?? `HTTP ${res.status}`)
  return json
}

/** A user action of the emulator's table, through the page's server. */
function act(name, input) {
  return post(`api/actions/${name}`, input)
}

async function frameUrl(url) {
  return (await post('api/miniapp/frame', {url})).url
}

function notify(name, detail) {
  window.dispatchEvent(new CustomEvent(`bot-chat:${name}`, {detail}))
}

/** One opened app: its frame, its buttons, its answers to the app. */
class MiniApp {
  constructor(detail) {
    this.detail = detail
    this.closingConfirmation = false
    this.popupOpen = false
    this.invoiceOpen = false
    this.build()
    this.onMessage = (event) => this.receive(event)
    window.addEventListener('message', this.onMessage)
  }

  build() {
    this.backdrop = el('div', {class: 'bc-miniapp-backdrop', 'data-testid': 'miniapp'})
    this.box = el('div', {class: 'bc-miniapp', role: 'dialog', 'aria-label': 'Mini App'})
    const header = el('header')
    this.back = el('button', {class: 'bc-back', title: 'Back', 'aria-label': 'Back', hidden: ''}, '←')
    this.back.onclick = () => this.post('back_button_pressed')
    this.title = el('span', {class: 'bc-title'}, this.detail.title ?? 'Mini App')
    this.settings = el('button', {class: 'bc-settings', title: 'Settings', 'aria-label': 'Settings', hidden: ''}, '⚙')
    this.settings.onclick = () => this.post('settings_button_pressed')
    const close = el('button', {class: 'bc-close', title: 'Close', 'aria-label': 'Close'}, '✕')
    close.onclick = () => this.requestClose()
    header.append(this.back, this.title, this.settings, close)
    this.iframe = el('iframe', {
      class: 'bc-frame',
      title: 'Mini App',
      allow: 'clipboard-read; clipboard-write; camera; microphone; geolocation',
    })
    this.bottom = el('div', {class: 'bc-bottom', hidden: ''})
    this.main = el('button', {class: 'bc-main', hidden: ''})
    this.main.onclick = () => this.post('main_button_pressed')
    this.secondary = el('button', {class: 'bc-secondary', hidden: ''})
    this.secondary.onclick = () => this.post('secondary_button_pressed')
    this.bottom.append(this.secondary, this.main)
    this.box.append(header, this.iframe, this.bottom)
    this.backdrop.append(this.box)
    document.body.append(this.backdrop)
  }

  async open() {
    const {url, chatId, userId, startParam} = this.detail
    const launched = await act('launch_web_app', {
      ...(url ? {url} : {}),
      ...(userId ? {user_id: userId} : {}),
      ...(chatId ? {chat_id: chatId} : {}),
      ...(startParam !== undefined && startParam !== null ? {start_param: startParam} : {}),
    })
    this.launch = launched
    const app = new URL(launched.url)
    if (!this.detail.title) this.title.textContent = app.host
    const src = await frameUrl(launched.url)
    this.box.dataset.state = 'loading'
    this.iframe.src = src
  }

  /** Send the app an event (core.telegram.org/api/web-events, "Events available for web apps"). */
  post(eventType, eventData) {
    this.iframe.contentWindow?.postMessage(JSON.stringify({eventType, eventData}), '*')
  }

  viewport(expanded = true) {
    return {
      height: this.iframe.clientHeight,
      width: this.iframe.clientWidth,
      is_expanded: expanded,
      is_state_stable: true,
    }
  }

  receive(event) {
    if (event.source !== this.iframe.contentWindow) return
    let message
    try {
      message = typeof event.data === 'string' ? JSON.parse(event.data) : event.data
    } catch {
      return
    }
    if (!message || typeof message.eventType !== 'string') return
    let data = message.eventData
    if (typeof data === 'string') {
      try {
        data = JSON.parse(data)
      } catch {}
    }
    try {
      this.handle(message.eventType, data ?? {})
    } catch (err) {
      console.warn('Mini App event', message.eventType, err)
    }
  }

  handle(type, data) {
    switch (type) {
      case 'iframe_ready':
      case 'web_app_ready':
        this.box.dataset.state = 'ready'
        return
      case 'web_app_request_theme':
        return this.post('theme_changed', {theme_params: THEME})
      case 'web_app_request_viewport':
        return this.post('viewport_changed', this.viewport())
      case 'web_app_expand':
        return this.post('viewport_changed', this.viewport(true))
      case 'web_app_request_safe_area':
        return this.post('safe_area_changed', {top: 0, bottom: 0, left: 0, right: 0})
      case 'web_app_request_content_safe_area':
        return this.post('content_safe_area_changed', {top: 0, bottom: 0, left: 0, right: 0})
      case 'web_app_close':
        return this.close()
      case 'web_app_setup_main_button':
        return this.setupButton(this.main, data)
      case 'web_app_setup_secondary_button':
        this.setupButton(this.secondary, data)
        this.bottom.classList.toggle('bc-column', data.position === 'top' || data.position === 'bottom')
        if (data.position === 'bottom' || data.position === 'right') this.bottom.append(this.secondary)
        else this.bottom.prepend(this.secondary)
        return
      case 'web_app_setup_back_button':
        this.back.hidden = !data.is_visible
        return
      case 'web_app_setup_settings_button':
        this.settings.hidden = !data.is_visible
        return
      case 'web_app_setup_closing_behavior':
        this.closingConfirmation = Boolean(data.need_confirmation)
        return
      case 'web_app_set_header_color': {
        const color = data.color ?? THEME[data.color_key]
        if (typeof color === 'string') this.box.querySelector('header').style.background = color
        return
      }
      case 'web_app_set_background_color':
        if (typeof data.color === 'string') this.iframe.style.background = data.color
        return
      case 'web_app_set_bottom_bar_color':
        if (typeof data.color === 'string') this.bottom.style.background = data.color
        return
      case 'web_app_open_popup':
        return this.popup(data)
      case 'web_app_data_send':
        return void this.sendData(data.data)
      case 'web_app_open_invoice':
        return this.invoice(data.slug)
      case 'web_app_open_link':
        if (typeof data.url === 'string' && /^https?:/i.test(data.url)) {
          notify('open-link', {url: data.url})
          window.open(data.url, '_blank', 'noopener')
        }
        return
      case 'web_app_open_tg_link':
        notify('open-tg-link', {path: data.path_full})
        return
      case 'web_app_switch_inline_query':
        notify('switch-inline-query', {query: data.query ?? '', chat_types: data.chat_types ?? []})
        return this.close()
      case 'web_app_invoke_custom_method':
        return void this.customMethod(data)
      case 'web_app_read_text_from_clipboard':
        return void this.clipboard(data.req_id)
      case 'web_app_request_phone':
        return this.post('phone_requested', {status: 'cancelled'})
      case 'web_app_request_write_access':
        return void this.writeAccess()
      case 'web_app_biometry_get_info':
        return this.post('biometry_info_received', {available: false})
      case 'web_app_check_home_screen':
        return this.post('home_screen_checked', {status: 'unsupported'})
      case 'web_app_request_fullscreen':
        return this.post('fullscreen_failed', {error: 'UNSUPPORTED'})
      case 'web_app_open_scan_qr_popup':
        return this.post('scan_qr_popup_closed', {})
      default:
        // haptics, swipe behaviour, colours by key and the like change nothing a page can show
        return
    }
  }

  setupButton(button, data) {
    button.hidden = !data.is_visible || !data.text
    button.textContent = data.is_progress_visible ? `${data.text ?? ''} …` : (data.text ?? '')
    button.disabled = data.is_active === false
    button.style.background = data.color ?? (button === this.main ? THEME.button_color : THEME.secondary_bg_color)
    button.style.color = data.text_color ?? (button === this.main ? THEME.button_text_color : THEME.button_color)
    this.bottom.hidden = this.main.hidden && this.secondary.hidden
  }

  /** A dialog over the app; resolves with the id of the button pressed ('' when dismissed). */
  dialog({title, message, buttons}, kind) {
    return new Promise((resolve) => {
      const sheet = el('div', {class: 'bc-sheet', 'data-testid': kind})
      const box = el('div', {class: 'bc-dialog'})
      if (title) box.append(el('h3', {}, title))
      box.append(el('p', {}, message ?? ''))
      const actions = el('div', {class: 'bc-actions'})
      for (const b of buttons) {
        const text = b.text || {ok: 'OK', close: 'Close', cancel: 'Cancel'}[b.type] || 'OK'
        const button = el(
          'button',
          {'data-id': b.id ?? '', class: b.type === 'destructive' ? 'bc-destructive' : ''},
          text,
        )
        button.onclick = () => {
          sheet.remove()
          resolve(b.id ?? '')
        }
        actions.append(button)
      }
      box.append(actions)
      sheet.append(box)
      sheet.onclick = (e) => {
        if (e.target === sheet) {
          sheet.remove()
          resolve('')
        }
      }
      this.box.append(sheet)
    })
  }

  async popup(data) {
    if (this.popupOpen) return this.post('popup_closed', {})
    this.popupOpen = true
    const buttons = Array.isArray(data.buttons) && data.buttons.length > 0 ? data.buttons : [{id: '', type: 'close'}]
    const id = await this.dialog({title: data.title, message: data.message, buttons}, 'miniapp-popup')
    this.popupOpen = false
    this.post('popup_closed', id ? {button_id: id} : {})
  }

  note(text) {
    notify('toast', {text})
    const note = el('div', {class: 'bc-note', role: 'status'}, text)
    this.box.append(note)
    setTimeout(() => note.remove(), 4000)
  }

  /** web_app_request_write_access: the user allows it, and the bot gets write_access_allowed (from_request). */
  async writeAccess() {
    const {userId} = this.detail
    try {
      await act('allow_write_access', {from_request: true, ...(userId ? {user_id: userId} : {})})
      this.post('write_access_requested', {status: 'allowed'})
    } catch (err) {
      this.note(`requestWriteAccess failed: ${err.message}`)
      this.post('write_access_requested', {status: 'cancelled'})
    }
  }

  /** web_app_data_send: only an app opened from a reply keyboard's web_app button may send data (then it closes). */
  async sendData(data) {
    const {userId, source, buttonText} = this.detail
    if (source !== 'keyboard') {
      this.note('sendData works only in a Mini App opened from a reply keyboard button')
      return
    }
    try {
      await act('send_web_app_data', {
        ...(userId ? {user_id: userId} : {}),
        data: String(data ?? ''),
        button_text: buttonText ?? this.title.textContent,
      })
      notify('web-app-data', {data})
      this.close()
    } catch (err) {
      this.note(`sendData failed: ${err.message}`)
    }
  }

  /** web_app_open_invoice: the payment sheet, the table's pay_invoice, then invoice_closed with its status. */
  async invoice(slug) {
    if (this.invoiceOpen || typeof slug !== 'string') return
    this.invoiceOpen = true
    const {userId} = this.detail
    const choice = await this.dialog(
      {
        title: 'Payment',
        message: `Pay the invoice ${slug}?`,
        buttons: [
          {id: 'cancel', type: 'cancel'},
          {id: 'pay', type: 'default', text: 'Pay'},
        ],
      },
      'miniapp-invoice',
    )
    let status = 'cancelled'
    if (choice === 'pay') {
      try {
        const attempt = await act('pay_invoice', {invoice: slug, ...(userId ? {user_id: userId} : {})})
        status = attempt.status === 'paid' ? 'paid' : 'failed'
        if (status === 'failed' && attempt.error_message) this.note(attempt.error_message)
      } catch (err) {
        status = 'failed'
        this.note(`payment failed: ${err.message}`)
      }
    }
    this.invoiceOpen = false
    this.post('invoice_closed', {slug, status})
  }

  async customMethod({req_id: reqId, method, params}) {
    const storage = ['saveStorageValue', 'getStorageValues', 'deleteStorageValues', 'getStorageKeys']
    if (!storage.includes(method)) return this.post('custom_method_invoked', {req_id: reqId, error: 'UNSUPPORTED'})
    try {
      const {userId} = this.detail
      const answer = await act('web_app_cloud_storage', {
        ...(userId ? {user_id: userId} : {}),
        method,
        params: params ?? {},
      })
      this.post('custom_method_invoked', {req_id: reqId, result: answer.result})
    } catch (err) {
      this.post('custom_method_invoked', {req_id: reqId, error: err.message})
    }
  }

  async clipboard(reqId) {
    let data = null
    try {
      data = await navigator.clipboard.readText()
    } catch {}
    this.post('clipboard_text_received', {req_id: reqId, ...(data !== null ? {data} : {})})
  }

  async requestClose() {
    if (this.closingConfirmation) {
      const id = await this.dialog(
        {
          message: 'Changes that you made may not be saved.',
          buttons: [
            {id: 'cancel', type: 'cancel'},
            {id: 'close', type: 'destructive', text: 'Close anyway'},
          ],
        },
        'miniapp-closing',
      )
      if (id !== 'close') return
    }
    this.close()
  }

  close() {
    if (this.closed) return
    this.closed = true
    window.removeEventListener('message', this.onMessage)
    this.backdrop.remove()
    if (current === this) current = undefined
    notify('web-app-closed', {url: this.launch?.url ?? this.detail.url})
  }
}

let current

export async function openWebApp(detail) {
  current?.close()
  const app = new MiniApp(detail)
  current = app
  try {
    await app.open()
  } catch (err) {
    app.close()
    notify('toast', {text: `The Mini App did not open: ${err.message}`})
    throw err
  }
  return app
}

/** The app open now, if any (tests and the page). */
export function openedWebApp() {
  return current
}

// the page's Content-Security-Policy has no inline styles: a constructed sheet is not one
const sheet = new CSSStyleSheet()
sheet.replaceSync(STYLE)
document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet]
document.documentElement.dataset.miniapps = 'ready'

window.addEventListener('bot-chat:open-web-app', (event) => {
  openWebApp(event.detail ?? {}).catch((err) => console.warn('Mini App', err))
})

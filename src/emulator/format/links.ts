/**
 * Links as td checks them (td/telegram/LinkManager.cpp LinkManager::check_link): the URL of a text_link or a URL button
 * is normalized (`example.com` → `http://example.com/`) or refused with td's reason; `tg://user?id=N` names a user.
 */

/** The user id of a `tg://user?id=N` link, if it is one. */
export function linkUserId(link: string): number | undefined {
  const m = /^tg:(?:\/\/)?user\?(?:[^#]*&)?id=(\d{1,18})(?:[&#]|$)/i.exec(link)
  if (!m) return undefined
  const id = Number(m[1])
  return Number.isSafeInteger(id) && id > 0 ? id : undefined
}

/** The custom emoji id of a `tg://emoji?id=N` link. */
export function linkCustomEmojiId(link: string): string | undefined {
  const m = /^tg:(?:\/\/)?emoji\?(?:[^#]*&)?id=(\d{1,19})(?:[&#]|$)/i.exec(link)
  return m && BigInt(m[1]) > 0n ? m[1] : undefined
}

/** `tg://time?unix=N&format=F`: the date and its format. */
export function linkDateTime(link: string): {unix: number; format: string} | undefined {
  const m = /^tg:(?:\/\/)?time\?(.*)$/i.exec(link)
  if (!m) return undefined
  const args = new URLSearchParams(m[1])
  const unix = Number(args.get('unix'))
  if (!Number.isInteger(unix) || unix <= 0) return undefined
  return {unix, format: args.get('format') ?? ''}
}

const HOST_CHAR = /^[A-Za-z0-9\-._~!$&'()*+,;=%\u0080-\uffff]$/u

/** td's check_link: the normalized link, or the reason it is refused. */
export function checkLink(link: string): {url: string} | {error: string} {
  const special = /^(tg|ton|tonsite):(\/\/)?/i.exec(link)
  if (special) {
    const rest = link.slice(special[0].length)
    const host = /^[^/?#]*/.exec(rest)![0]
    const scheme = special[1].toLowerCase()
    if (/^http:\/\//i.test(rest) || host.includes('@') || host.includes(':') || host === '') {
      return {error: scheme === 'tg' ? 'Wrong tg URL' : 'Wrong ton URL'}
    }
    for (const c of host) {
      if (!/[A-Za-z0-9_-]/.test(c) && !(scheme === 'tonsite' && c === '.'))
        return {error: 'Unallowed characters in URL host'}
    }
    let query = rest.slice(host.length)
    if (query.startsWith('/?')) query = query.slice(1)
    return {url: `${scheme}://${host.toLowerCase()}${query}`}
  }
  let protocol = 'http'
  let rest = link
  const scheme = /^([^:/?#@[\]]*):\/\//.exec(link)
  if (scheme) {
    protocol = scheme[1].toLowerCase()
    if (protocol !== 'http' && protocol !== 'https') return {error: 'Unsupported URL protocol'}
    rest = link.slice(scheme[0].length)
  }
  const authority = /^[^/?#]*/.exec(rest)![0]
  let query = rest.slice(authority.length)
  let hostPort = authority
  let userinfo = ''
  const at = authority.lastIndexOf('@')
  if (at >= 0) {
    userinfo = authority.slice(0, at)
    hostPort = authority.slice(at + 1)
  }
  let host = hostPort
  let port = ''
  const colon = hostPort.lastIndexOf(':')
  if (colon >= 0 && !hostPort.slice(colon).includes(']')) {
    host = hostPort.slice(0, colon)
    port = hostPort.slice(colon + 1).replace(/^0+(?=.)/, '')
    const n = /^\d+$/.test(port) ? Number(port) : -1
    if (n <= 0 || n > 65535) return {error: 'Wrong port number specified in the URL'}
  }
  if (host === '') return {error: 'URL host is empty'}
  const ipv6 = host.startsWith('[')
  if (!ipv6) {
    for (const c of host) if (!HOST_CHAR.test(c)) return {error: 'Disallowed character in URL host'}
    if (!host.includes('.')) return {error: 'Wrong HTTP URL'}
  }
  if (query === '' || query.startsWith('?') || query.startsWith('#')) query = `/${query}`
  return {url: `${protocol}://${userinfo ? `${userinfo}@` : ''}${host.toLowerCase()}${port ? `:${port}` : ''}${query}`}
}

/** The normalized link, or '' when td would refuse it (a text_link with such a URL is dropped silently). */
export function checkedLink(link: string): string {
  const r = checkLink(link)
  return 'url' in r ? r.url : ''
}

/**
 * td LinkManager::check_link(link, http_only = true, https_only = true), as a Web App URL is checked in production
 * (td ReplyMarkup.cpp get_keyboard_button / get_inline_keyboard_button, BotMenuButton.cpp set_menu_button): after
 * the URL parses, anything but https (http, tg:, ton:) is `Only HTTPS links are allowed`; then the host's dot.
 */
export function checkWebAppLink(link: string): {url: string} | {error: string} {
  if (/^(tg|ton|tonsite):/i.test(link)) return {error: 'Only HTTPS links are allowed'}
  const checked = checkLink(link)
  if ('error' in checked && checked.error !== 'Wrong HTTP URL') return checked
  if (!/^https:\/\//i.test(link)) return {error: 'Only HTTPS links are allowed'}
  return checked
}

/** td's text for a refused link: the URL quoted when it is UTF-8 (LinkManager::check_link). */
export const linkRefusal = (link: string, error: string): string => `URL '${link}' is invalid: ${error}`

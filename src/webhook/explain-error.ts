/**
 * What a getWebhookInfo `last_error_message` means and how to fix it. Shared by
 * `bot webhook info` and `bot doctor`. Pure: no I/O.
 */

export interface DeliveryErrorExplanation {
  /** A short stable id, e.g. 'http-5xx', 'connection-refused', 'unknown'. */
  id: string
  /** What happened, in plain words. */
  meaning: string
  /** What to do about it. */
  fix: string
}

interface Rule {
  test: RegExp
  explain: (m: RegExpExecArray) => DeliveryErrorExplanation
}

function byStatus(status: number, reason: string): DeliveryErrorExplanation {
  const what = `Your webhook answered HTTP ${status}${reason ? ` ${reason}` : ''}`
  if (status >= 300 && status < 400)
    return {
      id: 'http-3xx',
      meaning: `${what}: a redirect. Telegram does not follow redirects, so the update was not delivered.`,
      fix: 'Set the final URL (check https vs http, www, and a trailing slash) with `bot webhook set`.',
    }
  if (status === 401 || status === 403)
    return {
      id: 'http-auth',
      meaning: `${what}: the bot refused the request, usually because the X-Telegram-Bot-Api-Secret-Token header does not match the secret the bot checks.`,
      fix: 'Use the same secret on both sides: `bot webhook set URL --secret-token <the value your bot checks>` (or set WEBHOOK_SECRET in .env).',
    }
  if (status === 404 || status === 405)
    return {
      id: 'http-path',
      meaning: `${what}: nothing handles POST at that path, so the URL's path does not match the bot's webhook route.`,
      fix: 'Compare the path of the URL with the route the bot serves (e.g. /webhook) and set the right one with `bot webhook set`.',
    }
  if (status === 410)
    return {
      id: 'http-gone',
      meaning: `${what}: after 23 hours of 410 answers Telegram removes the webhook.`,
      fix: 'Answer 2xx on the webhook route, or run `bot webhook delete` if the bot moved to long polling.',
    }
  if (status === 413)
    return {
      id: 'http-too-large',
      meaning: `${what}: a proxy in front of the bot rejects the request body as too large.`,
      fix: 'Raise the body size limit of the proxy or framework (updates can be a few hundred KB).',
    }
  if (status === 429)
    return {
      id: 'http-rate-limited',
      meaning: `${what}: the bot's server (or a proxy) rate-limits Telegram.`,
      fix: 'Exempt the webhook route from rate limiting (Telegram sends from 149.154.160.0/20 and 91.108.4.0/22).',
    }
  if (status === 502 || status === 503 || status === 504)
    return {
      id: 'http-proxy',
      meaning: `${what}: a proxy or load balancer in front of the bot could not reach the bot (not running, not listening, or too slow).`,
      fix: 'Check that the bot process runs and listens on the port the proxy forwards to; look at the proxy logs.',
    }
  if (status >= 500)
    return {
      id: 'http-5xx',
      meaning: `${what}: the bot crashed or threw while handling an update.`,
      fix: "Look at the bot's logs for the exception. Telegram retries the same update with growing delays until it gets a 2xx.",
    }
  return {
    id: 'http-4xx',
    meaning: `${what}: the bot's server refused the update.`,
    fix: 'Make the webhook route answer 2xx to every POST from Telegram (even updates it ignores).',
  }
}

const RULES: Rule[] = [
  {
    test: /^Wrong response from the webhook: (\d{3})\s*(.*)$/i,
    explain: (m) => byStatus(Number(m[1]), m[2].trim()),
  },
  {
    test: /Connection refused/i,
    explain: () => ({
      id: 'connection-refused',
      meaning: "Telegram reached the host but nothing accepts connections on the webhook's port.",
      fix: 'Start the bot (or the reverse proxy) on that port, and check the firewall; Telegram only uses ports 443, 80, 88 and 8443.',
    }),
  },
  {
    test: /Connection timed out/i,
    explain: () => ({
      id: 'connection-timeout',
      meaning:
        'Telegram could not open a connection: the host is down, the address is wrong, or a firewall drops the packets.',
      fix: "Check the host's DNS (A record) and firewall; allow 149.154.160.0/20 and 91.108.4.0/22 on the webhook port.",
    }),
  },
  {
    test: /Read timeout expired/i,
    explain: () => ({
      id: 'read-timeout',
      meaning: 'The bot accepted the request but sent no answer for 60 seconds.',
      fix: 'Answer the webhook quickly (reply first, then do slow work in the background or a queue); check for a handler that never finishes.',
    }),
  },
  {
    test: /Connection reset|Connection closed|Broken pipe/i,
    explain: () => ({
      id: 'connection-reset',
      meaning:
        'The connection was closed by the bot side before an answer was sent (a crash, a restart, or a proxy timeout).',
      fix: "Check the bot's logs and the proxy's timeouts.",
    }),
  },
  {
    test: /SSL|TLS|certificate/i,
    explain: () => ({
      id: 'tls',
      meaning:
        'The TLS handshake failed: an expired or self-signed certificate, a name that does not match the host, or a missing intermediate certificate.',
      fix: 'Use a certificate from a public CA with the full chain, or upload your self-signed one with `bot webhook set URL --certificate cert.pem`. Check with: openssl s_client -connect HOST:443 -servername HOST',
    }),
  },
  {
    test: /Failed to resolve host|Name or service not known|No address associated/i,
    explain: () => ({
      id: 'dns',
      meaning: "Telegram could not resolve the webhook's host name (no DNS A record, or a typo).",
      fix: 'Check the DNS record of the host (IPv4 is required), or pass --ip-address to `bot webhook set`.',
    }),
  },
]

/** Explain a last_error_message; unknown messages get a generic explanation. */
export function explainDeliveryError(message: string): DeliveryErrorExplanation {
  for (const rule of RULES) {
    const m = rule.test.exec(message.trim())
    if (m) return rule.explain(m)
  }
  return {
    id: 'unknown',
    meaning: 'Telegram could not deliver the last update to the webhook.',
    fix: "Check that the URL answers POST requests with 2xx from the internet, and look at the bot's logs.",
  }
}

/** "just now", "42 s ago", "3 min ago", "5 h ago", "2 days ago". */
export function formatAge(seconds: number): string {
  const s = Math.max(0, Math.round(seconds))
  if (s < 5) return 'just now'
  if (s < 60) return `${s} s ago`
  if (s < 3600) return `${Math.floor(s / 60)} min ago`
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`
  const days = Math.floor(s / 86_400)
  return `${days} day${days === 1 ? '' : 's'} ago`
}

/**
 * The page's three files (plain HTML, CSS and JavaScript in ./page, next to this module in src/
 * and, copied by `npm run build`, in dist/). Read once at start. The page's own links carry the
 * key (`app.js?key=…`) since a browser cannot add a header to a <script> or <link> request.
 */
import {readFile} from 'node:fs/promises'
import {fileURLToPath} from 'node:url'

export const PAGE_DIR = fileURLToPath(new URL('page/', import.meta.url))

export interface PageFiles {
  html: string
  js: string
  css: string
}

export async function loadPage(dir = PAGE_DIR): Promise<PageFiles> {
  const [html, js, css] = await Promise.all(['index.html', 'app.js', 'style.css'].map((f) => readFile(dir + f, 'utf8')))
  return {html, js, css}
}

const escapes: Record<string, string> = {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}

/** The page with the key put into its asset links (URL-encoded, then HTML-escaped). */
export function pageHtml(files: PageFiles, key: string, chat = false): string {
  const value = encodeURIComponent(key).replace(/[&<>"']/g, (c) => escapes[c])
  // the link to the chat page, where the session serves one (bot dev, bot dev --offline; not with --no-inspect)
  const link = chat ? `<a id="chat-link" class="chat-link" href="/chat?key=${value}">chat page</a>` : ''
  return files.html.replaceAll('{{key}}', value).replaceAll('{{chatLink}}', link)
}

/** The page's icon (a link in index.html, so the browser never asks for an unkeyed /favicon.ico). */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#2563eb"/><path d="M9 16l5 5 9-10" stroke="#fff" stroke-width="3.5" fill="none" stroke-linecap="round" stroke-linejoin="round"/></svg>
`

/** What a request without the key gets instead of the page. */
export const NO_KEY_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>bot dev inspector</title></head>
<body>
<h1>Key required</h1>
<p>Open the URL printed by <code>bot dev</code> (it carries <code>?key=…</code>), or look for
<code>inspectorUrl</code> in its <code>--json</code> ready event.</p>
</body></html>
`

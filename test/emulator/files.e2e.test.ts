/**
 * Issue 22 items 1-4: files both ways. Users send media (control API multipart, the JS conversation API) that the
 * message carries as Telegram does; bots download it from /file/bot<token>/<file_path> (Telegraf's getFileLink,
 * @grammyjs/files, python-telegram-bot 13's File.download) in both modes; file ids behave like Telegram's; every
 * media result has the fields Telegram always sends, derived from the real bytes.
 */
import {createHash} from 'node:crypto'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import http from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {hydrateFiles} from '@grammyjs/files'
import {Bot as GrammyBot, InputFile} from 'grammy'
import {Bot as NtbaBot} from 'node-telegram-bot-api'
import {Telegraf} from 'telegraf'
import {afterAll, describe, expect, it} from 'vitest'
import {problems} from './catalog-support.js'
import {runPython} from './python-support.js'
import {setup} from './helpers.js'
import {gif, jpeg, mp4, png, webp} from './media-fixtures.js'
import {waitFor} from '../support/wait.js'

const sha = (b: Buffer | Uint8Array) => createHash('sha256').update(b).digest('hex')
const tmp = mkdtempSync(join(tmpdir(), 'emu-files-'))
afterAll(() => rmSync(tmp, {recursive: true, force: true}))

/** An Ogg page whose granule position says `seconds` of 48 kHz Opus. */
function ogg(seconds: number): Buffer {
  const page = Buffer.alloc(28)
  page.write('OggS', 0, 'latin1')
  page.writeBigUInt64LE(BigInt(seconds * 48000), 6)
  return Buffer.concat([Buffer.from('OggS\0\x02', 'latin1'), Buffer.alloc(22), Buffer.from('OpusHead'), page])
}

async function postForm(
  url: string,
  fields: Record<string, string>,
  file?: {field: string; data: Buffer; name: string; type: string},
) {
  const form = new FormData()
  for (const [k, v] of Object.entries(fields)) form.set(k, v)
  if (file) form.set(file.field, new Blob([new Uint8Array(file.data)], {type: file.type}), file.name)
  const res = await fetch(url, {method: 'POST', body: form})
  return {status: res.status, json: (await res.json()) as any}
}

describe('users send media; bots download it', () => {
  for (const local of [true, false]) {
    it(`Telegraf downloads a user's photo through getFileLink (${local ? 'local' : 'cloud'} mode)`, async () => {
      const {emu, token} = await setup({local})
      const bot = new Telegraf(token, {telegram: {apiRoot: emu.apiRoot}})
      const got: Array<{bytes: string; sizes: number[][]; path: string}> = []
      bot.on('photo', async (ctx) => {
        const largest = ctx.message.photo.at(-1)!
        const link = await ctx.telegram.getFileLink(largest.file_id)
        const body = Buffer.from(await (await fetch(link)).arrayBuffer())
        got.push({bytes: sha(body), sizes: ctx.message.photo.map((p) => [p.width, p.height]), path: link.pathname})
        await ctx.reply(`got ${body.length} bytes`)
      })
      let launched = false
      const running = bot.launch(() => {
        launched = true
      })
      try {
        await waitFor(() => launched && emu.isLongPolling(token), {what: 'Telegraf to poll'})
        const image = png(759, 570)
        const sent = await postForm(
          `${emu.controlApiRoot}/bots/${token}/messages`,
          {user_id: '42', first_name: 'Ada', caption: 'my cat #cute'},
          {field: 'photo', data: image, name: 'cat.png', type: 'image/png'},
        )
        expect(sent.status).toBe(200)
        expect(sent.json.message.caption).toBe('my cat #cute')
        expect(sent.json.message.caption_entities).toEqual([{offset: 7, length: 5, type: 'hashtag'}])
        const reply = await emu.waitForBotMessage(token, {chatId: 42})
        expect(reply.params.text).toBe(`got ${image.length} bytes`)
        expect(got[0].bytes).toBe(sha(image))
        // Client.cpp JsonPhotoSize, as the cloud answers: 90, 320 boxes, then the original below the 800 box
        expect(got[0].sizes).toEqual([
          [90, 68],
          [320, 240],
          [759, 570],
        ])
        expect(got[0].path).toMatch(new RegExp(`^/file/bot${token}/photos/file_\\d+\\.jpg$`))
      } finally {
        bot.stop('test over')
        await running
      }
    })
  }

  it('@grammyjs/files downloads a document a user sent with the JS conversation API (a path)', async () => {
    const {emu, token} = await setup()
    const bot = new GrammyBot(token, {client: {apiRoot: emu.apiRoot}})
    bot.api.config.use(hydrateFiles(bot.token, {apiRoot: emu.apiRoot}))
    const saved: string[] = []
    bot.on('message:document', async (ctx) => {
      // the plugin builds the download URL from apiRoot (its download() speaks https only, so fetch the URL here)
      const file = await ctx.getFile()
      const target = join(tmp, 'grammy-download.pdf')
      writeFileSync(
        target,
        Buffer.from(await (await fetch((file as unknown as {getUrl(): string}).getUrl())).arrayBuffer()),
      )
      saved.push(target)
      await ctx.reply(
        `${ctx.message.document.file_name} ${ctx.message.document.mime_type} ${ctx.message.document.file_size}`,
      )
    })
    const running = bot.start({drop_pending_updates: false})
    try {
      await waitFor(() => emu.isLongPolling(token), {what: 'grammY to poll'})
      const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(3000, 0x20)])
      const path = join(tmp, 'report.pdf')
      writeFileSync(path, pdf)
      const ada = emu.user(token, {firstName: 'Ada'})
      const [reply] = await ada.sendDocument(path, {caption: 'the report'})
      expect(reply.text).toBe(`report.pdf application/pdf ${pdf.length}`)
      expect(readFileSync(saved[0]).equals(pdf)).toBe(true)
      const message = ada.chat.find((m) => m.document)!
      expect(message.document).toMatchObject({
        file_name: 'report.pdf',
        mime_type: 'application/pdf',
        file_size: pdf.length,
      })
      expect(message.caption).toBe('the report')
    } finally {
      await bot.stop()
      await running
    }
  })

  it('python-telegram-bot 13 downloads a user photo with File.download (its conversation example)', async () => {
    const {emu, token} = await setup()
    const image = jpeg(1280, 960)
    await postForm(
      `${emu.controlApiRoot}/bots/${token}/messages`,
      {user_id: '7'},
      {field: 'photo', data: image, name: 'me.jpg', type: 'image/jpeg'},
    )
    const out = join(tmp, 'ptb.jpg')
    const python = await runPython(PTB_DOWNLOAD, [emu.apiRoot, token, out])
    if (python.status !== 0 && /No module named .telegram/.test(python.stderr)) {
      if (process.env.CI) throw new Error(python.stderr)
      return
    }
    expect(python.status, python.stderr).toBe(0)
    expect(python.stdout.trim().split('\n').at(-1)).toBe('[[90, 68], [320, 240], [800, 600], [1280, 960]]')
    expect(readFileSync(out).equals(image)).toBe(true)
  })

  it('the control API takes every kind of media, with sizes and durations from the bytes; bad forms are refused', async () => {
    const {emu, token} = await setup()
    const url = `${emu.controlApiRoot}/bots/${token}/messages`
    const send = (field: string, data: Buffer, name: string, type: string, fields: Record<string, string> = {}) =>
      postForm(url, {user_id: '5', ...fields}, {field, data, name, type})
    const video = (await send('video', mp4(640, 360, 12.4), 'clip.mp4', 'video/mp4')).json.message.video
    expect(video).toMatchObject({duration: 12, width: 640, height: 360, file_name: 'clip.mp4', mime_type: 'video/mp4'})
    const voice = (await send('voice', ogg(4), 'note.ogg', 'audio/ogg')).json.message.voice
    expect(voice).toMatchObject({duration: 4, mime_type: 'audio/ogg'})
    const animation = (await send('animation', gif(320, 200), 'dance.gif', 'image/gif')).json.message
    expect(animation.animation).toMatchObject({width: 320, height: 200, file_name: 'dance.gif'})
    expect(animation.document).toMatchObject({file_id: animation.animation.file_id, file_name: 'dance.gif'})
    const sticker = (await send('sticker', webp(512, 512), 's.webp', 'image/webp', {emoji: '😺'})).json.message.sticker
    expect(sticker).toMatchObject({
      width: 512,
      height: 512,
      emoji: '😺',
      is_animated: false,
      is_video: false,
      type: 'regular',
    })
    const note = (await send('video_note', mp4(240, 240, 3), 'n.mp4', 'video/mp4')).json.message.video_note
    expect(note).toMatchObject({duration: 3, length: 240})
    const audio = (await send('audio', Buffer.alloc(1000), 'song.mp3', 'audio/mpeg', {title: 'Song', duration: '61'}))
      .json.message.audio
    expect(audio).toMatchObject({duration: 61, title: 'Song', file_name: 'song.mp3', mime_type: 'audio/mpeg'})
    for (const [kind, object] of Object.entries({video, voice, sticker, video_note: note, audio})) {
      const type = {video: 'Video', voice: 'Voice', sticker: 'Sticker', video_note: 'VideoNote', audio: 'Audio'}[kind]!
      expect(problems(object, type), kind).toEqual([])
    }
    expect((await postForm(url, {user_id: '5'})).json.error).toMatch(/exactly one file/)
    expect((await send('picture', png(10, 10), 'x.png', 'image/png')).json.error).toMatch(/named after its kind/)
    expect((await send('photo', png(10, 10), 'x.png', 'image/png', {text: 'x'})).json.error).toMatch(/caption/)
  })

  it('node-telegram-bot-api 2 receives a photo from user.sendPhoto(bytes) and answers its sizes', async () => {
    const {emu, token} = await setup({timeScale: 0})
    const bot = new NtbaBot(token, {apiRoot: emu.apiRoot})
    bot.on('message', async (ctx: any) => {
      const photo = ctx.message?.photo
      if (photo) await ctx.reply(photo.map((p: any) => `${p.width}x${p.height}`).join(' '))
    })
    const running = bot.startPolling()
    try {
      await waitFor(() => emu.isLongPolling(token), {what: 'node-telegram-bot-api to poll'})
      const [reply] = await emu.user(token).sendPhoto(png(2000, 1000), {caption: 'wide'})
      expect(reply.text).toBe('90x45 320x160 800x400 1280x640')
    } finally {
      await bot.stop()
      await running.catch(() => undefined)
    }
  })
})

describe('file ids and results', () => {
  it("refuses ids the emulator never issued, or another bot's, with Telegram's texts; getFile the same", async () => {
    const {emu, token, api} = await setup()
    const other = emu.createBot()
    emu.sendUserMessage(token, {text: 'hi'})
    emu.sendUserMessage(other.token, {text: 'hi'})
    const mine = emu.sendUserMedia(token, {kind: 'photo', data: png(100, 100)}).message as any
    const theirs = emu.sendUserMedia(other.token, {kind: 'photo', data: png(100, 100)}).message as any
    const myId = mine.photo.at(-1).file_id
    const theirId = theirs.photo.at(-1).file_id
    expect(myId).toMatch(/^AgAC/)
    expect(mine.photo.at(-1).file_unique_id).toBe(theirs.photo.at(-1).file_unique_id) // same content, any bot
    const bad = (d: string) => ({ok: false, error_code: 400, description: `Bad Request: ${d}`})
    expect((await api('sendPhoto', {chat_id: 1111, photo: myId})).json.result.photo.at(-1).file_id).toBe(myId)
    expect((await api('sendPhoto', {chat_id: 1111, photo: theirId})).json).toEqual(
      bad('wrong file identifier/HTTP URL specified'),
    )
    expect((await api('sendPhoto', {chat_id: 1111, photo: 'abc12'})).json).toEqual(
      bad('wrong remote file identifier specified: Wrong string length'),
    )
    expect((await api('sendPhoto', {chat_id: 1111, photo: 'not a file'})).json).toEqual(
      bad('wrong remote file identifier specified: Wrong character in the string'),
    )
    expect((await api('sendDocument', {chat_id: 1111, document: myId})).json).toEqual(
      bad("can't use file of type Photo as Document"),
    )
    expect((await api('getFile', {file_id: theirId})).json).toEqual(
      bad('wrong file_id or the file is temporarily unavailable'),
    )
    expect((await api('getFile', {file_id: 'abc12'})).json).toEqual(bad('invalid file_id'))
    expect((await api('getFile', {})).json).toEqual(bad('file_id not specified'))
    const file = (await api('getFile', {file_id: myId})).json.result
    expect(Object.keys(file)).toEqual(['file_id', 'file_unique_id', 'file_size', 'file_path'])
    expect(file.file_path).toMatch(/^photos\/file_\d+\.jpg$/)
    const download = await fetch(`${emu.apiRoot}/file/bot${token}/${file.file_path}`)
    expect(Buffer.from(await download.arrayBuffer()).length).toBe(file.file_size)
    const missing = await fetch(`${emu.apiRoot}/file/bot${token}/photos/file_999.jpg`)
    expect([missing.status, await missing.text()]).toEqual([
      404,
      '{"ok":false,"error_code":404,"description":"Not Found"}',
    ])
    // a video's id may stand in for a document (document-class types)
    const clip = (emu.sendUserMedia(token, {kind: 'video', data: mp4(64, 64, 1)}).message as any).video.file_id
    expect((await api('sendDocument', {chat_id: 1111, document: clip})).json.result.document.file_id).toMatch(/^BQAC/)
  })

  it('a file sent by URL gets a real file_id: loopback URLs are fetched, others are made up', async () => {
    const {emu, api, token} = await setup()
    emu.sendUserMessage(token, {text: 'hi'})
    const image = png(400, 300)
    const server = http.createServer((req, res) => {
      if (req.url === '/cat.png') res.writeHead(200, {'content-type': 'image/png'}).end(image)
      else if (req.url === '/page.html') res.writeHead(200, {'content-type': 'text/html'}).end('<html></html>')
      else res.writeHead(404).end()
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    try {
      const sent = (await api('sendPhoto', {chat_id: 1111, photo: `${base}/cat.png`})).json.result.photo
      expect(sent.map((p: any) => [p.width, p.height])).toEqual([
        [90, 68],
        [320, 240],
        [400, 300],
      ])
      const path = (await api('getFile', {file_id: sent.at(-1).file_id})).json.result.file_path
      const bytes = Buffer.from(await (await fetch(`${emu.apiRoot}/file/bot${token}/${path}`)).arrayBuffer())
      expect(bytes.equals(image)).toBe(true)
      expect((await api('sendPhoto', {chat_id: 1111, photo: `${base}/missing.png`})).json.description).toBe(
        'Bad Request: failed to get HTTP URL content',
      )
      expect((await api('sendPhoto', {chat_id: 1111, photo: `${base}/page.html`})).json.description).toBe(
        'Bad Request: wrong type of the web page content',
      )
      const remote = (await api('sendDocument', {chat_id: 1111, document: 'https://example.com/files/report.pdf'})).json
        .result.document
      expect(remote).toMatchObject({file_name: 'report.pdf', mime_type: 'application/pdf', file_size: 65536})
      expect(remote.file_id).toMatch(/^BQAC/)
    } finally {
      server.close()
    }
  })

  it('python-telegram-bot 13 gets every media result without a TypeError; fields come from the bytes', async () => {
    const {emu, token} = await setup()
    emu.sendUserMessage(token, {text: 'hi', userId: 9})
    const files: Record<string, Buffer> = {
      'clip.mp4': mp4(640, 480, 7),
      'dance.gif': gif(200, 100),
      'song.mp3': Buffer.alloc(500),
      'voice.ogg': ogg(2),
      'sticker.webp': webp(512, 256),
      'note.mp4': mp4(240, 240, 4),
      'a.png': png(300, 200),
      'b.png': png(800, 900),
    }
    for (const [name, data] of Object.entries(files)) writeFileSync(join(tmp, name), data)
    const python = await runPython(PTB_MEDIA, [emu.apiRoot, token, tmp])
    if (python.status !== 0 && /No module named .telegram/.test(python.stderr)) {
      if (process.env.CI) throw new Error(python.stderr)
      return
    }
    expect(python.status, python.stderr).toBe(0)
    const r = JSON.parse(python.stdout.trim().split('\n').at(-1)!)
    expect(r.video).toEqual([640, 480, 7])
    expect(r.animation).toEqual([200, 100, 0])
    expect(r.audio).toEqual([0, 'song.mp3'])
    expect(r.voice).toBe(2)
    expect(r.sticker).toEqual([512, 256, false, false])
    expect(r.video_note).toEqual([240, 4])
    expect(r.album.length).toBe(2)
    expect(r.album[0].group).toBe(r.album[1].group)
    expect(r.album[0].group).toMatch(/^\d+$/)
    expect(r.album[0].sizes).toEqual([
      [90, 60],
      [300, 200],
    ])
    expect(r.album[1].sizes).toEqual([
      [80, 90],
      [284, 320],
      [711, 800],
      [800, 900],
    ])
    expect(new Set(r.album[1].ids).size).toBe(4) // each size its own file_id
  })

  it('grammY (attach://, an InputFile) gets a media group as Telegram sends it; one item has no media_group_id', async () => {
    const {emu, token} = await setup()
    emu.sendUserMessage(token, {text: 'hi', userId: 5})
    const bot = new GrammyBot(token, {client: {apiRoot: emu.apiRoot}})
    // grammY's types for an album's messages leave out what a photo/video message has: read them as plain objects.
    const album: Array<{
      photo?: Array<{width: number; height: number; file_id: string}>
      video?: object
      media_group_id?: string
    }> = (await bot.api.sendMediaGroup(5, [
      {type: 'photo', media: new InputFile(png(50, 40), 'a.png'), caption: 'one'},
      {type: 'video', media: new InputFile(mp4(320, 240, 2), 'v.mp4'), width: 100},
    ])) as unknown as typeof album
    expect(album[0].photo?.map((p) => [p.width, p.height])).toEqual([[50, 40]])
    expect(album[1].video).toMatchObject({width: 100, height: 240, duration: 2})
    expect(album[0].media_group_id).toBe(album[1].media_group_id)
    const single = (await bot.api.sendMediaGroup(5, [
      {type: 'photo', media: album[0].photo![0].file_id},
    ])) as unknown as Array<{media_group_id?: string}>
    expect(single[0].media_group_id).toBeUndefined()
    const bad = (body: unknown) =>
      bot.api.raw.sendMediaGroup(body as any).catch((e: {description: string}) => e.description)
    expect(await bad({chat_id: 5, media: []})).toBe('Bad Request: there are no messages to send')
    expect(await bad({chat_id: 5, media: [{type: 'animation', media: 'x'}]})).toBe(
      'Bad Request: can\'t parse InputMedia: type "animation" can\'t be used in sendMediaGroup',
    )
    expect(
      await bad({
        chat_id: 5,
        media: [
          {type: 'document', media: 'https://example.com/a.pdf'},
          {type: 'photo', media: 'https://example.com/b.jpg'},
        ],
      }),
    ).toBe("Bad Request: document can't be mixed with other media types")
    expect(
      await bad({
        chat_id: 5,
        media: [
          {type: 'photo', media: 'https://example.com/b.jpg'},
          {type: 'photo', media: 'AgACAgIAAxkBAAIBY2ZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmAAQ'},
        ],
      }),
    ).toBe('Bad Request: failed to send message #2 with the error message "Wrong file identifier/HTTP URL specified"')
  })
})

/** PTB 13: the photo of the newest update downloaded with File.download; prints the sizes. */
const PTB_DOWNLOAD = `
import json, sys, telegram
api_root, token, out = sys.argv[1], sys.argv[2], sys.argv[3]
bot = telegram.Bot(token, base_url=api_root + "/bot", base_file_url=api_root + "/file/bot")
update = bot.get_updates(timeout=0)[-1]
photo = update.message.photo
photo[-1].get_file().download(out)
print(json.dumps([[p.width, p.height] for p in photo]))
`

/** PTB 13: every media method with real files; what its results say, as JSON on the last line. */
const PTB_MEDIA = `
import json, os, sys, telegram
api_root, token, d = sys.argv[1], sys.argv[2], sys.argv[3]
bot = telegram.Bot(token, base_url=api_root + "/bot")
f = lambda name: open(os.path.join(d, name), "rb")
out = {}
m = bot.send_video(9, f("clip.mp4")); out["video"] = [m.video.width, m.video.height, m.video.duration]
m = bot.send_animation(9, f("dance.gif")); out["animation"] = [m.animation.width, m.animation.height, m.animation.duration]
m = bot.send_audio(9, f("song.mp3")); out["audio"] = [m.audio.duration, m.audio.file_name]
m = bot.send_voice(9, f("voice.ogg")); out["voice"] = m.voice.duration
m = bot.send_sticker(9, f("sticker.webp")); out["sticker"] = [m.sticker.width, m.sticker.height, m.sticker.is_animated, m.sticker.is_video]
m = bot.send_video_note(9, f("note.mp4")); out["video_note"] = [m.video_note.length, m.video_note.duration]
album = bot.send_media_group(9, [telegram.InputMediaPhoto(f("a.png")), telegram.InputMediaPhoto(f("b.png"))])
out["album"] = [{"group": m.media_group_id, "sizes": [[p.width, p.height] for p in m.photo], "ids": [p.file_id for p in m.photo]} for m in album]
print(json.dumps(out))
`

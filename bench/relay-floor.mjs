// The least a relay can do, for bench/relay.ts --relay-module bench/relay-floor.mjs: read a request,
// write it to the bot on a kept-alive connection, write the bot's answer back. No checks, no
// bounds, no timeouts, no events: not a relay to use, a measure of what one more loopback hop costs
// on this machine (two socket writes and two reads per update), to read the relay's figures against.
import net from 'node:net'

const END = Buffer.from('\r\n\r\n')

/** The Content-Length of a head (the bench sends one, and the bench's bot answers with one). */
function framed(buf) {
  const end = buf.indexOf(END)
  if (end < 0) return undefined
  const length = Number(/content-length: *(\d+)/i.exec(buf.toString('latin1', 0, end))[1])
  return buf.length < end + 4 + length ? undefined : {start: end + 4, length}
}

export class Relay {
  #idle = []
  #target
  #server

  constructor(options) {
    this.secret = options.secret
    this.#server = net.createServer({noDelay: true}, (socket) => this.#client(socket))
  }

  async listen() {
    await new Promise((resolve) => this.#server.listen(0, '127.0.0.1', resolve))
    return this.#server.address().port
  }

  setTarget(target) {
    this.#target = target
  }

  #client(socket) {
    let pending
    socket.on('error', () => {})
    socket.on('data', (chunk) => {
      pending = pending ? Buffer.concat([pending, chunk]) : chunk
      const f = framed(pending)
      if (!f) return
      const body = pending.toString('latin1', f.start, f.start + f.length)
      pending = undefined
      this.#send(body, (answer) =>
        socket.write(
          `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${answer.length}\r\n\r\n${answer}`,
          'latin1',
        ),
      )
    })
  }

  #send(body, done) {
    let bot = this.#idle.pop()
    if (!bot) {
      const conn = net.connect({host: this.#target.host, port: this.#target.port, noDelay: true})
      bot = {socket: conn, done: undefined}
      const me = bot
      let pending
      conn.on('error', () => {})
      conn.on('data', (chunk) => {
        pending = pending ? Buffer.concat([pending, chunk]) : chunk
        const f = framed(pending)
        if (!f) return
        const answer = pending.toString('latin1', f.start, f.start + f.length)
        pending = undefined
        const then = me.done
        this.#idle.push(me)
        then(answer)
      })
    }
    bot.done = done
    const t = this.#target
    bot.socket.write(
      `POST ${t.path} HTTP/1.1\r\nhost: ${t.host}:${t.port}\r\nconnection: keep-alive\r\nx-telegram-bot-api-secret-token: ${this.secret}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
      'latin1',
    )
  }
}

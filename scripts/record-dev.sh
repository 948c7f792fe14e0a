#!/usr/bin/env bash
# Re-makes the terminal recordings in docs/recordings/ from real runs of this clone's build:
#
#   dev-offline.txt / .cast   `bot dev --offline` in examples/echo-bot: a few messages typed in the chat
#   dev.txt / .cast           `bot dev` online, with the Bot API emulator (`bot emulator --talk`) as the
#                             api root and `--public-url` on loopback: setWebhook, updates, a restart on
#                             an edit of src/bot.ts, `bot trigger` and `bot replay` from a third pane,
#                             Ctrl-C teardown
#
# Both run in a copy of examples/echo-bot (its node_modules: this clone's), so the edit stays there.
#
# Nothing talks to Telegram or to a tunnel host: everything stays on 127.0.0.1.
# The .txt files are tmux's rendering of the panes (capture-pane); the .cast files are asciicast v2
# (asciinema's format, play with `asciinema play`) of the bytes `script` recorded, with the real delays.
#
# Needs: npm ci && npm run build; tmux; util-linux script.   Run: scripts/record-dev.sh
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$ROOT/docs/recordings
W=100
H=30
# The online run's token: made up for this run, given to `bot emulator --token` and `bot dev` through the
# environment (never typed), and looked for in the recordings at the end: none may show it.
TOKEN="$((RANDOM % 9000 + 1000))$((RANDOM % 90000 + 10000)):$(node -e 'process.stdout.write(require("crypto").randomBytes(27).toString("base64url"))')"

for tool in tmux script node; do command -v "$tool" >/dev/null || { echo "record-dev.sh: $tool is not installed" >&2; exit 2; }; done
[ -f "$ROOT/dist/commands/dev.js" ] || { echo "record-dev.sh: run npm run build first" >&2; exit 2; }

work=$(mktemp -d)
SOCK=$work/tmux.sock # a tmux server of our own, stopped at the end
t() { tmux -f /dev/null -S "$SOCK" "$@"; }
cleanup() {
  t kill-server 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# `bot` on PATH is this clone's build; a clean environment (no BOT_TOKEN of yours, a throwaway state dir).
mkdir -p "$work/bin" "$work/home" "$work/state"
ln -s "$ROOT/bin/run.js" "$work/bin/bot"
BOT_DIR=$work/echo-bot
mkdir -p "$BOT_DIR"
cp -R "$ROOT/examples/echo-bot/." "$BOT_DIR/"
ln -s "$ROOT/node_modules" "$BOT_DIR/node_modules"
ENV=(env -i "PATH=$work/bin:$PATH" "HOME=$work/home" "BOT_STATE_DIR=$work/state" "TERM=xterm-256color"
  "LANG=C.UTF-8" "LC_ALL=C.UTF-8" "COLUMNS=$W" "PS1=\$ ")

# wait_for PANE REGEX [SECONDS]: until the pane shows REGEX (whole history), with a deadline.
wait_for() {
  local pane=$1 pattern=$2 deadline=$((SECONDS + ${3:-60}))
  until t capture-pane -p -J -S - -t "$pane" | grep -qE -- "$pattern"; do
    if ((SECONDS > deadline)); then
      echo "record-dev.sh: timed out waiting for /$pattern/ in pane $pane:" >&2
      t capture-pane -p -J -S - -t "$pane" >&2
      exit 1
    fi
    sleep 0.2
  done
}

# wait_count PANE REGEX N: until N lines of the pane match REGEX, with a deadline.
wait_count() {
  local pane=$1 pattern=$2 n=$3 deadline=$((SECONDS + 60))
  until [ "$(t capture-pane -p -J -S - -t "$pane" | grep -cE -- "$pattern")" -ge "$n" ]; do
    if ((SECONDS > deadline)); then
      echo "record-dev.sh: timed out waiting for $n lines /$pattern/ in pane $pane:" >&2
      t capture-pane -p -J -S - -t "$pane" >&2
      exit 1
    fi
    sleep 0.2
  done
}

# type_line PANE TEXT: typed key by key, as a person would, then Enter.
type_line() {
  local pane=$1 text=$2 i
  for ((i = 0; i < ${#text}; i++)); do
    t send-keys -t "$pane" -l -- "${text:i:1}"
    sleep 0.04
  done
  sleep 0.3
  t send-keys -t "$pane" Enter
}

# A pane running bash under `script`, which records every byte written to it and when.
# shell_pane NAME [VAR=VALUE…]: the command for tmux (the extra variables in the shell's environment, not typed).
shell_pane() {
  local name=$1
  shift
  printf '%q ' "${ENV[@]}" "$@" script -q -m classic -T "$work/$name.tim" -O "$work/$name.log" -c 'bash --norc --noprofile'
}

# save NAME PANE ROWS TITLE: the pane as plain text, and the recording as asciicast v2.
save_text() { t capture-pane -p -J -S - -t "$2" | sed -e 's/[[:space:]]*$//' | cat -s | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'; }
save_cast() { (cd "$ROOT" && npx --no-install tsx scripts/record-cast.ts "$work/$1.log" "$work/$1.tim" "$W" "$3" "$4") >"$OUT/$1.cast"; }

free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

mkdir -p "$OUT"

# ── 1. bot dev --offline: the chat in the terminal ─────────────────────────────────────────────
P=$(t new-session -d -P -F '#{pane_id}' -x "$W" -y "$H" -c "$BOT_DIR" -s offline "$(shell_pane dev-offline)")
wait_for $P '^\$ ?$'
type_line $P 'bot dev --offline'
wait_for $P 'Ctrl-D ends'
wait_for $P 'you › $'
type_line $P '/start'
wait_for $P 'bot › Hi You!'
type_line $P 'hello'
wait_for $P 'bot › hello'
type_line $P '/ask'
wait_for $P '\[ Yes \]'
type_line $P ':press Yes'
wait_for $P 'You like it'
sleep 1
t send-keys -t $P C-d
wait_for $P 'bot dev --offline ended'
wait_for $P '^\$ ?$' 30
sleep 0.5
{
  echo "── \`bot dev --offline\` in a copy of examples/echo-bot (made by scripts/record-dev.sh) ──"
  echo
  save_text dev-offline $P
} >"$OUT/dev-offline.txt"
type_line $P 'exit'
while t has-session -t offline 2>/dev/null; do sleep 0.2; done
save_cast dev-offline $P "$H" 'bot dev --offline (examples/echo-bot)'

# ── 2. bot dev online: the emulator as the api root, a webhook on loopback ────────────────────
API_PORT=$(free_port)
RELAY_PORT=$(free_port)
ONLINE_ENV=("BOT_TOKEN=$TOKEN" "BOT_API_ROOT=http://127.0.0.1:$API_PORT")
U=$(t new-session -d -P -F '#{pane_id}' -x "$W" -y 48 -c "$BOT_DIR" -s online "$(shell_pane emulator "${ONLINE_ENV[@]}")") # the user: bot emulator --talk
D=$(t split-window -v -P -F '#{pane_id}' -l 34 -t "$U" -c "$BOT_DIR" "$(shell_pane dev "${ONLINE_ENV[@]}")")          # bot dev
T=$(t split-window -v -P -F '#{pane_id}' -l 8 -t "$D" -c "$BOT_DIR" "$(shell_pane trigger "${ONLINE_ENV[@]}")")       # bot trigger / bot replay
wait_for $U '^\$ ?$'
type_line $U "bot emulator --port $API_PORT --token \"\$BOT_TOKEN\" --talk"
wait_for $U 'Chatting with the bot'
wait_for $D '^\$ ?$'
type_line $D "bot dev --public-url http://127.0.0.1:$RELAY_PORT --relay-port $RELAY_PORT"
wait_for $D 'Ready' 90
type_line $U '/start'
wait_for $U 'bot › Hi'
type_line $U 'hello from the emulator'
wait_for $U 'bot › hello from the emulator'
wait_for $D '"hello from the emulator"'
sleep 1
# An edit, as from an editor: bot dev restarts the bot; the next /start gets the new greeting.
sed -i 's/`Hi \${/`Hello \${/' "$BOT_DIR/src/bot.ts"
grep -q '`Hello ${' "$BOT_DIR/src/bot.ts" || { echo "record-dev.sh: the edit of src/bot.ts did not apply" >&2; exit 1; }
wait_for $D '↻'
wait_count $D 'Bot listening' 2
type_line $U '/start'
wait_for $U 'bot › Hello You!'
wait_count $D '"/start"' 2
sleep 1
# From a third terminal: a synthetic message, then the same update again.
wait_for $T '^\$ ?$'
type_line $T 'bot trigger message /help'
wait_for $T 'delivered'
wait_for $D '"/help" .*\(bot trigger\)'
sleep 1
type_line $T 'bot replay --last'
wait_for $T 'replay of'
wait_for $D '\(replay of #'
sleep 1
t send-keys -t $D C-c
wait_for $D 'bot dev ended' 30
wait_for $D '^\$ ?$' 30
t send-keys -t $U C-d
wait_for $U '^\$ ?$' 30
sleep 0.5
{
  echo "── top pane: the user, \`bot emulator --talk\` (the Bot API emulator, with a chat on stdin) ──"
  echo
  save_text emulator $U
  echo
  echo "── middle pane: \`bot dev\` in a copy of examples/echo-bot, the emulator as the api root; src/bot.ts edited midway ──"
  echo
  save_text dev $D
  echo
  echo "── bottom pane: another terminal in the same folder ──"
  echo
  save_text trigger $T
} >"$OUT/dev.txt"
type_line $U 'exit'
type_line $D 'exit'
type_line $T 'exit'
while t has-session -t online 2>/dev/null; do sleep 0.2; done
save_cast dev $D 25 'bot dev against the emulator (middle pane of dev.txt)'

# ── 3. Nothing secret in what was written: no token, no whole webhook path, no webhook secret ──────
secrets=("$TOKEN" OFFLINE-DEV-TOKEN)
for f in "$work"/state/secret-*; do [ -f "$f" ] && secrets+=("$(cat "$f")"); done
for f in "$OUT"/dev.txt "$OUT"/dev.cast "$OUT"/dev-offline.txt "$OUT"/dev-offline.cast; do
  for secret in "${secrets[@]}"; do
    if grep -qF -- "$secret" "$f"; then echo "record-dev.sh: $f shows a token or the webhook secret" >&2; exit 1; fi
  done
  if grep -qE '[0-9]{6,}:[A-Za-z0-9_-]{30,}' "$f"; then echo "record-dev.sh: $f shows something shaped like a token" >&2; exit 1; fi
  if grep -qE '/webhook/[A-Za-z0-9_-]{5,}' "$f"; then echo "record-dev.sh: $f shows a whole webhook path" >&2; exit 1; fi
done

echo "Wrote $(cd "$ROOT" && ls docs/recordings/* | tr '\n' ' ')"

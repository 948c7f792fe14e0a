"""Run a command on a real pseudo-terminal, press Ctrl-C once the output matches a pattern.

usage: python3 pty-interrupt.py '{"command": [...], "pattern": "regex", "timeout": 60, "cols": 100, "rows": 40}'

The terminal gets a size (a spinner needs a width). Ctrl-C is typed as the byte \\x03, as a person
does: the terminal driver turns it into SIGINT for the foreground process group, unless the
program put the terminal in raw mode. Prints one JSON line: {"output", "exitCode", "signal",
"interrupted", "secondsAfterInterrupt", "timedOut"}.
"""
import fcntl
import json
import os
import pty
import re
import select
import struct
import sys
import termios
import time

config = json.loads(sys.argv[1])
pattern = re.compile(config['pattern'].encode())
timeout = float(config.get('timeout', 60))
pid, fd = pty.fork()
if pid == 0:
    os.execvp(config['command'][0], config['command'])

fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack('HHHH', int(config.get('rows', 40)), int(config.get('cols', 100)), 0, 0))
output = b''
started = time.time()
sent_at = None
timed_out = False
while True:
    ready, _, _ = select.select([fd], [], [], 0.05)
    if ready:
        try:
            data = os.read(fd, 65536)
        except OSError:
            data = b''
        if not data:
            break
        output += data
    if sent_at is None and pattern.search(output):
        os.write(fd, b'\x03')
        sent_at = time.time()
    if time.time() - started > timeout:
        timed_out = True
        os.kill(pid, 9)
        break
_, status = os.waitpid(pid, 0)
ended = time.time()
print(json.dumps({
    'output': output.decode('utf-8', 'replace'),
    'exitCode': os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
    'signal': os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
    'interrupted': sent_at is not None,
    'secondsAfterInterrupt': None if sent_at is None else round(ended - sent_at, 3),
    'timedOut': timed_out,
}))

"""Run a command on a real pseudo-terminal and type into it as a person would.

usage: python3 pty-run.py '{"command": [...], "steps": [{"pattern": "regex", "send": "text"}], "timeout": 60, "cols": 100, "rows": 40}'

stdin, stdout and stderr of the command are the terminal, which has a size (spinners need a width).
Each step waits until its pattern matches the output that came after the previous step's match,
then types `send` (e.g. "hello\\r", "\\u0003" for Ctrl-C, "\\u0004" for Ctrl-D). When the steps are done
the driver reads until the command ends. Prints one JSON line: {"output", "exitCode", "signal",
"steps", "secondsAfterLastStep", "timedOut"} where steps is how many steps were typed and
secondsAfterLastStep how long the command ran on after the last of them (null when none was typed).
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
steps = [(re.compile(s['pattern'].encode()), s['send'].encode()) for s in config.get('steps', [])]
timeout = float(config.get('timeout', 60))
pid, fd = pty.fork()
if pid == 0:
    os.execvp(config['command'][0], config['command'])

fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack('HHHH', int(config.get('rows', 40)), int(config.get('cols', 100)), 0, 0))
output = b''
searched_from = 0
done_steps = 0
last_step_at = None
started = time.time()
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
    if done_steps < len(steps):
        pattern, send = steps[done_steps]
        match = pattern.search(output, searched_from)
        if match:
            searched_from = match.end()
            os.write(fd, send)
            done_steps += 1
            last_step_at = time.time()
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
    'steps': done_steps,
    'secondsAfterLastStep': None if last_step_at is None else round(ended - last_step_at, 3),
    'timedOut': timed_out,
}))

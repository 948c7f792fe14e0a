"""Tests the python-telegram-bot echo bot (echo_bot.py) through the emulator's control API.

The test starts `bot emulator --port 0 --json` (the fake bot and its token), runs echo_bot.py against it as a
separate process in long-polling mode, plays the user over HTTP (POST /_emulator/bots/{token}/messages,
/callback_queries, /faults) and reads what the bot did (GET /_emulator/bots/{token}/calls?wait=…).

    python3 -m unittest -v test_echo_bot        (BOT_CMD overrides how `bot` is run; default: node ../../bin/run.js)
"""
import json
import os
import shlex
import subprocess
import sys
import unittest
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
BOT_CMD = shlex.split(os.environ.get("BOT_CMD", f"node {os.path.join(HERE, '..', '..', 'bin', 'run.js')}"))
WAIT = 15  # seconds a GET /calls may wait for the bot (generous: the machine may be busy)


class Control:
    """A tiny client for the emulator's control API."""

    def __init__(self, control_api, token):
        self.base = f"{control_api}/bots/{token}"
        self.cursor = 0  # the seq of the last call already looked at

    def request(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=WAIT + 10) as res:
                return json.load(res)
        except urllib.error.HTTPError as err:
            raise AssertionError(f"{method} {path} answered {err.code}: {err.read().decode()}") from None

    def send(self, text, user_id=1111, first_name="Test"):
        return self.request("POST", "/messages", {"text": text, "user_id": user_id, "first_name": first_name})

    def press(self, data, message_id, user_id=1111):
        return self.request("POST", "/callback_queries", {"data": data, "message_id": message_id, "user_id": user_id})

    def fail_next(self, method, error_code, description, **extra):
        return self.request("POST", "/faults", {"method": method, "error_code": error_code, "description": description, **extra})

    def next_call(self, method):
        """The bot's next call of `method` after the cursor (long-polls until it comes)."""
        answer = self.request("GET", f"/calls?since={self.cursor}&wait={WAIT}&method={method}")
        if not answer["calls"]:
            raise AssertionError(f"the bot made no {method} call within {WAIT} s")
        call = answer["calls"][0]
        self.cursor = call["seq"]
        return call


class EchoBotTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.emulator = subprocess.Popen(BOT_CMD + ["emulator", "--port", "0", "--json"], stdout=subprocess.PIPE, text=True)
        info = json.loads(cls.emulator.stdout.readline())
        cls.control = Control(info["controlApi"], info["token"])
        env = {**os.environ, "BOT_TOKEN": info["token"], "BOT_API_ROOT": info["apiRoot"]}
        cls.bot = subprocess.Popen([sys.executable, os.path.join(HERE, "echo_bot.py")], env=env)

    @classmethod
    def tearDownClass(cls):
        for proc in (cls.bot, cls.emulator):
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        cls.emulator.stdout.close()

    def test_start_greets_by_name(self):
        self.control.send("/start", first_name="Ada")
        call = self.control.next_call("sendMessage")
        self.assertTrue(call["ok"])
        self.assertEqual(call["params"]["text"], "Hi Ada! Send me anything and I echo it.")

    def test_echoes_text(self):
        sent = self.control.send("hello there", user_id=5150)
        self.assertEqual(sent["message"]["chat"]["id"], 5150)
        call = self.control.next_call("sendMessage")
        self.assertEqual(call["params"]["text"], "hello there")
        self.assertEqual(call["result"]["chat"]["id"], 5150)

    def test_button_press_is_answered_and_edits_the_question(self):
        self.control.send("/ask")
        question = self.control.next_call("sendMessage")
        buttons = question["params"]["reply_markup"]["inline_keyboard"][0]
        self.assertEqual([b["text"] for b in buttons], ["Yes", "No"])
        self.control.press("like:yes", question["result"]["message_id"])
        self.assertEqual(self.control.next_call("answerCallbackQuery")["params"]["text"], "Thanks!")
        edit = self.control.next_call("editMessageText")
        self.assertEqual(edit["params"]["text"], "You like it.")

    def test_survives_a_blocked_send(self):
        self.control.fail_next("sendMessage", 403, "Forbidden: bot was blocked by the user")
        self.control.send("are you there?")
        failed = self.control.next_call("sendMessage")
        self.assertFalse(failed["ok"])
        self.assertEqual((failed["error_code"], failed["description"]), (403, "Forbidden: bot was blocked by the user"))
        self.control.send("still alive?")
        self.assertEqual(self.control.next_call("sendMessage")["params"]["text"], "still alive?")


if __name__ == "__main__":
    unittest.main()

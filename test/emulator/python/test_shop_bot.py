"""Payments through the emulator's control API, with the python-telegram-bot 13 shop bot (shop_bot.py).

The emulator runs in the vitest process (test/emulator/python-payments.test.ts) and hands its api root, token and
control API base over in EMULATOR_API_ROOT, EMULATOR_TOKEN and EMULATOR_CONTROL; this test starts the bot, plays the
user over HTTP (POST /messages, POST /invoices/{message_id}/pay) and reads what the bot did (GET /calls?wait=…).
"""
import json
import os
import subprocess
import sys
import unittest
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
WAIT = 15


class Control:
    def __init__(self, base, token):
        self.base = f"{base}/bots/{token}"
        self.cursor = 0

    def request(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=WAIT + 10) as res:
                return json.load(res)
        except urllib.error.HTTPError as err:
            raise AssertionError(f"{method} {path} answered {err.code}: {err.read().decode()}") from None

    def send(self, text, user_id):
        return self.request("POST", "/messages", {"text": text, "user_id": user_id, "first_name": "Ada"})

    def next_call(self, method):
        answer = self.request("GET", f"/calls?since={self.cursor}&wait={WAIT}&method={method}")
        if not answer["calls"]:
            raise AssertionError(f"the bot made no {method} call within {WAIT} s")
        call = answer["calls"][0]
        self.cursor = call["seq"]
        return call

    def pay(self, message_id, user_id):
        return self.request("POST", f"/invoices/{message_id}/pay", {"user_id": user_id})


class ShopBotTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.control = Control(os.environ["EMULATOR_CONTROL"], os.environ["EMULATOR_TOKEN"])
        env = {**os.environ, "BOT_TOKEN": os.environ["EMULATOR_TOKEN"], "BOT_API_ROOT": os.environ["EMULATOR_API_ROOT"]}
        cls.bot = subprocess.Popen([sys.executable, os.path.join(HERE, "shop_bot.py")], env=env)

    @classmethod
    def tearDownClass(cls):
        cls.bot.terminate()
        try:
            cls.bot.wait(timeout=15)
        except subprocess.TimeoutExpired:
            cls.bot.kill()
            cls.bot.wait()

    def buy(self, command, user_id):
        self.control.send(command, user_id)
        sent = self.control.next_call("sendInvoice")
        self.assertTrue(sent["ok"], sent)
        self.assertEqual(sent["result"]["invoice"]["currency"], "XTR")
        return sent["result"]["message_id"]

    def test_1_a_paid_invoice_is_thanked_and_refunded_once(self):
        message_id = self.buy("/buy", 501)
        payment = self.control.pay(message_id, 501)
        self.assertEqual(payment["status"], "paid", payment)
        self.assertEqual(payment["successful_payment"]["total_amount"], 50)
        self.assertEqual(payment["successful_payment"]["invoice_payload"], "coffee")
        thanks = self.control.next_call("sendMessage")
        self.assertEqual(thanks["params"]["text"], "Thanks for 50 Stars!")
        self.control.send("/refund", 501)
        self.assertEqual(self.control.next_call("sendMessage")["params"]["text"], "Refunded.")
        self.control.send("/refund", 501)
        self.assertEqual(self.control.next_call("sendMessage")["params"]["text"], "Refund failed: Charge_already_refunded")
        ledger = self.control.request("GET", "/payments")
        self.assertEqual(ledger["balance"], 0)
        self.assertEqual([("source" in t, t["amount"]) for t in ledger["transactions"]], [(True, 50), (False, 50)])

    def test_2_a_refused_payment_shows_the_bots_message(self):
        message_id = self.buy("/buy_refused", 502)
        payment = self.control.pay(message_id, 502)
        self.assertEqual(payment["status"], "refused", payment)
        self.assertEqual(payment["error_message"], "Out of coffee, sorry!")
        self.assertNotIn("successful_payment", payment)

    def test_3_an_unanswered_pre_checkout_query_times_out(self):
        message_id = self.buy("/buy_slow", 503)
        payment = self.control.pay(message_id, 503)
        self.assertEqual(payment["status"], "timeout", payment)
        self.assertIn("did not answer the pre-checkout query", payment["error_message"])

    # PTB 13 shows Telegram's error without "Bad Request: " and capitalized: CHARGE_NOT_FOUND reads Charge_not_found
    def test_4_refunding_an_unknown_charge(self):
        self.control.send("/refund", 504)
        self.assertEqual(self.control.next_call("sendMessage")["params"]["text"], "Refund failed: Charge_not_found")


if __name__ == "__main__":
    unittest.main()

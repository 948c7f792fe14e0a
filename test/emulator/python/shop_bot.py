"""A Telegram Stars shop bot with python-telegram-bot 13 (long polling), for the emulator's payment tests.

    BOT_TOKEN=... BOT_API_ROOT=http://127.0.0.1:PORT python3 shop_bot.py

/buy sends a Stars invoice (payload "coffee"), /buy_refused one the bot refuses at pre-checkout ("refuse"),
/buy_slow one it never answers ("slow"); a successful payment is thanked; /refund refunds the user's last
payment (refundStarPayment through Bot._post: PTB 13 predates Stars) and says how it went.
"""
import logging
import os

from telegram import LabeledPrice
from telegram.error import TelegramError
from telegram.ext import CommandHandler, Filters, MessageHandler, PreCheckoutQueryHandler, Updater

log = logging.getLogger("shop_bot")
charges = {}  # user id -> last telegram_payment_charge_id


def invoice(payload):
    def send(update, context):
        context.bot.send_invoice(update.effective_chat.id, "Coffee", "A cup of coffee", payload, "", "XTR",
                                 [LabeledPrice("Coffee", 50)])
    return send


def pre_checkout(update, context):
    query = update.pre_checkout_query
    if query.invoice_payload == "refuse":
        query.answer(ok=False, error_message="Out of coffee, sorry!")
    elif query.invoice_payload != "slow":
        query.answer(ok=True)


def paid(update, context):
    payment = update.message.successful_payment
    charges[update.effective_user.id] = payment.telegram_payment_charge_id
    update.message.reply_text(f"Thanks for {payment.total_amount} Stars!")


def refund(update, context):
    user_id = update.effective_user.id
    try:
        context.bot._post("refundStarPayment", {"user_id": user_id, "telegram_payment_charge_id": charges.get(user_id, "none")})
        update.message.reply_text("Refunded.")
    except TelegramError as err:
        update.message.reply_text(f"Refund failed: {err.message}")


def main():
    logging.basicConfig(level=logging.WARNING)
    api_root = os.environ["BOT_API_ROOT"].rstrip("/")
    updater = Updater(token=os.environ["BOT_TOKEN"], base_url=f"{api_root}/bot", use_context=True)
    dispatcher = updater.dispatcher
    dispatcher.add_handler(CommandHandler("buy", invoice("coffee")))
    dispatcher.add_handler(CommandHandler("buy_refused", invoice("refuse")))
    dispatcher.add_handler(CommandHandler("buy_slow", invoice("slow")))
    dispatcher.add_handler(CommandHandler("refund", refund))
    dispatcher.add_handler(PreCheckoutQueryHandler(pre_checkout))
    dispatcher.add_handler(MessageHandler(Filters.successful_payment, paid))
    updater.start_polling(timeout=2)
    updater.idle()


if __name__ == "__main__":
    main()

"""An echo bot with python-telegram-bot 13 (long polling), runnable against Telegram or the bot emulator.

    BOT_TOKEN=... BOT_API_ROOT=http://127.0.0.1:8081 python3 echo_bot.py

/start greets the user, /ask shows two inline buttons (a press is answered and edits the question), any other
text is echoed back. BOT_API_ROOT defaults to https://api.telegram.org.
"""
import logging
import os

from telegram import InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import TelegramError
from telegram.ext import CallbackQueryHandler, CommandHandler, Filters, MessageHandler, Updater

log = logging.getLogger("echo_bot")


def start(update, context):
    update.message.reply_text(f"Hi {update.effective_user.first_name}! Send me anything and I echo it.")


def ask(update, context):
    buttons = [[InlineKeyboardButton("Yes", callback_data="like:yes"), InlineKeyboardButton("No", callback_data="like:no")]]
    update.message.reply_text("Do you like it?", reply_markup=InlineKeyboardMarkup(buttons))


def answer(update, context):
    query = update.callback_query
    query.answer("Thanks!")
    query.edit_message_text("You like it." if query.data == "like:yes" else "Maybe next time.")


def echo(update, context):
    update.message.reply_text(update.message.text)


def on_error(update, context):
    # A failed send (the user blocked the bot, a flood limit…) must not stop the bot: log it and go on.
    if isinstance(context.error, TelegramError):
        log.warning("Telegram answered an error: %s", context.error)
    else:
        log.error("handler failed", exc_info=context.error)


def build(token, api_root):
    updater = Updater(token=token, base_url=f"{api_root.rstrip('/')}/bot", use_context=True)
    dispatcher = updater.dispatcher
    dispatcher.add_handler(CommandHandler("start", start))
    dispatcher.add_handler(CommandHandler("ask", ask))
    dispatcher.add_handler(CallbackQueryHandler(answer))
    dispatcher.add_handler(MessageHandler(Filters.text & ~Filters.command, echo))
    dispatcher.add_error_handler(on_error)
    return updater


def main():
    logging.basicConfig(level=logging.INFO, format="%(name)s %(levelname)s %(message)s")
    logging.getLogger("telegram").setLevel(logging.WARNING)
    updater = build(os.environ["BOT_TOKEN"], os.environ.get("BOT_API_ROOT", "https://api.telegram.org"))
    updater.start_polling(timeout=2)  # long polling: getUpdates waits up to 2 s for updates
    log.info("polling")
    updater.idle()  # until SIGINT / SIGTERM


if __name__ == "__main__":
    main()

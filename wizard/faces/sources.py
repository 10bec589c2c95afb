"""Where a platform's credentials come from, and how a user finds their own ID: words every face shows on
the platform's own screen (TUI, plain prompts), so a new user is never left with a bare variable name.

The commands named are Hermes's own: `hermes whatsapp` pairs WhatsApp by QR and writes `creds.json`
(Hermes 0.18 and 0.19: hermes_cli/main.py); Weixin's QR login runs inside `hermes gateway setup`
(hermes_cli/gateway.py `_setup_weixin` > `gateway.platforms.weixin.qr_login`, in 0.18.2 and 0.19.0).

Contract: plain text, no markup; `credentials_from(name)` and `own_id_help(name)` always return a sentence.
"""

from __future__ import annotations

CREDENTIALS_FROM = {
    "telegram": "Create a bot with @BotFather in Telegram (/newbot); it replies with the token "
                "(123456789:AA…).",
    "whatsapp": "Nothing to type: WhatsApp is paired by scanning a QR code with your phone. Run `hermes whatsapp` "
                "(it needs Node.js), choose the mode, scan the code; it writes creds.json into the home.",
    "weixin": "Weixin logs in by QR code: run `hermes gateway setup`, choose Weixin and scan the code with "
              "WeChat; Hermes then saves WEIXIN_ACCOUNT_ID and WEIXIN_TOKEN itself. Type them here only to "
              "copy them from another machine.",
    "discord": "Discord Developer Portal > your application > Bot > Reset Token; enable the Message Content "
               "intent there too.",
    "slack": "api.slack.com/apps > your app: the Bot User OAuth Token (xoxb-…) and, under Socket Mode, an "
             "app-level token (xapp-…).",
    "signal": "Signal needs a signal-cli REST service you run; SIGNAL_HTTP_URL is its address and "
              "SIGNAL_ACCOUNT the number registered there.",
    "matrix": "Your homeserver's URL and an access token of the bot's account (Element: Settings > Help & "
              "About > Access Token).",
    "mattermost": "Your server's URL and a bot account's access token (System Console > Bot Accounts).",
    "email": "The mailbox's IMAP and SMTP servers and its password (an app password where the provider "
             "requires one).",
    "sms": "The Twilio console: Account SID, Auth Token and the phone number the bot uses.",
    "homeassistant": "Home Assistant > your profile > Long-lived access tokens > Create token.",
    "feishu": "The Feishu / Lark open platform (open.feishu.cn or open.larksuite.com) > your app: App ID and "
              "App Secret.",
    "dingtalk": "The DingTalk open platform (open.dingtalk.com) > your app: Client ID and Client Secret.",
    "wecom": "The WeCom admin console > your AI bot: its Bot ID and Secret.",
    "qqbot": "The QQ open platform (q.qq.com) > your bot: App ID and App Secret.",
}
OWN_ID_HELP = {
    "telegram": "Telegram allowlists take numeric user IDs, never @usernames: message @userinfobot to get yours.",
    "whatsapp": "WhatsApp allowlists take phone numbers with the country code, digits only (15551234567).",
    "discord": "Discord: Settings > Advanced > Developer Mode, then right-click your name > Copy User ID.",
    "slack": "Slack: your profile > ... > Copy member ID (U0123ABCD).",
    "signal": "Signal allowlists take numbers in E.164 form (+15551234567) or Signal UUIDs.",
    "matrix": "Matrix allowlists take full user IDs such as @alice:example.org.",
    "weixin": "Weixin IDs appear in the gateway's log the first time someone writes (pairing shows them too).",
}
FALLBACK_FROM = "`hermes gateway setup` walks through this platform's credentials and names where each comes from."
FALLBACK_ID = "The gateway's log names each sender's ID the first time they write; pairing shows it too."


def credentials_from(name: str) -> str:
    return CREDENTIALS_FROM.get(name, FALLBACK_FROM)


def own_id_help(name: str) -> str:
    return OWN_ID_HELP.get(name, FALLBACK_ID)

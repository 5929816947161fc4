"""Notifications: each new day's digest sent to chat channels and e-mail, once per day and channel.

``config`` (the channels), ``compose`` (a day as a service-neutral ``message``), one formatter per
service fitted to its limits (``slack``, ``feishu``, ``markdown_bots`` for DingTalk and WeCom,
``discord``, ``teams``, ``webhook``, ``email_message``) with untrusted text made inert (``inert``),
``signing``, the senders (``http_sender``, the only user of httpx; ``smtp_sender``) and ``run``,
which sends and records each delivery in the store's ledger (``store.notification_ledger``).
"""

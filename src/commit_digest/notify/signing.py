"""The signatures the services check, each exactly as its documentation gives it.

- Feishu/Lark custom bot with a signing secret: ``timestamp`` (seconds) and ``sign`` in the JSON
  body, ``sign = base64(HMAC-SHA256(key=f"{timestamp}\\n{secret}", message=b""))``.
- DingTalk robot with a signing secret: ``timestamp`` (milliseconds) and ``sign`` in the query,
  ``sign = base64(HMAC-SHA256(key=secret, message=f"{timestamp}\\n{secret}"))``, URL-encoded (the
  HTTP client encodes query values once, as DingTalk decodes them).
- The generic webhook with a secret: ``X-Commit-Digest-Timestamp`` (seconds) and
  ``X-Commit-Digest-Signature: sha256=<hex HMAC-SHA256(key=secret, message=f"{timestamp}." + body)>``,
  so the receiver can refuse a replayed or forged day.
"""

from __future__ import annotations

import base64
import hashlib
import hmac


def feishu_sign(secret: str, timestamp: int) -> str:
    key = f"{timestamp}\n{secret}".encode()
    return base64.b64encode(hmac.new(key, b"", hashlib.sha256).digest()).decode("ascii")


def dingtalk_sign(secret: str, timestamp_ms: int) -> str:
    message = f"{timestamp_ms}\n{secret}".encode()
    return base64.b64encode(hmac.new(secret.encode(), message, hashlib.sha256).digest()).decode("ascii")


def webhook_signature(secret: str, timestamp: int, body: bytes) -> str:
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"sha256={digest}"

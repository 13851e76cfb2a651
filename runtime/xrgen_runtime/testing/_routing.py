"""Destination names and subscription patterns of each protocol, as its servers check them.

Every function raises ``ValueError`` for a name or pattern the real server (or client
library) would refuse, so a test fails where production would.
"""

from __future__ import annotations

import re
from collections.abc import Callable

#: a compiled subscription: destination -> whether it matches
Matcher = Callable[[str], bool]

# ------------------------------------------------------------------------------------ Kafka

_KAFKA_TOPIC = re.compile(r"[A-Za-z0-9._\-]{1,249}")


def kafka_topic(topic: str) -> str:
    """A legal Kafka topic name: 1-249 of ``[A-Za-z0-9._-]``, not ``.`` or ``..``."""
    if not _KAFKA_TOPIC.fullmatch(topic) or topic in (".", ".."):
        raise ValueError(
            f"illegal Kafka topic name {topic!r}: 1-249 characters of [A-Za-z0-9._-]"
        )
    return topic


def kafka_matcher(pattern: str) -> Matcher:
    """A topic name, or a regular expression when it starts with ``^`` (librdkafka)."""
    if pattern.startswith("^"):
        regex = re.compile(pattern)
        return lambda topic: regex.match(topic) is not None
    name = kafka_topic(pattern)
    return lambda topic: topic == name


# ------------------------------------------------------------------------------------- MQTT


def mqtt_topic(topic: str) -> str:
    """A legal MQTT topic name: not empty, no wildcard, no NUL, at most 65535 bytes."""
    if not topic or "+" in topic or "#" in topic or "\0" in topic:
        raise ValueError(
            f"illegal MQTT topic name {topic!r}: not empty, without '+', '#' and NUL"
        )
    if len(topic.encode()) > 65535:
        raise ValueError("illegal MQTT topic name: longer than 65535 bytes")
    return topic


def mqtt_filter(pattern: str) -> tuple[str, str | None]:
    """``(topic filter, share name)``: ``$share/<name>/<filter>`` is a shared subscription.

    A wildcard must be a whole level; ``#`` only the last one (MQTT 5.0 4.7.1, 4.8.2).
    """
    share: str | None = None
    text = pattern
    if pattern.startswith("$share/"):
        _, share, text = (pattern.split("/", 2) + ["", ""])[:3]
        if not share or "+" in share or "#" in share or not text:
            raise ValueError(f"illegal MQTT shared subscription {pattern!r}")
    if not text or "\0" in text:
        raise ValueError(f"illegal MQTT topic filter {pattern!r}")
    levels = text.split("/")
    for i, level in enumerate(levels):
        if ("+" in level or "#" in level) and level not in ("+", "#"):
            raise ValueError(
                f"illegal MQTT topic filter {pattern!r}: a wildcard must be a whole level"
            )
        if level == "#" and i != len(levels) - 1:
            raise ValueError(
                f"illegal MQTT topic filter {pattern!r}: '#' must be the last level"
            )
    return text, share


def mqtt_matches(topic_filter: str, topic: str) -> bool:
    """Whether ``topic`` matches ``topic_filter`` (``+`` one level, ``#`` the rest).

    ``#`` also matches its parent level (``a/#`` matches ``a``); topics starting with ``$``
    are not matched by a filter starting with a wildcard (MQTT 5.0 4.7.2).
    """
    if topic.startswith("$") and topic_filter[:1] in ("+", "#"):
        return False
    want = topic_filter.split("/")
    have = topic.split("/")
    for i, level in enumerate(want):
        if level == "#":
            return True
        if i >= len(have):
            return False
        if level != "+" and level != have[i]:
            return False
    return len(want) == len(have)


# ------------------------------------------------------------------------------------- NATS


def _nats_tokens(text: str, what: str) -> list[str]:
    tokens = text.split(".")
    if not text or any(not t or any(c.isspace() for c in t) for t in tokens):
        raise ValueError(
            f"illegal NATS {what} {text!r}: tokens separated by '.', "
            "none empty, no whitespace"
        )
    return tokens


def nats_subject(subject: str) -> str:
    """A legal NATS subject to publish to: non-empty tokens, no wildcard."""
    for token in _nats_tokens(subject, "subject"):
        if token in ("*", ">"):
            raise ValueError(f"cannot publish to the wildcard subject {subject!r}")
    return subject


def nats_matcher(pattern: str) -> Matcher:
    """A subject or wildcard subscription: ``*`` one token, ``>`` one or more (last only)."""
    want = _nats_tokens(pattern, "subscription subject")
    if ">" in want[:-1]:
        raise ValueError(
            f"illegal NATS subject {pattern!r}: '>' must be the last token"
        )

    def match(subject: str) -> bool:
        have = subject.split(".")
        for i, token in enumerate(want):
            if token == ">":
                return len(have) > i
            if i >= len(have) or (token != "*" and token != have[i]):
                return False
        return len(want) == len(have)

    return match


# ------------------------------------------------------------------------------------- HTTP

_SEGMENT_VAR = re.compile(r"\{[^{}/]+\}")


def http_path(target: str) -> str:
    """The path of a request target (the query removed); it must start with ``/``."""
    path = target.split("?", 1)[0]
    if not path.startswith("/"):
        raise ValueError(f"illegal HTTP request path {target!r}: must start with '/'")
    return path


def http_matcher(route: str) -> Matcher:
    """A path, where a ``{name}`` stands for one path segment (no ``/``)."""
    http_path(route)
    parts = _SEGMENT_VAR.split(route)
    regex = re.compile("[^/]+".join(re.escape(p) for p in parts))
    return lambda path: regex.fullmatch(path) is not None


# ----------------------------------------------------------------------------------- Pulsar


def pulsar_topic(topic: str) -> str:
    """The full name of a Pulsar topic (``persistent://tenant/namespace/topic``).

    A short name ``t`` is ``persistent://public/default/t`` and ``tenant/ns/t`` is
    ``persistent://tenant/ns/t``, as the Pulsar client resolves them.
    """
    scheme, sep, rest = topic.partition("://")
    if sep:
        if scheme not in ("persistent", "non-persistent") or len(rest.split("/")) != 3:
            raise ValueError(f"illegal Pulsar topic name {topic!r}")
        parts = rest.split("/")
    else:
        parts = topic.split("/")
        if len(parts) == 1:
            parts = ["public", "default", topic]
        elif len(parts) != 3:
            raise ValueError(
                f"illegal Pulsar topic name {topic!r}: 'topic', 'tenant/namespace/topic' "
                "or 'persistent://tenant/namespace/topic'"
            )
        scheme = "persistent"
    if not all(parts):
        raise ValueError(f"illegal Pulsar topic name {topic!r}: empty part")
    return f"{scheme}://{'/'.join(parts)}"


def pulsar_matcher(pattern: str | re.Pattern[str]) -> Matcher:
    """A topic name (normalized), or a compiled regex over full topic names."""
    if isinstance(pattern, re.Pattern):
        regex = pattern
        return lambda topic: regex.fullmatch(topic) is not None
    name = pulsar_topic(pattern)
    return lambda topic: topic == name


# --------------------------------------------------------------------------------- RocketMQ

_ROCKETMQ_TOPIC = re.compile(r"[%|A-Za-z0-9_\-]{1,127}")


def rocketmq_topic(topic: str) -> str:
    """A legal RocketMQ topic: 1-127 of ``[%|A-Za-z0-9_-]``."""
    if not _ROCKETMQ_TOPIC.fullmatch(topic):
        raise ValueError(
            f"illegal RocketMQ topic name {topic!r}: 1-127 characters of [%|A-Za-z0-9_-]"
        )
    return topic


def rocketmq_tags(expression: str) -> frozenset[str] | None:
    """A tag filter expression: ``*`` (every message: ``None``) or ``A || B``."""
    text = expression.strip()
    if text in ("", "*"):
        return None
    tags = frozenset(t.strip() for t in text.split("||"))
    if "" in tags:
        raise ValueError(f"illegal RocketMQ tag expression {expression!r}")
    return tags

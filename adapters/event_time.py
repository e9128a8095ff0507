"""Event time: ISO 8601 instants normalised to UTC text (``2026-10-24T11:00:00.000Z``) and milliseconds since 1970."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone

# A date, or a date-time with a zone (Z or ±HH:MM / ±HHMM); a time without a zone is no instant.
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)
_DATE_TIME = re.compile(
    r"(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|z|[+-]\d{2}:?\d{2})", re.ASCII
)
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


@dataclass(frozen=True, slots=True)
class Instant:
    text: str  # UTC, millisecond precision
    ms: int  # milliseconds since 1970-01-01T00:00:00Z


def normalise(value: str) -> Instant | None:
    """The instant ``value`` names, or None when it is not one ("yesterday", a time without a zone)."""
    value = value.strip()
    try:
        if _DATE.fullmatch(value):
            moment = datetime.fromisoformat(value).replace(tzinfo=timezone.utc)
        else:
            m = _DATE_TIME.fullmatch(value)
            if m is None:
                return None
            date, hh, mm, ss, frac, zone = m.groups()
            micros = (frac or "0")[:6].ljust(6, "0")
            zone = "+00:00" if zone in ("Z", "z") else zone if ":" in zone else zone[:3] + ":" + zone[3:]
            moment = datetime.fromisoformat(f"{date}T{hh}:{mm}:{ss or '00'}.{micros}{zone}")
    except ValueError:  # 2026-02-30, hour 25: shaped like an instant, but none
        return None
    utc = moment.astimezone(timezone.utc)
    ms = (utc - _EPOCH) // _MS
    return Instant(utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z", ms)


_MS = datetime(1970, 1, 1, 0, 0, 0, 1000, tzinfo=timezone.utc) - _EPOCH

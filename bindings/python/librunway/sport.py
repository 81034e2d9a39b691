"""The sport a recording's file names, and the session profile (activity) for it.

Read without decoding the whole file: a FIT file's records are walked to its session (else
sport or lap) message, a GPX or TCX file is parsed only up to its track's ``<type>`` or its
activity's ``Sport``. :mod:`librunway.batch` re-exports :func:`sniff_sport` and
:func:`activity_for`; :mod:`librunway.analysis` uses them with a library whose import writes no
report.
"""

from __future__ import annotations

import xml.parsers.expat
from typing import Any, Optional

#: FIT profile `sport` enum (Garmin FIT SDK, Profile.xlsx).
_FIT_SPORTS = (
    "generic", "running", "cycling", "transition", "fitness_equipment", "swimming", "basketball",
    "soccer", "tennis", "american_football", "training", "walking", "cross_country_skiing",
    "alpine_skiing", "snowboarding", "rowing", "mountaineering", "hiking", "multisport",
    "paddling", "flying", "e_biking", "motorcycling", "boating", "driving", "golf",
    "hang_gliding", "horseback_riding", "hunting", "fishing", "inline_skating", "rock_climbing",
    "sailing", "ice_skating", "sky_diving", "snowshoeing", "snowmobiling",
    "stand_up_paddleboarding", "surfing", "wakeboarding", "water_skiing", "kayaking", "rafting",
    "windsurfing", "kitesurfing", "tactical", "jumpmaster", "boxing", "floor_climbing",
    "baseball", None, None, None, "diving", None, None, "shooting", None, "winter_sport",
    "grinding", None, None, "hiit", "video_gaming", "racket", "wheelchair_push_walk",
    "wheelchair_push_run", "meditation", "para_sport", "disc_golf", "team_sport", "cricket",
    "rugby", "hockey", "lacrosse", "volleyball", "water_tubing", "wakesurfing", "water_sport",
    "archery")

#: FIT messages that carry the sport: global message number -> (field number, rank; lower wins).
_FIT_SPORT_FIELDS = {18: (5, 0),   # session.sport
                     12: (0, 1),   # sport.sport
                     19: (25, 2)}  # lap.sport


def _fit_sport(data: bytes) -> Optional[str]:
    """The sport of a FIT file's first session (else its sport or lap message),
    walking the records without decoding them; None if it names none or is
    not readable (the import then says why)."""
    n = len(data)
    if n < 12 or data[8:12] != b".FIT" or data[0] < 12:
        return None
    pos = data[0]
    end = min(n, pos + int.from_bytes(data[4:8], "little"))
    defs: dict[int, tuple[int, int, int]] = {}  # local type -> (record size, sport offset, rank)
    best: tuple[int, int] | None = None          # (rank, value)
    while pos < end:
        header = data[pos]
        pos += 1
        if header & 0x80:                        # compressed timestamp header: a data record
            local = (header >> 5) & 0x03
        elif header & 0x40:                      # definition record
            if pos + 5 > end:
                break
            big_endian = data[pos + 1] == 1
            number = int.from_bytes(data[pos + 2:pos + 4], "big" if big_endian else "little")
            nfields = data[pos + 4]
            pos += 5
            want = _FIT_SPORT_FIELDS.get(number)
            size, offset = 0, -1
            for _ in range(nfields):
                if pos + 3 > end:
                    return _fit_sport_name(best)
                if want and data[pos] == want[0] and data[pos + 1] >= 1:
                    offset = size
                size += data[pos + 1]
                pos += 3
            if header & 0x20:                    # developer fields
                if pos >= end:
                    break
                ndev = data[pos]
                pos += 1
                for _ in range(ndev):
                    if pos + 3 > end:
                        return _fit_sport_name(best)
                    size += data[pos + 1]
                    pos += 3
            defs[header & 0x0F] = (size, offset, want[1] if want and offset >= 0 else -1)
            continue
        else:                                    # normal header: a data record
            local = header & 0x0F
        d = defs.get(local)
        if d is None:
            break
        size, offset, rank = d
        if rank >= 0 and pos + offset < end:
            value = data[pos + offset]
            if value != 0xFF and (best is None or rank < best[0]):
                best = (rank, value)
                if rank == 0:
                    break
        pos += size
    return _fit_sport_name(best)


def _fit_sport_name(best: tuple[int, int] | None) -> Optional[str]:
    if best is None:
        return None
    value = best[1]
    name = _FIT_SPORTS[value] if value < len(_FIT_SPORTS) else None
    return name or f"fit sport {value}"


class _Found(Exception):
    def __init__(self, value: Optional[str]) -> None:
        super().__init__(value)
        self.value = value


def _xml_sport(data: bytes, fmt: str) -> Optional[str]:
    """GPX: the first track's ``<type>``; TCX: the first activity's ``Sport``.
    Parses only up to there (expat; a DTD stops it: the import refuses those)."""
    parser = xml.parsers.expat.ParserCreate(namespace_separator="}")
    parser.SetParamEntityParsing(xml.parsers.expat.XML_PARAM_ENTITY_PARSING_NEVER)
    stack: list[str] = []
    text: list[str] = []
    collecting = False

    def local(name: str) -> str:
        return name.rsplit("}", 1)[-1]

    def doctype(*_: Any) -> None:
        raise _Found(None)

    def start(name: str, attrs: dict) -> None:
        nonlocal collecting
        tag = local(name)
        if fmt == "tcx":
            if tag == "Activity":
                sport = next((v for k, v in attrs.items() if local(k) == "Sport"), None)
                raise _Found(sport)
            if tag in ("Lap", "Trackpoint"):
                raise _Found(None)
        else:
            if tag == "type" and stack and stack[-1] == "trk":
                collecting = True
            elif tag in ("trkseg", "trkpt"):
                raise _Found(None)
        stack.append(tag)

    def end(name: str) -> None:
        tag = local(name)
        if stack:
            stack.pop()
        if collecting and tag == "type":
            raise _Found("".join(text))
        if tag == "trk":
            raise _Found(None)

    def chars(s: str) -> None:
        if collecting:
            text.append(s)

    parser.StartDoctypeDeclHandler = doctype
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = chars
    try:
        for i in range(0, len(data), 1 << 16):
            parser.Parse(data[i:i + (1 << 16)], False)
        parser.Parse(b"", True)
    except _Found as found:
        return found.value
    except xml.parsers.expat.ExpatError:
        return None
    return None


def sniff_sport(data: bytes, fmt: str) -> Optional[str]:
    """The sport a recording's file names, lower case: FIT ``sport`` of the
    session (e.g. ``"cycling"``), TCX ``Activity Sport`` (``"running"``,
    ``"biking"``, ``"other"``), GPX ``trk/type`` (free text, e.g.
    ``"running"``); ``None`` when it names none or cannot be read."""
    sport = _fit_sport(data) if fmt == "fit" else _xml_sport(data, fmt)
    sport = sport.strip().lower() if sport else None
    return sport or None


_RIDE_WORDS = ("cycl", "bik", "ride")
_WALK_WORDS = ("walk", "hik", "mountaineer", "snowshoe", "trek")


def activity_for(sport: Optional[str]) -> str:
    """The session profile for a sport: ``"ride"`` (cycling, biking, e-biking,
    ...), ``"walk"`` (walking, hiking, mountaineering, snowshoeing) or
    ``"run"`` (running and everything else, including no sport)."""
    s = (sport or "").lower()
    if any(w in s for w in _RIDE_WORDS):
        return "ride"
    if any(w in s for w in _WALK_WORDS):
        return "walk"
    return "run"

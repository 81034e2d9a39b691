"""A flight's route as packed numbers: :class:`RoutePoints`.

:func:`librunway.analyse` (through ``runway_analyse_route``) gets the route from the library as
one array of C structs (``runway_route_point``: ``lat``, ``lon``, ``alt``, ``t`` as doubles)
instead of JSON, and keeps it that way: a point becomes a Python list only when it is read. For a
long recording that saves printing, parsing and building hundreds of thousands of lists up front.
"""

from __future__ import annotations

import math
import operator
from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Optional, Union, overload

__all__ = ["RoutePoints", "POINT_BYTES"]

#: Bytes per point: ``struct runway_route_point`` (four doubles, native byte order).
POINT_BYTES = 32

Point = list  # [lat, lon, alt | None, t]


class RoutePoints(Sequence):
    """The route of a flight: a read-only sequence of ``[lat, lon, alt, t]`` lists, the same
    values as the summary's JSON ``"route"`` (``alt`` ``None`` when unknown), each list made
    when the point is read.

    It compares equal to the list of lists it stands for (``flight.route == [[52.0, 4.0, 3.0,
    1700000000.0], ...]``); ``list(route)`` or :meth:`tolist` gives that list, e.g. to
    serialise it with ``json``. :attr:`array` is the points as a read-only ``(n, 4)``
    ``memoryview`` of doubles (``alt`` NaN when unknown), which ``numpy.asarray`` takes without
    a copy. Pickles (and copies) as its bytes.
    """

    __slots__ = ("_data", "_v", "_n")

    def __init__(self, data: Union[bytes, bytearray, memoryview] = b"") -> None:
        """``data``: the packed points, ``POINT_BYTES`` bytes each (native doubles ``lat``,
        ``lon``, ``alt``, ``t``, as ``runway_analyse_route`` writes them)."""
        raw = bytes(data)
        if len(raw) % POINT_BYTES:
            raise ValueError(f"route data of {len(raw)} bytes is not a whole number of "
                             f"{POINT_BYTES}-byte points")
        self._data = raw
        self._v = memoryview(raw).cast("d")
        self._n = len(raw) // POINT_BYTES

    @classmethod
    def from_points(cls, points: Iterable[Sequence[Any]]) -> "RoutePoints":
        """From ``[lat, lon, alt, t]`` sequences (the JSON route; ``alt`` ``None`` when
        unknown)."""
        values = array("d")
        for p in points:
            lat, lon, alt, t = p[0], p[1], p[2], p[3]
            values.extend((lat, lon, math.nan if alt is None else alt, t))
        return cls(values.tobytes())

    def __len__(self) -> int:
        return self._n

    def _point(self, i: int) -> Point:
        v, k = self._v, 4 * i
        alt = v[k + 2]
        return [v[k], v[k + 1], None if alt != alt else alt, v[k + 3]]

    @overload
    def __getitem__(self, i: int) -> Point: ...
    @overload
    def __getitem__(self, i: slice) -> list[Point]: ...

    def __getitem__(self, i: Union[int, slice]) -> Union[Point, list[Point]]:
        if isinstance(i, slice):
            return [self._point(k) for k in range(*i.indices(self._n))]
        k = operator.index(i)
        if k < 0:
            k += self._n
        if not 0 <= k < self._n:
            raise IndexError("route point index out of range")
        return self._point(k)

    def __iter__(self) -> Iterator[Point]:
        it = iter(self._v)
        for lat, lon, alt, t in zip(it, it, it, it):
            yield [lat, lon, None if alt != alt else alt, t]

    def tolist(self) -> list[Point]:
        """The points as a list of ``[lat, lon, alt, t]`` lists (what the JSON route gives)."""
        return list(self)

    @property
    def array(self) -> memoryview:
        """The points as a read-only ``(len, 4)`` memoryview of doubles: columns ``lat``,
        ``lon``, ``alt`` (NaN when unknown), ``t``. Empty route: a 1-D view of length 0."""
        if self._n == 0:
            return memoryview(self._data).cast("d")
        return memoryview(self._data).cast("d", (self._n, 4))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RoutePoints):
            return self._n == other._n and self.tolist() == other.tolist()
        if isinstance(other, list):
            return len(other) == self._n and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # a sequence compared by value, as a list

    def __reduce__(self) -> tuple[Any, tuple[bytes]]:
        return (RoutePoints, (self._data,))

    def __repr__(self) -> str:
        first: Optional[Point] = self._point(0) if self._n else None
        return f"<RoutePoints: {self._n} points{', first ' + repr(first) if first else ''}>"


"""Filling cards (and the sheet's columns) with flowables, in order: both are frames of a fixed
height that content flows through.

The rules, in order:

- Items that keep together (a heading and its first block, a roll and its chances, a short
  sheet entry) go whole onto the next frame when they do not fit on this one but fit on an empty
  one.  Only what is taller than a whole frame is broken up, starting where it is (its first two
  items kept together): moving it to a fresh frame would leave this one empty for nothing.
- Running text (a note, an erratum) is moved whole to the next frame rather than split, unless
  that would leave this frame mostly empty (`MOSTLY_EMPTY`): then it is split after a sentence.
  Text taller than a whole frame is split after a sentence, or between lines if one sentence is
  taller than a frame.
- A table is split between rows, its header row repeated, never inside a row unless the row is
  taller than a whole frame; other paragraphs between lines.
- An item that starts a frame first repeats what it is under (`Item.resume`): "Errata (cont.)",
  the condition of an indented line, the roll of a chance table, on the sheet the category and
  the entry it continues.
- On cards, a last face left nearly empty (an erratum alone) takes whole items from the face
  before it until the two are evenly filled (`balance`).

Everything is measured on a throwaway canvas: the same items give the same frames every time.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

from reportlab.platypus import Flowable

from dsl.cards.canvas import measuring_canvas
from dsl.cards.flow import GridTable, Item, Prose

MOSTLY_EMPTY = 0.5
"""Moving running text to the next card must not leave more than this share of a card empty."""

_FUZZ = 0.01


@dataclass(frozen=True, slots=True)
class Placed:
    flowable: Flowable
    height: float
    space: float  # above it, from the item before it in the frame


class Shrunk(Flowable):  # type: ignore[misc]
    """A flowable drawn smaller, the largest it can be and still fit `height`: the last resort
    for something that neither fits a frame nor splits (a table whose header row alone is
    taller than a card).  Laid out at a wider measure as it shrinks, text takes fewer lines."""

    def __init__(self, inner: Flowable, width: float, height: float) -> None:
        super().__init__()
        self.inner = inner
        self.measure = measuring_canvas()
        low, high = 0.0, 1.0
        for _ in range(24):  # bisect the scale: the drawn height shrinks with it
            middle = (low + high) / 2
            if middle > 0 and self._height(middle, width) <= height:
                low = middle
            else:
                high = middle
        self.scale = max(low, 1e-3)
        self.inner_width = width / self.scale

    def _height(self, scale: float, width: float) -> float:
        _, height = self.inner.wrapOn(self.measure, width / scale, 1e9)
        return float(height) * scale

    def wrap(self, availWidth: float, availHeight: float) -> tuple[float, float]:
        width, height = self.inner.wrapOn(self.measure, self.inner_width, 1e9)
        self.width, self.height = width * self.scale, height * self.scale
        return self.width, self.height

    def draw(self) -> None:
        canvas = self.canv
        canvas.saveState()
        canvas.scale(self.scale, self.scale)
        self.inner.wrapOn(canvas, self.inner_width, 1e9)
        self.inner.drawOn(canvas, 0, 0)
        canvas.restoreState()

    def getSpaceBefore(self) -> float:
        return float(self.inner.getSpaceBefore()) * self.scale

    def getSpaceAfter(self) -> float:
        return float(self.inner.getSpaceAfter()) * self.scale


def paginate(
    items: Iterable[Item],
    rooms: Sequence[float],
    width: float,
    *,
    space_after: bool = False,
    balance: bool = False,
    most: int | None = None,
) -> list[list[Placed]]:
    """The frames that `items` fill, in order, each `width` wide: the first `rooms[0]` high, the
    second `rooms[1]`, and so on, the last of `rooms` for every frame after it.

    `space_after`: the space between two items is the larger of the first's space after and the
    second's space before (as in reportlab's frames); otherwise only the space before counts.
    `balance`: a last frame left nearly empty (less than `BALANCE` of it used) takes whole items
    from the one before it, until the two are as evenly filled as they can be.
    `most`: a trial that only asks whether the items take more than `most` frames stops when they
    do (the frames after the first `most` are left unfilled).  `items` are taken as they are
    needed: a trial given a generator makes only the items it places."""
    paginator = _Paginator(rooms, width, space_after, record=balance, most=most)
    frames = paginator.run(items)
    if balance and len(frames) > 1:
        frames = paginator.balanced()
    return frames


BALANCE = 0.4


def used(frame: list[Placed]) -> float:
    """The height a frame's content takes."""
    return sum(p.height + p.space for p in frame)


class _Infeasible(Exception):
    """A trial layout of `_Paginator.balanced` that cannot work."""


class _Paginator:
    def __init__(
        self,
        rooms: Sequence[float],
        width: float,
        space_after: bool,
        cap: float | None = None,
        record: bool = False,
        most: int | None = None,
    ) -> None:
        self.rooms = tuple(rooms)
        self.width = width
        self.space_after = space_after
        self.cap = cap  # the first frame takes only whole items up to this height (balancing)
        self.canvas = measuring_canvas()
        self.frames: list[list[Placed]] = [[]]
        self.room = self.height(0) if cap is None else cap  # what is left on the current frame
        self.after = 0.0  # the space after the last item placed
        self.resumed: set[Item] = set()  # the items repeated at the top of the current frame
        self.queue: deque[Item] = deque()
        self.source: Iterator[Item] | None = None  # items not yet taken into the queue
        self.record = record  # whether to keep `starts`, for balancing
        self.starts: list[tuple[list[Item], set[Item]]] = []  # what is left as each frame starts
        self.most = most  # stop once there are more frames than this

    def balanced(self) -> list[list[Placed]]:
        """The frames, with the last two filled as evenly as whole items allow."""
        frames = self.frames
        last = len(frames) - 1
        if used(frames[last]) >= BALANCE * self.height(last):
            return frames
        start, resumed = self.starts[last - 1]
        best = frames[last - 1 :]
        cap = used(best[0]) - 1.0
        while cap > 0:
            trial = _Paginator((self.height(last - 1), self.height(last)), self.width, self.space_after, cap)
            trial.resumed = set(resumed)
            try:
                pair = trial.run(start)
            except _Infeasible:
                break
            if len(pair) != 2:
                break
            if max(used(pair[0]), used(pair[1])) < max(used(best[0]), used(best[1])) - _FUZZ:
                best = pair
            if used(pair[1]) >= used(pair[0]):
                break
            cap = used(pair[0]) - 1.0  # one item fewer at least
        return frames[: last - 1] + best

    def height(self, index: int) -> float:
        """How high frame `index` is."""
        return self.rooms[min(index, len(self.rooms) - 1)]

    @property
    def capped(self) -> bool:
        return self.cap is not None and len(self.frames) == 1

    def run(self, items: Iterable[Item]) -> list[list[Placed]]:
        queue = self.queue
        if self.record or isinstance(items, list):
            queue.extend(items)
        else:
            self.source = iter(items)
        if self.record:
            self.starts.append((list(queue), set(self.resumed)))
        while self.more():
            if self.most is not None and len(self.frames) > self.most:
                break
            started = bool(self.frames[-1])
            if started and queue[0].need > self.room:
                self.new_frame()
                continue
            group = [queue.popleft()]
            while group[-1].keep and self.more():
                group.append(queue.popleft())
            result = self.fill(group, started)
            if result is None:
                if self.capped and not started:
                    raise _Infeasible
                if started and len(group) > 2 and not self.capped and self._taller_than_a_frame(group):
                    # A group that fits on no frame breaks anyway: it starts here, on what is
                    # left of this frame, rather than leave it empty (its first two items kept
                    # together: a group of two is not broken again, and goes on as any other).
                    queue.extendleft(reversed([group[0], *(replace(item, keep=False) for item in group[1:])]))
                elif started:
                    queue.extendleft(reversed(group))
                    self.new_frame()
                elif any(item in self.resumed for item in group):
                    # What it continues and the group itself do not fit together: the group
                    # gets the whole frame.
                    queue.extendleft(reversed([item for item in group if item not in self.resumed]))
                    self.resumed = set()
                elif len(group) > 1:
                    # Taller than a whole frame: let the group break between any of its items.
                    queue.extendleft(reversed([replace(item, keep=False) for item in group]))
                else:
                    queue.extendleft(reversed(self.forced(group[0])))
                continue
            placed, rest = result
            self.frames[-1].extend(placed)
            self.room -= sum(p.height + p.space for p in placed)
            self.after = placed[-1].flowable.getSpaceAfter() if self.space_after else 0.0
            if rest:
                queue.extendleft(reversed(rest))
                self.new_frame()
        return self.frames

    def _taller_than_a_frame(self, group: list[Item]) -> bool:
        """Whether `group` takes more than the whole of the next frame."""
        room = self.height(len(self.frames))
        total = 0.0
        for index, item in enumerate(group):
            flowable = item.flowable
            total += flowable.wrapOn(self.canvas, self.width, room)[1] + (flowable.getSpaceBefore() if index else 0.0)
            if total > room + _FUZZ:
                return True
        return False

    def forced(self, item: Item) -> list[Item]:
        """An item that fits on no frame, even alone on an empty one: split where it would
        rather not be split (a roll's chances, a heading), else drawn smaller until it fits.
        Whatever a rulebook holds, a card is never refused."""
        flowable = item.flowable
        if item.split is False or isinstance(flowable, Prose):
            parts = flowable.splitOn(self.canvas, self.width, self.room)
            if isinstance(flowable, Prose) and len(parts) < 2:
                parts = flowable.split_lines(self.width, self.room)
            if len(parts) >= 2 and parts[0].wrapOn(self.canvas, self.width, self.room)[1] <= self.room + _FUZZ:
                return [replace(item, flowable=part, split=True, keep=False, resume=()) for part in parts]
        return [replace(item, flowable=Shrunk(flowable, self.width, self.room), split=False, keep=False)]

    def more(self) -> bool:
        """Whether there are items left, taking the next from the source when the queue is empty."""
        if not self.queue and self.source is not None:
            item = next(self.source, None)
            if item is None:
                self.source = None
                return False
            self.queue.append(item)
        return bool(self.queue)

    def new_frame(self) -> None:
        self.frames.append([])
        self.room = self.height(len(self.frames) - 1)
        self.after = 0.0
        self.resumed = set()
        if self.more():
            resume = self.queue[0].resume
            self.resumed = set(resume)
            self.queue.extendleft(reversed(resume))
        if self.record:
            self.starts.append((list(self.queue), set(self.resumed)))

    def fill(self, group: list[Item], started: bool) -> tuple[list[Placed], list[Item]] | None:
        """Lay a group into the room left on the frame: what goes here and what continues on the
        next frame, or None when the group should start on the next frame."""
        placed: list[Placed] = []
        left = self.room
        after = self.after
        full = self.height(len(self.frames) - 1)
        for index, item in enumerate(group):
            flowable = item.flowable
            space = max(flowable.getSpaceBefore(), after) if (started or placed) else 0.0
            _, height = flowable.wrapOn(self.canvas, self.width, max(left - space, 0))
            alone = not started and not placed and isinstance(flowable, Shrunk)  # as small as it gets
            if height + space <= left + _FUZZ or alone:
                placed.append(Placed(flowable, height, space))
                left -= height + space
                after = flowable.getSpaceAfter() if self.space_after else 0.0
                continue
            if not item.split or left - space <= 0 or self.capped:
                return None
            if item.whole and started:
                # Running text moves whole, unless this frame would be left mostly empty or the
                # text is taller than a whole frame anyway.
                filled = full - left
                if filled >= MOSTLY_EMPTY * full and height <= self.height(len(self.frames)) + _FUZZ:
                    return None
            if started and isinstance(flowable, GridTable) and flowable.splits_a_row(left - space):
                return None  # a table breaks between rows: the row goes to the next frame whole
            parts = flowable.splitOn(self.canvas, self.width, left - space)
            # Between lines: on an empty frame, or when one sentence is taller than a frame.
            if (
                len(parts) < 2
                and isinstance(flowable, Prose)
                and (not started or flowable.first_sentence_height(self.width) > self.height(len(self.frames)))
            ):
                parts = flowable.split_lines(self.width, left - space)
            if len(parts) < 2:
                return None
            _, height = parts[0].wrapOn(self.canvas, self.width, left - space)
            placed.append(Placed(parts[0], height, space))
            rest = [replace(item, flowable=part) for part in parts[1:]]
            return placed, rest + group[index + 1 :]
        return placed, []

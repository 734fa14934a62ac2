"""The bounds of a sweep and of a chart, apart so the command line can show them in its help
without loading the rest (a `rulecraft resolve` should not pay for balance analysis)."""

from __future__ import annotations

import os

DEFAULT_LIMIT = 200_000
"""The most situations a sweep resolves unless `--limit` (or `limit=`) raises it: about ten
seconds on one core of a laptop, a few on several.  Past it, a mistaken `--vary` (a range typed
0..1000 for 0..100) costs minutes before the designer sees a row; the bound says so at once."""

DEDUPLICATED = DEFAULT_LIMIT
"""The longest range of one `--vary` whose values are checked one by one against the values
given before it (`--vary x=0..10,5..20` sweeps 0 to 20 once each).  A range is otherwise kept
as a range, so its memory is the same whatever its length; one longer than this must not
overlap the others: writing it out would cost memory in proportion to a raised `--limit`."""

PARALLEL_FROM = 20_000
"""Products this large use worker processes: below it, starting them (loading the resolver in
each) costs more than it saves."""

CHUNKS_PER_JOB = 8
"""Each process gets about this many chunks: enough to balance uneven situations (some rules
resolve faster than others), few enough that gathering them costs nothing."""

CHUNK_MOST = 5_000
"""The most situations of one chunk: the rows a process sends back at once."""

IN_FLIGHT_PER_JOB = 2
"""Chunks handed to each process at a time: one it works on and one waiting, so none idles
while the table is written, and no more rows are held than these and the chunk being written,
whatever the size of the sweep."""

ORPHAN_CHECK = 1.0
"""Seconds between a worker process's checks that the sweep it works for is still there (one
killed outright cannot stop its workers)."""

ROW_GROUP = 50_000
"""The most rows of one row group of a Parquet file: the rows held at once while it is written."""

PROGRESS_FROM = 10_000
"""Sweeps this large show a progress bar on a terminal (`--progress` shows one always)."""

PROGRESS_EVERY = 10.0
"""Seconds between two lines of progress in a log (besides one at each tenth of the sweep)."""


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1

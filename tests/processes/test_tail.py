"""Output tails keep the newest (or first) bytes, stay bounded under a flood from a real child,
and never split a UTF-8 character."""

from __future__ import annotations

import subprocess
import sys

from oraculum.core.process_group import spawn_group
from oraculum.processes.tail import Tail, read_into, utf8_safe_slice


def test_the_buffer_keeps_the_newest_bytes_and_counts_all() -> None:
    tail = Tail(8)
    tail.append(b"0123456789")
    tail.append(b"ab")
    snap = tail.snapshot(100)
    assert snap.text == "456789ab" and snap.total_bytes == 12 and snap.omitted_bytes == 4


def test_a_cut_inside_a_character_skips_its_tail_bytes() -> None:
    tail = Tail(1024)
    tail.append("aé€😀".encode())  # 1 + 2 + 3 + 4 bytes
    for size in range(1, 11):
        snap = tail.snapshot(size)
        assert "\ufffd" not in snap.text
        assert "aé€😀".endswith(snap.text)
        assert snap.omitted_bytes + len(snap.text.encode()) == 10


def test_a_character_still_arriving_is_held_back_until_it_completes() -> None:
    tail = Tail(1024)
    euro = "€".encode()
    tail.append(b"x" + euro[:2])
    assert tail.snapshot(100).text == "x"
    tail.append(euro[2:])
    assert tail.snapshot(100).text == "x€"


def test_a_closed_stream_shows_its_broken_end() -> None:
    data, skipped, held = utf8_safe_slice(b"ok\xe2\x82", keep_end=True)
    assert (data, skipped, held) == (b"ok\xe2\x82", 0, 0)
    tail = Tail(16)
    tail.append(b"ok\xe2\x82")
    tail.close()
    assert tail.snapshot(16).text == "ok\ufffd"


# A child that floods its stdout with numbered lines, far more than any tail keeps.
FLOOD = (
    "import sys\nout = sys.stdout\nfor n in range(200_000):\n    out.write(f'line {n:06d}\\n')\n"
)
FLOOD_BYTES = 200_000 * len("line 000000\n")


def _flooded(tail: Tail) -> None:
    child = spawn_group([sys.executable, "-c", FLOOD], stdout=subprocess.PIPE)
    assert child.stdout is not None
    reader = read_into(child.stdout, tail)
    assert child.wait(60) == 0  # it never blocked on a full pipe
    reader.join(30)
    assert not reader.is_alive()


def test_a_flood_keeps_only_the_last_bytes_whole_lines_at_the_end() -> None:
    tail = Tail(1200)
    _flooded(tail)
    snap = tail.snapshot(1200)
    assert snap.total_bytes == FLOOD_BYTES
    assert len(snap.text.encode()) == 1200 and snap.omitted_bytes == FLOOD_BYTES - 1200
    assert snap.text.endswith("line 199999\n")
    assert snap.text.splitlines()[-100:] == [f"line {n:06d}" for n in range(199_900, 200_000)]
    assert len(tail._buffer) <= tail.capacity  # bounded while it ran, not only when read


def test_a_head_keeps_the_first_bytes_and_counts_the_rest() -> None:
    tail = Tail(1200, first=True)
    _flooded(tail)
    snap = tail.snapshot(1200)
    assert snap.text.startswith("line 000000\nline 000001\n")
    assert len(snap.text.encode()) == 1200 and snap.omitted_bytes == FLOOD_BYTES - 1200
    assert len(tail._buffer) <= tail.capacity


def test_a_head_cut_inside_a_character_drops_it_and_a_whole_stream_keeps_its_end() -> None:
    head = Tail(4, first=True)
    head.append("ab€".encode())  # 5 bytes: the euro sign is cut after its first byte
    head.close()
    snap = head.snapshot(4)
    assert (snap.text, snap.omitted_bytes, snap.total_bytes) == ("ab", 3, 5)
    whole = Tail(16, first=True)
    whole.append(b"ok\xe2\x82")  # the stream ended inside a character: shown, not hidden
    whole.close()
    assert whole.snapshot(16).text == "ok\ufffd"

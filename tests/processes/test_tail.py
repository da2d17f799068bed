"""Output tails keep the newest bytes and never split a UTF-8 character."""

from __future__ import annotations

from oraculum.processes.tail import Tail, utf8_safe_slice


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

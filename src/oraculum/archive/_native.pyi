# The optional C extension built from _native.c (see that file for the contracts).
OPEN_FLAGS: int

def open_stat(path: str, dir_fd: int, /) -> tuple[int, int, int] | None: ...
def pack_file(
    buffer: memoryview | bytearray, pos: int, fd: int, name: bytes, mode: int, size: int, /
) -> tuple[int, int]: ...

"""The archive's optional C extension, ``_native`` (``_native.c``), or None.

It holds the per-file hot path of a build (opening a member, packing a regular file), which on
trees of many small files is most of the Python work per file. pip builds it when the machine
has a C compiler; without one the install still succeeds and the callers use their pure-Python
twins (:func:`oraculum.archive.selection.open_stat_py`,
:func:`oraculum.archive.writer.pack_file_py`), which the tests hold to the same results byte
for byte.
"""

from __future__ import annotations

from types import ModuleType

native: ModuleType | None
try:
    from oraculum.archive import _native as native
except ImportError:  # built without a C compiler
    native = None

__all__ = ["native"]

"""The optional C extension; everything else about the package is in pyproject.toml.

``oraculum.archive._native`` (src/oraculum/archive/_native.c) is the archive's per-file hot
path. It is optional: without a C compiler the install goes on without it and the pure-Python
twins run (see oraculum.archive.native).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "oraculum.archive._native",
            sources=["src/oraculum/archive/_native.c"],
            optional=True,
            extra_compile_args=["-O2"],
        )
    ]
)

/* The archive's per-file hot path in C: opening a member and packing a regular file.

   Optional: oraculum.archive.fastpath holds the pure-Python twins of both functions, used when
   this module was not built, and the tests hold the two to the same results byte for byte.
   On a tree of 20,000 small files these two steps are most of the Python work per file.

   open_stat(path, dir_fd) -> (fd, size, mode) | None
       Open `path` (str, encoded as os.fsencode does) relative to `dir_fd` with the member
       flags (OPEN_FLAGS), fstat it, and return the descriptor, its size and its normalised mode
       (0o755 when anyone may execute it, else 0o644); None when it cannot be opened or is not
       a regular file (nothing stays open).

   pack_file(buffer, pos, fd, name, mode, size) -> (pos, left)
       Pack a regular file's 512-byte GNU tar header at `pos` of the writable `buffer`, then
       read its content from `fd` behind it until the file's `size` bytes are in or the buffer
       is full (a file that shrank is padded with zeros to `size`; one that grew is cut at it),
       then the zero padding to the next block when the whole file is in. Returns the new
       position and the content bytes still to read: 0 when done, else the caller reads the
       rest (the buffer is full, or a signal stopped the read and its handler returned).
       `pos` must be a multiple of 512 with a block's room behind it, and the buffer's length a
       multiple of 512. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BLOCK 512
#define ARCHIVE_MTIME 946684800LL
/* inputs.MEMBER_OPEN_FLAGS, exported as OPEN_FLAGS so a test holds the two equal. */
#define OPEN_FLAGS (O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)

/* An int argument, as PyLong_AsInt (Python 3.13) gives it. */
static int as_int(PyObject *value, int *out) {
    long wide = PyLong_AsLong(value);
    if (wide == -1 && PyErr_Occurred()) return -1;
    if (wide < INT_MIN || wide > INT_MAX) {
        PyErr_SetString(PyExc_OverflowError, "an int argument is out of range");
        return -1;
    }
    *out = (int)wide;
    return 0;
}

/* An octal field of `width` bytes: width-1 digits and a NUL (what "%0*o\0" gives). */
static void octal(char *field, int width, unsigned long long value) {
    field[width - 1] = '\0';
    for (int i = width - 2; i >= 0; i--) {
        field[i] = (char)('0' + (value & 7));
        value >>= 3;
    }
}

static void header(char *h, const char *name, Py_ssize_t name_len, long mode, long long size) {
    memset(h, 0, BLOCK);
    memcpy(h, name, (size_t)name_len);
    octal(h + 100, 8, (unsigned long long)mode);
    octal(h + 108, 8, 0);
    octal(h + 116, 8, 0);
    if (size < (1LL << 33)) {
        octal(h + 124, 12, (unsigned long long)size);
    } else { /* GNU base-256: a marker byte, then the size big-endian */
        unsigned long long v = (unsigned long long)size;
        h[124] = (char)0x80;
        for (int i = 135; i > 124; i--) {
            h[i] = (char)(v & 0xff);
            v >>= 8;
        }
    }
    octal(h + 136, 12, (unsigned long long)ARCHIVE_MTIME);
    memset(h + 148, ' ', 8);
    h[156] = '0';
    memcpy(h + 257, "ustar  ", 8); /* with its NUL: magic "ustar " and version " \0" */
    unsigned long sum = 0;
    for (int i = 0; i < BLOCK; i++) sum += (unsigned char)h[i];
    octal(h + 148, 7, sum); /* six digits and a NUL; the eighth byte stays a space */
}

static PyObject *open_stat(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    int dir_fd;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "open_stat(path, dir_fd)");
        return NULL;
    }
    if (as_int(args[1], &dir_fd) < 0) return NULL;
    PyObject *encoded = PyUnicode_EncodeFSDefault(args[0]);
    if (encoded == NULL) return NULL;
    const char *path = PyBytes_AS_STRING(encoded);
    if ((Py_ssize_t)strlen(path) != PyBytes_GET_SIZE(encoded)) {
        Py_DECREF(encoded);
        PyErr_SetString(PyExc_ValueError, "embedded null byte");
        return NULL;
    }
    int fd, err, ok = 0;
    struct stat st;
    for (;;) {
        Py_BEGIN_ALLOW_THREADS
        fd = openat(dir_fd, path, OPEN_FLAGS);
        err = errno;
        if (fd >= 0) {
            ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
            if (!ok) close(fd);
        }
        Py_END_ALLOW_THREADS
        if (fd >= 0 || err != EINTR) break;
        /* A signal: its Python handler runs now, as os.open's would, and may raise. */
        if (PyErr_CheckSignals() < 0) {
            Py_DECREF(encoded);
            return NULL;
        }
    }
    Py_DECREF(encoded);
    if (!ok) Py_RETURN_NONE;
    PyObject *result =
        Py_BuildValue("(iLi)", fd, (long long)st.st_size, (st.st_mode & 0111) ? 0755 : 0644);
    if (result == NULL) close(fd); /* no memory for the tuple: nobody would close it */
    return result;
}

static PyObject *pack_file(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError, "pack_file(buffer, pos, fd, name, mode, size)");
        return NULL;
    }
    int fd;
    if (as_int(args[2], &fd) < 0) return NULL;
    Py_ssize_t pos = PyLong_AsSsize_t(args[1]);
    long mode = PyLong_AsLong(args[4]);
    long long size = PyLong_AsLongLong(args[5]);
    if (PyErr_Occurred()) return NULL;
    if (!PyBytes_Check(args[3])) {
        PyErr_SetString(PyExc_TypeError, "name must be bytes");
        return NULL;
    }
    Py_ssize_t name_len = PyBytes_GET_SIZE(args[3]);
    if (name_len > 100 || mode < 0 || mode >= 010000000 || size < 0) {
        PyErr_SetString(PyExc_ValueError, "a name over 100 bytes, a bad mode or a bad size");
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) return NULL;
    Py_ssize_t cap = view.len;
    if (cap % BLOCK || pos < 0 || pos % BLOCK || cap - pos < BLOCK) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "pos must be a block boundary with a block of room");
        return NULL;
    }
    char *buf = view.buf;
    header(buf + pos, PyBytes_AS_STRING(args[3]), name_len, mode, size);
    pos += BLOCK;
    long long left = size;
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    while (left > 0 && pos < cap) {
        Py_ssize_t want = cap - pos < left ? cap - pos : (Py_ssize_t)left;
        ssize_t got = read(fd, buf + pos, (size_t)want);
        if (got < 0) {
            failed = errno; /* EINTR included: the caller's handlers run first (below) */
            break;
        }
        if (got == 0) { /* it shrank: zeros up to the size its header gives */
            memset(buf + pos, 0, (size_t)want);
            got = want;
        }
        pos += got;
        left -= got;
    }
    if (!failed && left == 0) {
        Py_ssize_t pad = (Py_ssize_t)(-size & (BLOCK - 1));
        memset(buf + pos, 0, (size_t)pad);
        pos += pad;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    if (failed == EINTR) {
        /* A signal: its Python handler runs, as os.readv's would; if it does not raise, the
           caller reads the rest (a member is finished wherever it stopped). */
        if (PyErr_CheckSignals() < 0) return NULL;
        failed = 0;
    }
    if (failed) {
        errno = failed;
        return PyErr_SetFromErrno(PyExc_OSError);
    }
    return Py_BuildValue("(nL)", pos, left);
}

static PyMethodDef methods[] = {
    {"open_stat", (PyCFunction)(void (*)(void))open_stat, METH_FASTCALL, NULL},
    {"pack_file", (PyCFunction)(void (*)(void))pack_file, METH_FASTCALL, NULL},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "oraculum.archive._native", NULL, -1, methods,
};

PyMODINIT_FUNC PyInit__native(void) {
    PyObject *m = PyModule_Create(&module);
    if (m != NULL && PyModule_AddIntConstant(m, "OPEN_FLAGS", OPEN_FLAGS) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

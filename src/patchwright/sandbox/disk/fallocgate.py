"""Every ``fallocate`` a run makes asks the disk budget first (a seccomp user notification).

``fallocate -l 1000M`` takes about half a millisecond: one system call that no signal
interrupts, faster than any poll of the free space, and eight of them in parallel are all
inside the kernel before a watcher could stop one. So the call is not watched but gated:
a seccomp filter, installed in the child before it execs and inherited by everything it
starts (bubblewrap, ``setsid``, daemons alike — a filter cannot be removed), turns each
``fallocate`` into a notification. One supervisor thread takes them one at a time, asks
``admit(bytes)`` whether the space fits the budget, and either refuses the call with
``ENOSPC`` or performs it itself on the caller's file (``pidfd_getfd``) and answers with its
result — so the next request is judged only once this one has taken its space. The
caller's own ``RLIMIT_FSIZE`` is honoured as the kernel would (``EFBIG`` and ``SIGXFSZ``).

Other writes (``write``, ``copy_file_range``, ``mmap``) move data at memory speed and are
left to the disk watch, which freezes the run between two of them. A 32-bit process's
``fallocate`` is refused with ``EOPNOTSUPP`` (C libraries then fall back to writing). Where
the filter cannot be installed (another architecture, seccomp unavailable) nothing is
gated and ``Gate.prepare`` returns None.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import os
import platform
import resource
import select
import signal
import socket
import stat
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass

Admit = Callable[[int], bool]


@dataclass(frozen=True)
class _Arch:
    audit: int  # AUDIT_ARCH_* of native calls
    fallocate: int
    seccomp: int
    compat_audit: int  # the 32-bit personality, whose fallocate splits its arguments
    compat_fallocate: int


_ARCHES = {
    "x86_64": _Arch(0xC000003E, 285, 317, 0x40000003, 324),
    "aarch64": _Arch(0xC00000B7, 47, 277, 0x40000028, 352),
}
_X32 = 0x40000000  # x32 calls carry this bit and 64-bit registers, like native ones
_SYS_PIDFD_GETFD = 438  # the same on every architecture
_SECCOMP_SET_MODE_FILTER, _SECCOMP_FILTER_FLAG_NEW_LISTENER = 1, 8
_RET_ALLOW, _RET_USER_NOTIF, _RET_ERRNO = 0x7FFF0000, 0x7FC00000, 0x00050000
_LD_ABS, _JEQ, _RET = 0x20, 0x15, 0x06  # BPF_LD|W|ABS, BPF_JMP|JEQ|K, BPF_RET|K
_NOTIF_RECV, _NOTIF_SEND, _NOTIF_ID_VALID = 0xC0502100, 0xC0182101, 0x40082102
_NOTIF = struct.Struct("=QIIiIQ6Q")  # struct seccomp_notif
_RESP = struct.Struct("=QqiI")  # struct seccomp_notif_resp
_PR_SET_NO_NEW_PRIVS = 38
# modes that take no new space: punch a hole, collapse a range, insert a hole
_FREEING = 0x02 | 0x08 | 0x20
_KEEP_SIZE, _ZERO_RANGE = 0x01, 0x10


class _Filter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte)]
    _fields_ += [("k", ctypes.c_uint32)]


class _Prog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Filter))]


def _program(arch: _Arch) -> list[tuple[int, int, int, int]]:
    """fallocate → notify; the 32-bit one → EOPNOTSUPP; everything else → allow."""
    return [
        (_LD_ABS, 0, 0, 4),  # 0: arch
        (_JEQ, 0, 5, arch.audit),  # 1: native → 2, else → 7
        (_LD_ABS, 0, 0, 0),  # 2: nr
        (_JEQ, 2, 0, arch.fallocate),  # 3: → 6
        (_JEQ, 1, 0, arch.fallocate | _X32),  # 4: → 6
        (_RET, 0, 0, _RET_ALLOW),  # 5
        (_RET, 0, 0, _RET_USER_NOTIF),  # 6
        (_JEQ, 0, 3, arch.compat_audit),  # 7: compat → 8, else → 11
        (_LD_ABS, 0, 0, 0),  # 8: nr
        (_JEQ, 0, 1, arch.compat_fallocate),  # 9: → 10, else → 11
        (_RET, 0, 0, _RET_ERRNO | errno.EOPNOTSUPP),  # 10
        (_RET, 0, 0, _RET_ALLOW),  # 11
    ]


_libc = ctypes.CDLL(None, use_errno=True)
_libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64]
_libc.prctl.argtypes = [
    ctypes.c_int,
    ctypes.c_ulong,
    ctypes.c_ulong,
    ctypes.c_ulong,
    ctypes.c_ulong,
]


class Gate:
    """The gate of one run: ``prepare``, ``child_setup`` in the child, ``start`` after it."""

    def __init__(self, arch: _Arch) -> None:
        rows = _program(arch)
        self._filters = (_Filter * len(rows))(*(_Filter(*row) for row in rows))
        self._prog = _Prog(len(rows), self._filters)
        self._seccomp_nr = arch.seccomp
        self._parent, self._child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)

    @classmethod
    def prepare(cls) -> Gate | None:
        """A gate for the next child, or None where this machine cannot gate."""
        arch = _ARCHES.get(platform.machine())
        return cls(arch) if arch is not None else None

    def child_setup(self) -> None:
        """In the child, between fork and exec: install the filter, hand over its listener.
        Failing leaves the child ungated (the parent then receives no listener)."""
        if os.geteuid() != 0:  # without CAP_SYS_ADMIN, seccomp needs no_new_privs
            _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        flags = _SECCOMP_FILTER_FLAG_NEW_LISTENER
        fd = _libc.syscall(
            self._seccomp_nr, _SECCOMP_SET_MODE_FILTER, flags, ctypes.byref(self._prog)
        )
        if fd >= 0:
            with contextlib.suppress(OSError):
                socket.send_fds(self._child, [b"+"], [fd])
            os.close(fd)

    def start(self, admit: Admit, on_refused: Callable[[], None]) -> Callable[[], None]:
        """After the spawn: serve the child's requests in a thread until the returned
        function is called. ``on_refused`` runs on each refusal for lack of space, before
        the caller is answered: a run it stops cannot go on past the refused call."""
        listener = self._receive()
        if listener is None:
            return _nothing
        wake_r, wake_w = os.pipe()

        def loop() -> None:
            poller = select.poll()
            poller.register(listener, select.POLLIN)
            poller.register(wake_r, select.POLLIN)
            while True:
                events = dict(poller.poll())
                if wake_r in events or events.get(listener, 0) & ~select.POLLIN:
                    return  # stopped, or every process under the filter is gone (POLLHUP)
                _serve_one(listener, admit, on_refused)

        thread = threading.Thread(target=loop, name="patchwright-fallocgate", daemon=True)
        thread.start()

        def stop() -> None:
            os.write(wake_w, b"x")
            thread.join()
            for fd in (listener, wake_r, wake_w):
                os.close(fd)

        return stop

    def _receive(self) -> int | None:
        """The listener the child sent (None when it could not install the filter)."""
        self._child.close()
        fds: list[int] = []
        with contextlib.suppress(OSError):
            self._parent.setblocking(False)
            _, fds, _, _ = socket.recv_fds(self._parent, 1, 1)
        self._parent.close()
        for fd in fds:
            os.set_inheritable(fd, False)
        return fds[0] if fds else None

    def close(self) -> None:
        """Drop the sockets when the child was never started."""
        self._child.close()
        self._parent.close()


def _nothing() -> None:
    return None


def _serve_one(listener: int, admit: Admit, on_refused: Callable[[], None]) -> None:
    buf = bytearray(_NOTIF.size)
    try:
        fcntl.ioctl(listener, _NOTIF_RECV, buf, True)
    except OSError:
        return  # the caller died (or was interrupted) before we read its request
    nid, pid, _, _, _, _, fd, mode, offset, length, _, _ = _NOTIF.unpack(buf)
    request = _Request(
        nid,
        pid,
        ctypes.c_int32(fd).value,
        ctypes.c_int32(mode).value,
        ctypes.c_int64(offset).value,
        ctypes.c_int64(length).value,
    )
    error = _answer(listener, request, admit)
    if error == _REFUSED:  # stop the run while the caller still waits, then answer
        on_refused()
        error = errno.ENOSPC
    flags = 0
    if error == _CONTINUE:  # admitted, but we could not take its file: the kernel does it
        error, flags = 0, _FLAG_CONTINUE
    with contextlib.suppress(OSError):
        fcntl.ioctl(listener, _NOTIF_SEND, bytearray(_RESP.pack(nid, 0, -error, flags)), True)


@dataclass(frozen=True)
class _Request:
    nid: int
    pid: int
    fd: int
    mode: int
    offset: int
    length: int


_REFUSED = -1  # answered ENOSPC, and the run is told (a full disk's ENOSPC is not)
_CONTINUE = -2  # let the kernel run the call (SECCOMP_USER_NOTIF_FLAG_CONTINUE)
_FLAG_CONTINUE = 1


def _answer(listener: int, req: _Request, admit: Admit) -> int:
    """The errno for ``fallocate(fd, mode, offset, length)`` by ``pid``: 0 when done,
    ``_REFUSED`` when ``admit`` said no."""
    try:  # the caller may be any thread (Go's linker calls it from one): open its process
        pidfd = os.pidfd_open(_thread_group(req.pid))
    except OSError:
        return _by_length(req, admit)
    try:
        theirs = _libc.syscall(_SYS_PIDFD_GETFD, pidfd, req.fd, 0)
        if theirs < 0 and ctypes.get_errno() != errno.EBADF:
            # not allowed to take its file (a ptrace policy): judge by the length alone
            return _by_length(req, admit)
        if theirs < 0:
            return errno.EBADF
    finally:
        os.close(pidfd)
    try:
        if not _still_waiting(listener, req.nid):  # its pid may be someone else's by now
            return errno.ESRCH
        if _over_fsize(req.pid, theirs, req.mode, req.offset + req.length):
            return errno.EFBIG
        if _takes_space(theirs, req) and not admit(req.length):
            return _REFUSED
        if _libc.fallocate(theirs, req.mode, req.offset, req.length) == 0:
            return 0
        return ctypes.get_errno() or errno.EIO
    finally:
        os.close(theirs)


def _by_length(req: _Request, admit: Admit) -> int:
    """When its file cannot be taken: judged by the length alone, then left to the kernel."""
    if req.length > 0 and not req.mode & _FREEING and not admit(req.length):
        return _REFUSED
    return _CONTINUE


def _thread_group(tid: int) -> int:
    """The process a thread belongs to (``pidfd_open`` takes a process, not a thread, before
    Linux 6.9); ``tid`` itself when ``/proc`` does not say."""
    try:
        with open(f"/proc/{tid}/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("Tgid:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return tid


def _takes_space(fd: int, req: _Request) -> bool:
    """The request may take new space: a positive length on a regular file, not freeing."""
    if req.length <= 0 or req.mode & _FREEING:
        return False
    try:
        return stat.S_ISREG(os.fstat(fd).st_mode)
    except OSError:
        return False


def _still_waiting(listener: int, nid: int) -> bool:
    try:
        fcntl.ioctl(listener, _NOTIF_ID_VALID, bytearray(struct.pack("=Q", nid)), True)
    except OSError:
        return False
    return True


def _over_fsize(pid: int, fd: int, mode: int, end: int) -> bool:
    """The caller's ``RLIMIT_FSIZE`` refuses growing the file to ``end`` (as the kernel
    would: ``SIGXFSZ`` sent, ``EFBIG`` returned)."""
    if mode & ~(_KEEP_SIZE | _ZERO_RANGE) or mode & _KEEP_SIZE:
        return False
    try:
        soft, _ = resource.prlimit(pid, resource.RLIMIT_FSIZE)
        size = os.fstat(fd).st_size
    except OSError:
        return False
    if soft == resource.RLIM_INFINITY or end <= max(soft, size):
        return False
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGXFSZ)
    return True

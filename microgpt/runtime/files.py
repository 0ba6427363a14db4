"""Files microgpt reads and writes: regular files only, reads bounded in size, writes atomic.

A symbolic link given as an output is refused, not followed: microgpt replaces only a regular
file that the path itself names, so a link can never steer a write onto another file.
"""

import os
import secrets
import shlex
import stat
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from microgpt.runtime.errors import InputError
from microgpt.runtime.signals import signals_held

# A short temporary name, whatever the output's name: any name the file system accepts for the
# output works, and ".microgpt-" + 8 hex digits + ".tmp" (22 bytes) fits every file system.
TEMP_PREFIX, TEMP_SUFFIX = ".microgpt-", ".tmp"
NEW_FILE_MODE = 0o666  # what open() asks for; the umask then takes away bits, as for any new file
PERMISSION_BITS = 0o777
READ_CHUNK = 1 << 20  # read in pieces, so a small file never costs a buffer of the whole limit


def describe(mode: int) -> str:
    """What kind of file a st_mode is, in words."""
    kinds = [
        (stat.S_ISREG, "a regular file"),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ]
    return next((name for test, name in kinds if test(mode)), "a special file")


# --- reading ---------------------------------------------------------------------------------


def read_bytes(path: str | Path, limit: int, what: str) -> bytes:
    """The bytes of the regular file at path, which may hold at most limit of them.

    The file is opened without blocking (a FIFO would otherwise wait for a writer) and checked
    before a byte is read: a directory, a device or a pipe is refused at once, a file larger than
    limit too, and a file that grows meanwhile is never read past limit + 1 bytes.
    """
    if not os.fspath(path):
        raise InputError(f"{what}: the path is empty")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise InputError(f"{what} not found: {path}") from None
    except (OSError, ValueError) as e:  # ValueError: a NUL in the name
        raise InputError(f"cannot read {what} {path}: {getattr(e, 'strerror', None) or e}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InputError(f"{what} must be a regular file, but {path} is {describe(info.st_mode)}")
        data = _read_at_most(fd, limit + 1) if info.st_size <= limit else b""
        if info.st_size > limit or len(data) > limit:
            size = max(info.st_size, len(data))
            raise InputError(f"{what} {path} is too large: {size:,} bytes or more; microgpt reads at most {limit:,}")
        return data
    except OSError as e:
        raise InputError(f"cannot read {what} {path}: {e.strerror or e}") from None
    finally:
        os.close(fd)


def _read_at_most(fd: int, n: int) -> bytes:
    chunks, size = [], 0
    while size < n:
        chunk = os.read(fd, min(n - size, READ_CHUNK))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


# --- writing ---------------------------------------------------------------------------------


def check_output(
    path: str | Path, inputs: Mapping[str, str | Path] | None = None, judge: Callable[[str], None] | None = None
) -> None:
    """Refuse, before any work is done, an output path that the final write would refuse or fail on.

    inputs maps a description ("data file") to a path the run reads, which the output must not be.
    judge(path), if given, refuses a file already there by what it holds (checkpoint.py: only its own);
    it is asked before whether the file may be written, so that no refusal asks to make writable a file
    that would be refused all the same.
    """
    try:
        existing = _regular_or_none(path)
    except SymbolicLink as e:  # offer the file it names only if that would be accepted in its place
        try:
            if os.path.islink(e.target):  # a loop of links: realpath stops inside it
                raise InputError(e.target)
            check_output(e.target, inputs, judge)
        except InputError:
            raise InputError(f"{e}: choose another path") from None
        raise InputError(f"{e}: give the path of the file itself, {shlex.quote(e.target)}") from None
    if existing is not None:
        for what, other in (inputs or {}).items():
            try:
                same = os.path.samestat(existing, os.stat(other))
            except (OSError, ValueError):  # an input that is not there is reported when it is read
                continue
            if same:
                given = os.fspath(other)
                raise InputError(f"{os.fspath(path)} is the {what} ({given}); writing it would destroy the input")
        if judge is not None:
            judge(os.fspath(path))
        _check_writable(os.fspath(path), existing)
    with signals_held():  # the probe must not outlive a Ctrl-C
        fd, tmp = _create_temp(parent_of(path))
        os.close(fd)
        os.unlink(tmp)


def parent_of(path: str | Path) -> str:
    """The directory the name path is created in, as the system reads the path: never normalised, so that
    `x/.` or `link/..` means what it means to the system (pathlib would read `x/.` as `x`)."""
    head = os.path.split(os.fspath(path))[0]
    return head or os.curdir


def replaceable(name: str | Path) -> os.stat_result | None:
    """The stat of the regular, writable file at name, or None if there is none; refuse anything else.

    The path is read as the system reads it, never normalised: `victim.txt/.` is not `victim.txt`.
    """
    info = _regular_or_none(name)
    if info is not None:
        _check_writable(os.fspath(name), info)
    return info


class SymbolicLink(InputError):
    """The output path is a symbolic link, which microgpt does not follow: target is the file it names."""

    def __init__(self, path: str):
        super().__init__(f"{path} is a symbolic link (to {os.readlink(path)}); microgpt replaces only regular files")
        self.target = os.path.realpath(path)


def _regular_or_none(name: str | Path) -> os.stat_result | None:
    """The stat of the regular file at name, or None if there is none; refuse a path that names anything else."""
    path = os.fspath(name)
    if not path:
        raise InputError("the path is empty")
    parent, last = parent_of(path), os.path.split(path)[1]
    names_a_directory = last in ("", os.curdir, os.pardir)  # "x/", "x/.", "x/..", "/": never a file's name
    try:
        info = os.stat(parent)  # followed: a parent that is a symbolic link to a directory is a directory
    except FileNotFoundError:
        if names_a_directory:
            raise InputError(f"{path} names a directory, not a file") from None
        raise InputError(f"directory does not exist: {parent}") from None
    except NotADirectoryError:
        raise InputError(_not_a_directory(parent)) from None
    except (OSError, ValueError) as e:  # a name too long, a loop of symbolic links, a NUL, ...
        raise InputError(f"{path}: {getattr(e, 'strerror', None) or e}") from None
    if not stat.S_ISDIR(info.st_mode):
        raise InputError(f"{parent} is {describe(info.st_mode)}, not a directory, so {path} cannot be a file in it")
    if names_a_directory:
        raise InputError(f"{path} names a directory, not a file")
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:  # a name too long for the file system, a NUL, ...
        raise InputError(f"{path}: {getattr(e, 'strerror', None) or e}") from None
    if stat.S_ISLNK(info.st_mode):
        raise SymbolicLink(path)
    if stat.S_ISDIR(info.st_mode):
        raise InputError(f"{path} is a directory, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{path} is {describe(info.st_mode)}; microgpt writes only regular files")
    return info


def _check_writable(path: str, info: os.stat_result) -> None:
    if not info.st_mode & 0o222 or not os.access(path, os.W_OK):
        raise InputError(f"{path} is read-only (for you); make it writable or choose another path")
    if _owned_by_another_in_a_sticky_directory(parent_of(path), info):
        raise InputError(
            f"{path} belongs to another user, in a directory where only a file's owner may replace it "
            "(the sticky bit, as on /tmp); choose another path"
        )


def _not_a_directory(path: str) -> str:
    """Which part of path, a path the system refused with "Not a directory", is a file: the nearest one up."""
    head = path
    while head:
        up = os.path.split(head)[0]
        if up == head:
            break
        head = up
        try:
            info = os.stat(head)
        except OSError:
            continue
        if not stat.S_ISDIR(info.st_mode):
            return f"{head} is {describe(info.st_mode)}, not a directory, so {path} cannot be a file in it"
    return f"{path} is not a directory: a part of it is a file"


def _owned_by_another_in_a_sticky_directory(directory: str, info: os.stat_result) -> bool:
    """Would the final rename over the file be refused? The probe file can be made and removed even then."""
    if not hasattr(os, "geteuid") or os.geteuid() == 0:  # Windows has no sticky bit; root may replace any file
        return False
    parent = os.stat(directory)
    return bool(parent.st_mode & stat.S_ISVTX) and os.geteuid() not in (info.st_uid, parent.st_uid)


def write_atomically(path: str | Path, data: bytes | Iterable[bytes]) -> None:
    """Replace path with data all at once: a reader sees the old file or the new one, never a mix.

    data is the bytes, or pieces of them, written as they come (a large checkpoint is made as it is
    written). An existing file keeps its permission bits (and, where allowed, its owner and group); a
    new one gets the usual 0o666 less the umask. Signals wait until the write is done (see
    signals.signals_held), and the temporary file is gone when this returns or raises.
    """
    with signals_held():
        existing = replaceable(path)  # checked again: the path may have changed since check_output
        target, directory = os.fspath(path), parent_of(path)
        fd, tmp = _create_temp(directory)
        try:
            with open(fd, "wb", closefd=True) as f:
                if existing is not None:
                    _keep_owner_and_mode(fd, existing)
                for piece in [data] if isinstance(data, bytes) else data:
                    f.write(piece)
                f.flush()
                os.fsync(fd)  # the bytes are on disk before the name points at them
            os.replace(tmp, target)
        except BaseException:
            os.unlink(tmp)
            raise
        _sync_directory(directory)


def _create_temp(directory: str) -> tuple[int, str]:
    """A new, empty, uniquely named file in directory (the rename only replaces within one file system)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    while True:
        tmp = os.path.join(directory, f"{TEMP_PREFIX}{secrets.token_hex(4)}{TEMP_SUFFIX}")
        try:
            return os.open(tmp, flags, NEW_FILE_MODE), tmp
        except FileExistsError:  # another writer drew the same name: draw again
            continue
        except OSError as e:
            raise InputError(f"cannot create a file in {directory}: {e.strerror or e}") from None


def _keep_owner_and_mode(fd: int, old: os.stat_result) -> None:
    """Give the new file the old one's permission bits, and its owner and group where the system lets us."""
    new = os.fstat(fd)
    if hasattr(os, "fchown") and (old.st_uid, old.st_gid) != (new.st_uid, new.st_gid):
        try:
            os.fchown(fd, old.st_uid, old.st_gid)
        except OSError:  # only root may give a file away; the new file then stays ours
            pass
    if hasattr(os, "fchmod"):  # POSIX; on Windows a file's mode is only its read-only flag
        os.fchmod(fd, stat.S_IMODE(old.st_mode) & PERMISSION_BITS)


def _sync_directory(directory: str) -> None:
    """Make the rename itself durable (POSIX); where a directory cannot be opened, the rename is all we can do."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)

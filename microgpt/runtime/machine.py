"""How much room this process has: memory, and disk space for a file, as the machine's own limits set it.

Memory: the process's address-space and data limits (`ulimit -v`, `ulimit -d`), the memory the
system has available (MemAvailable) and a container's memory limit (cgroup), whichever leaves least.
Disk: the free space of the file system a file goes to, and the process's file-size limit
(`ulimit -f`). Each room says what bounds it and what would make more of it, so that a refusal can
say how far a limit would have to go. What is not known on a system (no /proc, no `resource` module
on Windows) bounds nothing.
"""

import dataclasses
import math
import os
import sys
from pathlib import Path

from microgpt.runtime.units import size

try:
    import resource
except ImportError:  # Windows
    resource = None  # type: ignore[assignment]

KIB = 1024  # `ulimit -v`, `-d` and bash's `-f` count in KiB


@dataclasses.dataclass(frozen=True)
class Room:
    """How many bytes more a process may take (or a file may hold), what bounds it, and what would make more.

    A limit (`ulimit -v`, a container's) is raised; free memory or disk space is made. in_use: what
    counts against a limit already.
    """

    bytes: int
    cause: str  # "the address-space limit (ulimit -v 1000000, 1.02 GB, of which this process uses 43 MB)"
    name: str  # "the address-space limit", or for room that is made, where: "free on that file system"
    limit: bool = False
    in_use: int = 0
    flag: str = ""  # the shell's setting for a limit, in KiB: "ulimit -v"

    def remedy(self, need: float) -> str:
        """What would make room for `need` bytes: 'the address-space limit would have to be 2.2 GB or more (ulimit -v
        2150000)', '1.3 MB would have to be free on that file system, against 200 kB now'."""
        if self.limit:
            # in KiB, as the shell takes it, and rounded up as a person would type it: another run of the
            # same command holds a little more or less than this one when it checks
            kib = round_up(math.ceil((self.in_use + need) / KIB))
            flag = f" ({self.flag} {kib})" if self.flag else ""
            return f"{self.name} would have to be {size(kib * KIB)} or more{flag}"
        return f"{size(round_up(math.ceil(need), 3))} would have to be {self.name}, against {size(self.bytes)} now"


def round_up(n: int, digits: int = 2) -> int:
    """n rounded up to its first `digits` significant digits: 2,148,532 is 2,200,000."""
    scale = 10 ** max(0, len(str(n)) - digits)
    return -(-n // scale) * scale


def memory_room() -> Room | None:
    """The least room any of the process's memory bounds leaves it now; None if none is known."""
    status = _proc_status()
    rooms = []
    for name, flag, used in (("AS", "ulimit -v", "VmSize"), ("DATA", "ulimit -d", "VmData")):
        limit = _soft_limit(f"RLIMIT_{name}")
        if limit is not None and used in status:
            what = "the address-space limit" if name == "AS" else "the data-segment limit"
            in_use = status[used]
            cause = f"{what} ({flag} {limit // KIB}, {size(limit)}, of which this process uses {size(in_use)})"
            rooms.append(Room(max(0, limit - in_use), cause, what, True, in_use, flag))
    available = _meminfo().get("MemAvailable")
    if available is not None:
        rooms.append(Room(available, "the memory this machine has available", "available"))
    container = _cgroup_room()
    if container is not None:
        rooms.append(container)
    return min(rooms, key=lambda room: room.bytes, default=None)


def resident() -> tuple[int, int]:
    """The memory this process holds now (its resident size), and the most it has held so far, in bytes: what the
    interpreter, microgpt and what it read take, which every estimate of memory counts. Linux says both of the
    process itself (VmRSS, VmHWM); elsewhere the most so far is getrusage's, which may count what the process
    that started this one held. (0, 0) where neither is known."""
    status = _proc_status()
    if "VmRSS" in status and "VmHWM" in status:
        return status["VmRSS"], status["VmHWM"]
    if resource is None:
        return 0, 0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    peak *= 1 if sys.platform == "darwin" else KIB  # bytes on macOS, KiB on the BSDs
    return peak, peak


def disk_room(directory: str | Path) -> Room | None:
    """The least room a new file in directory has: the file system's free space, or the file-size limit."""
    rooms = []
    try:
        fs = os.statvfs(directory)
        free = fs.f_bavail * fs.f_frsize
        cause = f"the free space on the file system of {os.fspath(directory)}"
        rooms.append(Room(free, cause, "free on that file system"))
    except (AttributeError, OSError):  # Windows has no statvfs; an unreadable directory is refused elsewhere
        pass
    limit = _soft_limit("RLIMIT_FSIZE")
    if limit is not None:
        cause = f"the file-size limit (ulimit -f {limit // KIB} in bash, {size(limit)})"
        rooms.append(Room(limit, cause, "the file-size limit", True, 0, "ulimit -f"))
    return min(rooms, key=lambda room: room.bytes, default=None)


def _soft_limit(name: str) -> int | None:
    if resource is None or not hasattr(resource, name):
        return None
    try:
        soft, _ = resource.getrlimit(getattr(resource, name))
    except (OSError, ValueError):
        return None
    return None if soft == resource.RLIM_INFINITY else soft


def _proc_status() -> dict[str, int]:
    """The process's memory figures from /proc/self/status (Linux), in bytes: VmSize, VmData, ..."""
    return _kib_fields("/proc/self/status")


def _meminfo() -> dict[str, int]:
    return _kib_fields("/proc/meminfo")


def _kib_fields(path: str) -> dict[str, int]:
    fields = {}
    try:
        with open(path, "rb") as f:  # bytes: no codec to load, which could fail where memory ran out
            for line in f:
                name, _, value = line.partition(b":")
                parts = value.split()
                if len(parts) == 2 and parts[1] == b"kB" and parts[0].isdigit():  # bytes.isdigit(): ASCII only
                    fields[name.decode("ascii", "replace")] = int(parts[0]) * KIB
    except OSError:
        pass
    return fields


def _cgroup_room() -> Room | None:
    """A container's memory limit less what the container uses (cgroup v2, else v1), as its own root shows it."""
    for limit_file, usage_file in (
        ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
        ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"),
    ):
        limit, usage = _read_int(limit_file), _read_int(usage_file)
        if limit is not None and usage is not None and limit < 2**60:  # v1 writes "no limit" as about 2^63
            cause = f"the container's memory limit ({size(limit)}, of which {size(usage)} is in use)"
            return Room(max(0, limit - usage), cause, "the container's memory limit", True, usage)
    return None


def _read_int(path: str) -> int | None:
    try:
        with open(path, "rb") as f:
            text = f.read(64).strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None  # "max": no limit; bytes.isdigit() is ASCII only

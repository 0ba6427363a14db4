"""Reading and writing files: regular files only, reads bounded, writes atomic, permissions kept."""

import os
import signal
import stat
import sys
import threading

import pytest
from unprivileged import Runner, as_nobody

from microgpt.runtime import files
from microgpt.runtime.errors import InputError

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs, device nodes and modes are POSIX")


def mode(path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.fixture
def umask():
    """Set the process's umask for one test, then put the old one back."""
    old = os.umask(0o022)
    os.umask(old)
    yield os.umask
    os.umask(old)


@pytest.fixture
def stop_signals_raise():
    """SIGINT, SIGTERM, SIGQUIT and SIGUSR1 raise Delivered in this process for one test (not pytest's own
    KeyboardInterrupt, nor the default action of the last two, which would end the test run)."""

    class Delivered(Exception):
        pass

    def handler(signum, frame):
        raise Delivered(signum)

    old = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGQUIT, signal.SIGUSR1)}
    yield Delivered
    for s, h in old.items():
        signal.signal(s, h)


# --- reading ---------------------------------------------------------------------------------


def test_read_bytes_returns_a_small_regular_file(tmp_path):
    (tmp_path / "a").write_bytes(b"abc")
    assert files.read_bytes(tmp_path / "a", limit=3, what="data file") == b"abc"


def test_read_bytes_refuses_a_file_over_the_limit_from_its_size_alone(tmp_path):
    big = tmp_path / "big"
    with open(big, "wb") as f:
        f.truncate(10**12)  # a sparse terabyte: reading it would take minutes, refusing it takes nothing
    with pytest.raises(InputError, match=r"data file .*big is too large: 1,000,000,000,000 bytes .* at most 100"):
        files.read_bytes(big, limit=100, what="data file")


def test_read_bytes_refuses_a_directory(tmp_path):
    with pytest.raises(InputError, match=r"checkpoint must be a regular file, but .* is a directory"):
        files.read_bytes(tmp_path, limit=100, what="checkpoint")


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_read_bytes_refuses_a_character_device_before_reading_it():
    with pytest.raises(InputError, match="but /dev/zero is a character device"):
        files.read_bytes("/dev/zero", limit=10**12, what="data file")  # an unbounded read would never end


def test_read_bytes_says_when_the_file_is_missing(tmp_path):
    with pytest.raises(InputError, match="data file not found: .*nope"):
        files.read_bytes(tmp_path / "nope", limit=100, what="data file")


# --- checking an output path -----------------------------------------------------------------


def test_check_output_accepts_a_new_file_and_leaves_nothing_behind(tmp_path):
    files.check_output(tmp_path / "new.json")
    assert os.listdir(tmp_path) == []


def test_check_output_accepts_the_longest_name_the_file_system_allows(tmp_path):
    files.check_output(tmp_path / ("a" * 250 + ".json"))  # 255 bytes; the temporary name is short
    assert os.listdir(tmp_path) == []


def test_check_output_refuses_a_name_longer_than_the_file_system_allows(tmp_path):
    with pytest.raises(InputError, match="File name too long"):
        files.check_output(tmp_path / ("a" * 256))


def test_check_output_refuses_a_symbolic_link_and_leaves_its_target_alone(tmp_path):
    target = tmp_path / "target.json"
    target.write_text("precious")
    (tmp_path / "link.json").symlink_to(target)
    with pytest.raises(InputError, match=r"link.json is a symbolic link \(to .*target.json\); .* only regular files"):
        files.check_output(tmp_path / "link.json")
    assert target.read_text() == "precious"


def test_check_output_refuses_a_dangling_symbolic_link(tmp_path):
    (tmp_path / "link.json").symlink_to(tmp_path / "nowhere")
    with pytest.raises(InputError, match="is a symbolic link"):
        files.check_output(tmp_path / "link.json")
    assert not (tmp_path / "nowhere").exists()


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX owners and the sticky bit")
def test_check_output_refuses_another_users_file_in_a_sticky_directory(tmp_path, monkeypatch):
    shared = tmp_path / "shared"  # like /tmp: anyone may create files, only a file's owner may replace it
    shared.mkdir()
    shared.chmod(0o1777)
    theirs = shared / "model.json"
    theirs.write_text("theirs")
    theirs.chmod(0o666)  # writable by anyone, yet not replaceable by a rename from another user
    someone_else = os.stat(theirs).st_uid + 4242
    monkeypatch.setattr(os, "geteuid", lambda: someone_else)
    with pytest.raises(InputError, match="belongs to another user, in a directory where only a file's owner"):
        files.check_output(theirs)
    monkeypatch.setattr(os, "geteuid", lambda: os.stat(theirs).st_uid)  # the owner may replace it
    files.check_output(theirs)
    assert theirs.read_text() == "theirs" and os.listdir(shared) == ["model.json"]


def test_check_output_refuses_a_fifo(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(InputError, match=r"fifo is a FIFO \(named pipe\); microgpt writes only regular files"):
        files.check_output(tmp_path / "fifo")


def test_check_output_refuses_a_character_device():
    with pytest.raises(InputError, match="/dev/null is a character device"):
        files.check_output("/dev/null")  # only checks: nothing here ever writes


@pytest.mark.parametrize("name", ["{d}", "{d}/", "{d}/sub/", "{d}/.", "{d}/.."])
def test_check_output_refuses_a_directory(tmp_path, name):
    with pytest.raises(InputError, match="directory"):
        files.check_output(name.format(d=tmp_path))


@pytest.mark.parametrize("tail", ["/.", "/..", "/", "//", "/./", "/new.json", "/x/new.json"])
def test_a_path_through_a_file_is_refused_and_the_file_is_left_alone(tmp_path, tail):
    # the case: `--out victim.txt/.` replaced victim.txt, as pathlib reads `victim.txt/.` as `victim.txt`
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    with pytest.raises(InputError, match=r"victim.txt is a regular file, not a directory"):
        files.check_output(f"{victim}{tail}")
    with pytest.raises(InputError, match="not a directory"):
        files.write_atomically(f"{victim}{tail}", b"new")
    assert victim.read_text() == "precious"
    assert os.listdir(tmp_path) == ["victim.txt"]


@pytest.mark.parametrize("tail", ["/.", "/..", "/", "/./", "/sub/.."])
def test_a_path_that_names_a_directory_is_refused_however_it_is_spelled(tmp_path, tail):
    (tmp_path / "d" / "sub").mkdir(parents=True)
    with pytest.raises(InputError, match="names a directory, not a file|is a directory, not a file"):
        files.check_output(f"{tmp_path}/d{tail}")
    assert os.listdir(tmp_path / "d") == ["sub"]


def test_a_parent_that_is_a_symbolic_link_to_a_directory_is_followed_as_the_system_follows_it(tmp_path):
    (tmp_path / "real" / "deep").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "real" / "deep")
    files.write_atomically(f"{tmp_path}/link/m.json", b"through the link")
    assert (tmp_path / "real" / "deep" / "m.json").read_bytes() == b"through the link"
    # `link/..` is the parent of the link's target to the system, not tmp_path as os.path.normpath would have it
    files.write_atomically(f"{tmp_path}/link/../up.json", b"physical")
    assert (tmp_path / "real" / "up.json").read_bytes() == b"physical"
    assert sorted(os.listdir(tmp_path)) == ["link", "real"]


def test_a_parent_that_is_a_symbolic_link_to_a_file_is_not_a_directory(tmp_path):
    (tmp_path / "victim.txt").write_text("precious")
    (tmp_path / "link").symlink_to(tmp_path / "victim.txt")
    with pytest.raises(InputError, match="link is a regular file, not a directory"):
        files.check_output(f"{tmp_path}/link/.")
    assert (tmp_path / "victim.txt").read_text() == "precious"


def test_check_output_refuses_a_missing_directory(tmp_path):
    with pytest.raises(InputError, match=r"directory does not exist: .*/no/such"):
        files.check_output(tmp_path / "no" / "such" / "m.json")


def test_check_output_refuses_an_input_of_the_run_also_by_symlink_or_hard_link(tmp_path):
    data = tmp_path / "data.txt"
    data.write_text("anna\n")
    (tmp_path / "alias.txt").symlink_to(data)
    os.link(data, tmp_path / "hard.txt")
    for out, given in [(data, data), (data, tmp_path / "alias.txt"), (tmp_path / "hard.txt", data)]:
        with pytest.raises(InputError, match="is the data file .*; writing it would destroy the input"):
            files.check_output(out, {"data file": given})
    assert data.read_text() == "anna\n"


def test_check_output_refuses_a_read_only_file(tmp_path):
    out = tmp_path / "m.json"
    out.write_text("{}")
    out.chmod(0o444)
    with pytest.raises(InputError, match="is read-only"):
        files.check_output(out)


def test_check_output_says_when_the_directory_is_not_writable(tmp_path, monkeypatch):
    real_open = os.open

    def refuse_new_files(path, flags, *args):
        if flags & os.O_CREAT:
            raise PermissionError(13, "Permission denied")
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", refuse_new_files)  # as root, a read-only directory would not stop us
    with pytest.raises(InputError, match=r"cannot create a file in .*: Permission denied"):
        files.check_output(tmp_path / "m.json")


def test_check_output_refuses_a_read_only_directory(tmp_path):
    # as an unprivileged user: root may write into a read-only directory, and CI runs as root
    with as_nobody() as nobody:
        if isinstance(nobody, str):  # the tests run unprivileged: as themselves, then
            nobody = Runner(tmp_path, sys.executable, dict(os.environ), None)
        nobody.work.chmod(0o555)
        try:
            result = nobody.python_code(
                "from microgpt.runtime import files\n"
                "from microgpt.runtime.errors import InputError\n"
                "try:\n    files.check_output('m.json')\nexcept InputError as e:\n    print(e)"
            )
        finally:
            nobody.work.chmod(0o755)
        assert result.stdout == "cannot create a file in .: Permission denied\n", result.stdout + result.stderr
        assert os.listdir(nobody.work) == []


# --- writing ---------------------------------------------------------------------------------


def test_write_atomically_keeps_an_existing_files_permission_bits(tmp_path):
    out = tmp_path / "m.json"
    out.write_text("old")
    out.chmod(0o640)
    files.write_atomically(out, b"new")
    assert (out.read_text(), mode(out)) == ("new", 0o640)


@pytest.mark.parametrize(("mask", "expected"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_write_atomically_gives_a_new_file_the_usual_mode_less_the_umask(tmp_path, umask, mask, expected):
    umask(mask)
    files.write_atomically(tmp_path / "m.json", b"new")
    assert mode(tmp_path / "m.json") == expected


def test_write_atomically_works_with_a_name_of_250_bytes(tmp_path):
    out = tmp_path / ("a" * 245 + ".json")
    files.write_atomically(out, b"new")
    assert out.read_bytes() == b"new"
    assert os.listdir(tmp_path) == [out.name]


@pytest.mark.parametrize("make", [os.mkfifo, lambda p: os.symlink("elsewhere", p)], ids=["fifo", "symlink"])
def test_write_atomically_refuses_what_check_output_refuses(tmp_path, make):
    make(tmp_path / "m.json")
    before = os.lstat(tmp_path / "m.json")
    with pytest.raises(InputError):
        files.write_atomically(tmp_path / "m.json", b"new")
    assert os.lstat(tmp_path / "m.json") == before
    assert os.listdir(tmp_path) == ["m.json"]


def test_a_failed_write_keeps_the_old_file_and_removes_the_temporary_one(tmp_path, monkeypatch):
    out = tmp_path / "m.json"
    out.write_text("old")

    def disk_full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(OSError, match="No space left"):
        files.write_atomically(out, b"new")
    assert out.read_text() == "old"
    assert os.listdir(tmp_path) == ["m.json"]


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="signals cannot be blocked here")
@pytest.mark.parametrize(
    "signum",
    [signal.SIGINT, signal.SIGTERM, signal.SIGQUIT, signal.SIGUSR1],  # SIGQUIT, SIGUSR1: not stop signals, held too
    ids=["SIGINT", "SIGTERM", "SIGQUIT", "SIGUSR1"],
)
def test_a_signal_during_the_write_waits_until_the_file_is_complete(tmp_path, monkeypatch, stop_signals_raise, signum):
    out = tmp_path / "m.json"
    out.write_text("old")
    real_fsync = os.fsync

    def signal_then_fsync(fd):
        # sent to this thread, as a terminal or `kill` reaches the single-threaded command line; a
        # process-wide kill could land on a thread an earlier test left behind (Playwright's), which
        # does not block it
        signal.pthread_kill(threading.get_ident(), signum)  # delivered now if nothing holds it back
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", signal_then_fsync)
    with pytest.raises(stop_signals_raise) as delivered:
        files.write_atomically(out, b"new")
    assert delivered.value.args == (signum,)  # it did arrive, after the write
    assert out.read_text() == "new"
    assert os.listdir(tmp_path) == ["m.json"]

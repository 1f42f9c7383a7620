"""Every file blockfit writes goes through here, so that nothing is lost and nothing is half-written.

- `check_target` refuses, before any work, a path that cannot be written atomically; `check_distinct` refuses an
  output that is the same file as an input, another output or stdout (by device and inode, or by the resolved
  directory and name for a file still to be made: through `..`, symlinks and hard links alike).
- `Batch` (and `write_atomically`, a batch of one) writes each file to a temp file beside its target, fsyncs it,
  and renames every file into place at the end; `StreamFile` does the same for a file written while a command
  runs (diagnose --record); `replace_folder` assembles a build folder aside and swaps it in as a whole, under a
  lock against a concurrent build into the same folder.
- The few steps that must not be cut in half by a signal (creating a temp file and registering it, the renames,
  the clean-up) run under `lifecycle.held()`, which keeps a signal until they are done; a temp file left by an
  interrupted command is removed by the clean-up registered with `lifecycle.on_exit`.

Nothing is written through a symlink: a link at an output's name is replaced by the new file (renamed over the
link's own name, in the link's own folder) and one line on stderr says so. Following it would let anyone who can
plant a link in a shared folder (/tmp, sticky and world-writable) choose which file a root run replaces. The
folders above the name are resolved as usual.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import shutil
import stat
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO

from blockfit.errors import BlockfitError, EnvironmentProblem, InputError
from blockfit.lifecycle import checkpoint, held, on_exit

MANIFEST = ".blockfit-files"  # in a build folder: the files the build wrote, so --force can replace them whole
LOCK_WAIT_S = 30.0


# ---------------------------------------------------------------- temp files


_temps: set[Path] = set()  # temp files and folders this process made and has not yet renamed or removed
written: list[Path] = []  # outputs committed in this run (for the "interrupted" line)


def discard_leftovers() -> None:
    """Remove every temp file or folder still registered (run on the way out by `lifecycle.clean_up`)."""
    with held():
        for tmp in sorted(_temps, key=lambda p: len(p.parts), reverse=True):
            _remove(tmp)
        _temps.clear()


def _register(tmp: Path) -> None:
    """A temp file or folder this process made: removed on the way out unless renamed or removed before."""
    _temps.add(tmp)
    on_exit(discard_leftovers)


# ---------------------------------------------------------------- checks before any work


def _real(path: Path) -> Path:
    """The file a write to `path` lands on: `..` and symlinks resolved (a dangling link: the file it names)."""
    return Path(os.path.realpath(path))


def _dest(path: Path) -> Path:
    """The name a write to `path` replaces: its folder resolved, its own name kept (a symlink there is replaced,
    never followed). A path ending in no name ('/', '.', '..') is resolved whole: it names a directory."""
    if path.name in ("", ".", ".."):
        return _real(path)
    return _real(path.parent) / path.name


def _link_text(path: Path) -> str | None:
    """What the symlink at path points to, or None if path is not a symlink."""
    try:
        return os.readlink(path)
    except (OSError, ValueError):
        return None


def _say_link_replaced(what: str, path: Path, link: str | None) -> None:
    if link is not None:  # repr: a link's text may hold terminal escapes
        print(f"blockfit: {what} {str(path)!r}: was a symlink to {link!r}; replaced the link, not its target",
              file=sys.stderr)


def _first_existing_ancestor(path: Path) -> Path:
    for parent in path.parents:
        if os.path.lexists(parent):
            return parent
    return Path("/")


def check_target(path: Path, what: str) -> None:
    """Refuse a result path that cannot be written atomically, before any work: a directory, a parent that is a
    file, missing or not writable, or an existing non-regular file (renaming over /dev/null as root would replace
    the device node with a regular file). A symlink is not followed: it will be replaced, like a missing file."""
    target = _dest(path)
    try:
        st = os.lstat(target) if os.path.lexists(target) else None
        parent_ok = target.parent.is_dir()
    except OSError as exc:
        raise InputError(f"{what} {str(path)!r}: cannot be used ({exc.strerror})") from None
    if st is not None and stat.S_ISLNK(st.st_mode):
        st = None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise InputError(f"{what} {str(path)!r}: expected a file path, not a directory")
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise InputError(f"{what} {str(path)!r}: exists and is not a regular file (a device, pipe or socket)")
    if not parent_ok:
        _refuse_parent(path, target.parent, what)
    if not os.access(target.parent, os.W_OK | os.X_OK):  # the file is written beside its path, then renamed
        raise InputError(f"{what} {str(path)!r}: directory {str(target.parent)!r} is not writable")
    if len(os.fsencode(target.name)) > 255:
        raise InputError(f"{what} {str(path)!r}: the file name is longer than 255 bytes")


def _refuse_parent(path: Path, parent: Path, what: str) -> None:
    blocker = parent if os.path.lexists(parent) else _first_existing_ancestor(parent)
    if os.path.lexists(blocker) and not blocker.is_dir():
        raise InputError(f"{what} {str(path)!r}: {str(blocker)!r} is a file, not a directory")
    raise InputError(f"{what} {str(path)!r}: directory {str(parent)!r} does not exist")


def _identity(path: Path) -> tuple[object, ...]:
    """Same identity = same file: device and inode for what exists, else the resolved directory's and the name."""
    target = _real(path)
    with contextlib.suppress(OSError):
        st = os.stat(target)
        return ("inode", st.st_dev, st.st_ino)
    with contextlib.suppress(OSError):
        st = os.stat(target.parent)
        return ("name", st.st_dev, st.st_ino, target.name)
    return ("path", str(target))


def _stdout_identity() -> tuple[object, ...] | None:
    with contextlib.suppress(OSError, ValueError, AttributeError):  # captured in a test: no file behind it
        st = os.fstat(sys.stdout.fileno())
        if stat.S_ISREG(st.st_mode):
            return ("inode", st.st_dev, st.st_ino)
    return None


def check_distinct(outputs: Sequence[tuple[str, Path | None]], inputs: Sequence[tuple[str, Path | None]] = (),
                   stdout: bool = True) -> None:
    """Refuse an output that is the same file as an input, as another output, or as stdout redirected to a file
    (`report plan.json -o plan.json` would replace the plan with HTML; `--out x --report x` one result with another).
    Each pair is (the option or argument, its path); None is skipped."""
    seen = [(_identity(path), what, path, "an input") for what, path in inputs if path is not None]
    for what, path in outputs:
        if path is None:
            continue
        ident = _identity(path)
        for other_id, other_what, other, role in seen:
            if ident == other_id:
                raise InputError(f"{what} {str(path)!r}: is the same file as {other_what} {str(other)!r} "
                                 f"({role}); choose another file name")
        seen.append((ident, what, path, "another output"))
    out_file = _stdout_identity() if stdout else None
    if out_file is not None:
        for ident, what, path, _ in seen:
            if ident == out_file:
                raise InputError(f"stdout: is redirected to {what} {str(path)!r}; redirect it elsewhere")


# ---------------------------------------------------------------- writing files


def glob_stem(target: Path) -> str:
    """The part of `_temp_name`'s names that comes from the target, escaped for a glob."""
    import glob

    return glob.escape(os.fsdecode(os.fsencode(target.name)[:180]))


def _temp_name(target: Path, kind: str = "tmp") -> Path:
    """`.NAME.PID.RANDOM.tmp` beside the target, short enough for a 255-byte file name."""
    stem = os.fsencode(target.name)[:180]
    return target.with_name(f".{os.fsdecode(stem)}.{os.getpid()}.{os.urandom(3).hex()}.{kind}")


def _create_temp(target: Path) -> tuple[int, Path]:
    """Create and register a temp file beside target (held: a signal cannot come between the two). It is 0600
    until `_keep_mode` gives it its final mode: made 0666 less the umask, the text of a 0600 file being replaced
    (a DSN, a host list) could be read, and kept open, by anyone while it was written, all the while for a
    diagnose --record."""
    with held():
        tmp = _temp_name(target)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        _register(tmp)
    return fd, tmp


def _create_partial(target: Path, path: Path, what: str) -> tuple[int, Path]:
    """Create `NAME.partial` beside target, 0600 like a temp file, never over an existing file or link."""
    partial = target.with_name(target.name + PARTIAL)
    if len(os.fsencode(partial.name)) > 255:
        raise InputError(f"{what} {str(path)!r}: the file name is longer than {255 - len(PARTIAL)} bytes")
    try:
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except FileExistsError:
        raise InputError(f"{what} {str(path)!r}: {str(partial)!r} exists (what a run cut short had written); "
                         "move it away, or read it: it is a file of its own") from None
    return fd, partial


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        if n <= 0:  # a write that takes nothing is a full disk, whatever the kernel said
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        view = view[n:]


def _keep_mode(fd: int, target: Path) -> None:
    """A replaced file keeps its permission bits (and, as root, its owner); a new one, or one that replaces a symlink,
    gets 0666 less the umask (never the mode or owner of whatever the link pointed to). In a sticky folder (/tmp,
    a shared drop folder) a file of another user is not copied either: whoever planted it there would otherwise
    own, and could edit, what root writes in its place."""
    try:
        st: os.stat_result | None = os.lstat(target)
    except OSError:
        st = None
    if st is None or stat.S_ISLNK(st.st_mode) or (st.st_uid != os.geteuid() and _sticky(target.parent)):
        os.fchmod(fd, 0o666 & ~_umask())
        return
    os.fchmod(fd, stat.S_IMODE(st.st_mode))
    if os.geteuid() == 0:
        with contextlib.suppress(OSError):
            os.fchown(fd, st.st_uid, st.st_gid)


def _umask() -> int:
    """The process's umask (read by setting it: 077 meanwhile, so a file another thread makes then is only ever
    more private)."""
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


def _sticky(folder: Path) -> bool:
    try:
        return bool(os.stat(folder).st_mode & stat.S_ISVTX)
    except OSError:
        return False


def _fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
    _temps.discard(path)


def _replace(tmp: Path, target: Path, what: str, path: Path) -> None:
    """Rename tmp over target's own name (a symlink there is replaced, not followed), and say so for a link."""
    link = _link_text(target)
    os.replace(tmp, target)
    _temps.discard(tmp)
    _say_link_replaced(what, path, link)


def _name_identity(target: Path) -> tuple[object, ...]:
    """The folder (device, inode) and name a write replaces: two outputs with the same are one file."""
    try:
        st = os.stat(target.parent)
    except OSError:
        return ("path", str(target))
    return (st.st_dev, st.st_ino, target.name)


def _encode(data: str | bytes) -> bytes:
    # a name or title from argv that was not UTF-8 holds lone surrogates: written escaped, not a traceback
    return data if isinstance(data, bytes) else data.encode("utf-8", errors="backslashreplace")


class Batch:
    """Files written together: each staged beside its target (written, fsynced), then all renamed into place when
    the block ends without an error; on any error or signal every staged file is removed and no target changed."""

    def __init__(self) -> None:
        self._staged: list[tuple[Path, Path, str, Path]] = []  # (temp, target, what, path as given)

    def add(self, path: Path, data: str | bytes, what: str) -> None:
        check_target(path, what)
        target = _dest(path)
        if any(_name_identity(target) == _name_identity(t) for _, t, _, _ in self._staged):
            raise InputError(f"{what} {str(path)!r}: written twice in one run")
        try:
            fd, tmp = _create_temp(target)
        except OSError as exc:
            raise InputError(f"{what} {str(path)!r}: cannot write ({exc.strerror})") from None
        self._staged.append((tmp, target, what, path))
        try:
            checkpoint("write")
            _write_all(fd, _encode(data))
            _keep_mode(fd, target)
            os.fsync(fd)
        except OSError as exc:
            raise InputError(f"{what} {str(path)!r}: cannot write ({exc.strerror})") from None
        finally:
            os.close(fd)

    def commit(self) -> None:
        checkpoint("rename")
        with held():
            for tmp, target, what, path in self._staged:
                try:
                    _replace(tmp, target, what, path)
                except OSError as exc:
                    raise InputError(f"{what} {str(path)!r}: cannot write ({exc.strerror})") from None
                written.append(path)
            for directory in dict.fromkeys(t.parent for _, t, _, _ in self._staged):
                _fsync_dir(directory)
            self._staged.clear()

    def discard(self) -> None:
        with held():
            for tmp, _, _, _ in self._staged:
                _remove(tmp)
            self._staged.clear()

    def __enter__(self) -> Batch:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: object) -> None:
        try:
            if kind is None:
                self.commit()
        finally:
            self.discard()  # after a commit, nothing is left to discard


Check = Callable[[str], object]   # reads a file's text as the command that reads the file does; raises if it cannot


def check_loads(path: Path, data: str, what: str, check: Check) -> None:
    """Refuse, before anything is written, a text that the command reading the file would refuse: a file that does
    not load must not replace one that does (an imported catalog with a DEL in a name did; every command then
    failed on it)."""
    try:
        check(data)
    except (BlockfitError, ValueError) as exc:
        reason = " ".join(str(exc).split())[:300]
        raise InputError(f"{what} {str(path)!r}: what would be written does not load ({reason}); nothing was "
                         "written") from None


def write_atomically(path: Path, data: str | bytes, what: str, check: Check | None = None) -> None:
    """Write beside `path` and rename over it; `what` names the option the path came from, for the error. With
    `check` (the reader of the file, on its text), a text that does not load is refused before anything is
    written."""
    if check is not None and isinstance(data, str):
        check_loads(path, data, what, check)
    with Batch() as batch:
        batch.add(path, data, what)


PARTIAL = ".partial"  # a streamed file's name while it is written, when what it holds so far must outlive a kill


def partial_name(path: Path) -> Path:
    """Where `StreamFile(path, keep=True)` writes until its commit: `NAME.partial`, beside the target."""
    target = _dest(path)
    return target.with_name(target.name + PARTIAL)


class StreamFile:
    """A file written line by line while a command runs (diagnose --record, record --pg), each line flushed as it
    comes, renamed into place by commit(); discard() (or a write error) removes it. A write error is an
    InputError.

    By default it is a hidden temp file, removed on any exit. With `keep`, it is `NAME.partial` beside the target:
    not removed on the way out, so a run killed (SIGKILL, the OOM killer, a power cut) leaves what it measured
    there, under a name that says so. An existing `NAME.partial` (an earlier run's) is refused, never replaced."""

    def __init__(self, path: Path, what: str, keep: bool = False) -> None:
        check_target(path, what)
        self.path, self.what, self.target = path, what, _dest(path)
        try:
            fd, self.tmp = _create_partial(self.target, path, what) if keep else _create_temp(self.target)
        except OSError as exc:
            raise InputError(f"{what} {str(path)!r}: cannot write ({exc.strerror})") from None
        self._fh: IO[str] | None = os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace")
        self.lines = 0   # lines written so far

    def _fail(self, exc: OSError) -> InputError:
        self.discard()
        return InputError(f"{self.what} {str(self.path)!r}: cannot write ({exc.strerror})")

    def write(self, text: str) -> None:
        assert self._fh is not None
        try:
            self._fh.write(text)
            self._fh.flush()
        except OSError as exc:
            raise self._fail(exc) from None
        self.lines += text.count("\n")

    def commit(self, check: Callable[[Path], object] | None = None) -> None:
        """Rename the file into place; with `check` (the file's reader, on what was written), a file that does not
        load is not: a temp file is removed, a `.partial` one kept (it holds what was measured)."""
        assert self._fh is not None
        try:
            self._fh.flush()
            _keep_mode(self._fh.fileno(), self.target)
            os.fsync(self._fh.fileno())
        except OSError as exc:
            raise self._fail(exc) from None
        if check is not None:
            self._check(check)
        checkpoint("rename")
        with held():
            fh, self._fh = self._fh, None
            try:
                fh.close()
                _replace(self.tmp, self.target, self.what, self.path)
            except OSError as exc:
                _remove(self.tmp)
                raise InputError(f"{self.what} {str(self.path)!r}: cannot write ({exc.strerror})") from None
            written.append(self.path)
            _fsync_dir(self.target.parent)

    def _check(self, check: Callable[[Path], object]) -> None:
        try:
            check(self.tmp)
        except (BlockfitError, ValueError) as exc:
            reason = " ".join(str(exc).replace(str(self.tmp), "the file").split())[:300]
            kept = f"what was written is kept in {str(self.tmp)!r}" if self.tmp.name.endswith(PARTIAL) else \
                "nothing was written"
            if not self.tmp.name.endswith(PARTIAL):
                self.discard()
            raise InputError(f"{self.what} {str(self.path)!r}: what was written does not load ({reason}); "
                             f"{kept}") from None

    def discard(self) -> None:
        with held():
            if self._fh is not None:
                fh, self._fh = self._fh, None
                with contextlib.suppress(OSError):  # closing flushes: on a full disk that fails too
                    fh.close()
            _remove(self.tmp)


# ---------------------------------------------------------------- owner markers

OWNER = ".blockfit-owner"   # in a staging or scratch folder: "PID START", the process that made it


def _owner() -> str:
    from blockfit.proc import process_start  # here: proc loads ctypes, which only folder-writing commands need

    return f"{os.getpid()} {process_start(os.getpid())}\n"


def mark_owned(folder: Path) -> None:
    """Put this process's owner marker in FOLDER, a folder it has just made (a `tempfile.mkdtemp`)."""
    fd = os.open(folder / OWNER, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        _write_all(fd, _owner().encode("ascii"))
    finally:
        os.close(fd)


def make_owned_dir(path: Path, mode: int = 0o700) -> None:
    """Make folder PATH with an owner marker in it (this process's pid and start time), so a later run can tell
    one left by a process that is gone (SIGKILL, the OOM killer, a power cut) from one of a process still at work.
    Registered, like a temp file: removed on this process's way out unless renamed."""
    with held():
        path.mkdir(mode=mode)
        _register(path)
    mark_owned(path)


def owner_alive(folder: Path) -> bool | None:
    """Whether the process that made FOLDER (its owner marker) still runs: the same pid with the same start time
    (a reused pid has another). None when the folder has no readable marker."""
    from blockfit.proc import process_start

    try:
        with open(folder / OWNER, "rb") as fh:
            pid_text, start_text = fh.read(64).decode("ascii").split()
        pid, start = int(pid_text), int(start_text)
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    return pid > 0 and process_start(pid) == start


def sweep_left_behind(parent: Path, pattern: str, what: str, path: Path) -> None:
    """Remove the folders in PARENT matching PATTERN (a glob) whose owner is gone, with one line each on stderr;
    a folder whose owner still runs is left alone, one without a marker is named, never removed."""
    import glob

    for found in sorted(glob.glob(os.path.join(glob.escape(str(parent)), pattern), include_hidden=True)):
        folder = Path(found)
        try:
            st = os.lstat(folder)
        except OSError:
            continue
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
            continue   # never ours: made with mkdir (never through a link), by this user (/tmp is everyone's)
        alive = owner_alive(folder)
        if alive is False:
            with held():
                shutil.rmtree(folder, ignore_errors=True)
            print(f"blockfit: {what} {str(path)!r}: removed {str(folder)!r}, left by a blockfit that is no longer "
                  "running", file=sys.stderr)
        elif alive is None:
            print(f"blockfit: {what} {str(path)!r}: {str(folder)!r} looks like a folder a blockfit left behind, "
                  "but has no owner marker: remove it if no blockfit is running", file=sys.stderr)


def owner_tag() -> str:
    """This process's pid and start time as a file name part, `PID-START`, for a scratch file that holds no marker
    of its own (a test file fio reads whole)."""
    return _owner().strip().replace(" ", "-")


def sweep_tagged_files(parent: Path, prefix: str, suffix: str, what: str) -> None:
    """Remove the files PREFIX + `PID-START` + SUFFIX in PARENT, of this user, whose owner is gone (one line each);
    a live owner's file, or a name without a tag, is left alone."""
    from blockfit.proc import process_start

    try:
        entries = list(os.scandir(parent))
    except OSError:
        return
    for entry in entries:
        name = entry.name
        if not (name.startswith(prefix) and name.endswith(suffix)):
            continue
        pid_text, _, start_text = name[len(prefix):len(name) - len(suffix)].partition("-")
        if not (pid_text.isdigit() and start_text.isdigit()):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
            continue
        if process_start(int(pid_text)) != int(start_text):
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
                print(f"blockfit: {what}: removed {entry.path!r}, left by a blockfit that is no longer running",
                      file=sys.stderr)


def _disown(folder: Path) -> None:
    """The staging folder becomes the output: its owner marker goes first."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(folder / OWNER)


# ---------------------------------------------------------------- build folders


def _renameat2_exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux renameat2 RENAME_EXCHANGE); False where the system cannot."""
    import ctypes  # here: only `build` swaps folders, and ctypes costs every command's start-up ~2 ms

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        func = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    if func(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(b))


@contextlib.contextmanager
def _folder_lock(target: Path, path: Path, what: str) -> Iterator[None]:
    """An exclusive lock beside the folder, against two builds into it at once; removed on the way out."""
    lock = target.with_name(f".{os.fsdecode(os.fsencode(target.name)[:200])}.blockfit-lock")
    deadline = time.monotonic() + LOCK_WAIT_S
    while True:
        with held():
            try:
                fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            except OSError as exc:
                raise InputError(f"{what} {str(path)!r}: cannot lock ({exc.strerror})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            with contextlib.suppress(OSError):
                if os.fstat(fd).st_ino == os.stat(lock).st_ino:
                    break  # the lock file still has its name: it is ours
        except BlockingIOError:
            pass
        os.close(fd)
        if time.monotonic() > deadline:
            raise EnvironmentProblem(f"{what} {str(path)!r}: another blockfit build has been writing it for "
                                     f"{LOCK_WAIT_S:g} s (lock {str(lock)!r})")
        time.sleep(0.05)
    try:
        yield
    finally:
        with held():
            with contextlib.suppress(OSError):
                os.unlink(lock)
            os.close(fd)


def _previous_build(folder: Path) -> set[str]:
    """The files an earlier build wrote into folder (its manifest); empty if there is none."""
    try:
        lines = (folder / MANIFEST).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return set()
    return {ln for ln in lines if ln and not ln.startswith("#")} | {MANIFEST}


def _carry_over(old: Path, new: Path, ours: set[str], fresh: set[str], path: Path, what: str,
                rel: str = "") -> None:
    """Hard-link into `new` every entry of `old` that no blockfit build wrote: the rebuilt folder keeps the user's
    files (a step log, a terraform state) without copying them, and the old folder can then be removed whole."""
    for entry in sorted(os.scandir(old / rel if rel else old), key=lambda e: e.name):
        name = f"{rel}/{entry.name}" if rel else entry.name
        if entry.is_dir(follow_symlinks=False):
            if name in fresh:
                raise InputError(f"{what} {str(path)!r}: {name} is a directory; the build writes a file there")
            (new / name).mkdir(exist_ok=True)
            shutil.copymode(entry.path, new / name)
            _carry_over(old, new, ours, fresh, path, what, name)
            if not any((new / name).iterdir()) and any(f.startswith(name + "/") for f in ours):
                (new / name).rmdir()  # emptied of the previous build's files: it was that build's folder
            continue
        if name in fresh or name in ours:
            continue  # replaced by the new build, or a file of the previous one
        if any(f.startswith(name + "/") for f in fresh):
            raise InputError(f"{what} {str(path)!r}: {name} is a file; the build needs a directory there")
        try:
            os.link(entry.path, new / name, follow_symlinks=False)
        except OSError as exc:
            raise InputError(f"{what} {str(path)!r}: cannot keep {name} in the rebuilt folder ({exc.strerror}); "
                             "move it away or choose an empty folder") from None


def replace_folder(path: Path, files: Sequence[tuple[str, str | bytes, int]], what: str, force: bool) -> None:
    """Write `files` (relative path, content, mode) as the folder `path`, whole: assembled in a hidden sibling and
    renamed into place (a new folder) or exchanged with the old one (--force: the old build's own files go, the
    user's other files are kept). Refuses a non-empty folder without force, and the current directory or one that
    contains it (a shell left in the removed old folder sees nothing). A symlink at `path` is replaced by the new
    folder; the folder it pointed to is not touched. Parents are created as needed."""
    target = _dest(path)
    _refuse_cwd(target, path, what)
    if os.path.lexists(target) and not target.is_symlink() and not target.is_dir():
        raise InputError(f"{what} {str(path)!r}: exists and is not a directory")
    ancestor = target.parent if os.path.lexists(target.parent) else _first_existing_ancestor(target.parent)
    if not ancestor.is_dir():
        raise InputError(f"{what} {str(path)!r}: {str(ancestor)!r} is a file, not a directory")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise InputError(f"{what} {str(path)!r}: directory {str(ancestor)!r} is not writable")
    created: list[Path] = []
    try:
        with held():
            for parent in reversed(target.parents):
                if not os.path.lexists(parent):
                    parent.mkdir()
                    created.append(parent)
        with _folder_lock(target, path, what):
            _assemble_and_swap(target, files, path, what, force)
        created.clear()
    except OSError as exc:
        raise InputError(f"{what} {str(path)!r}: cannot write ({exc.strerror})") from None
    finally:
        with held():
            for parent in reversed(created):  # what was made for a build that did not happen
                with contextlib.suppress(OSError):
                    parent.rmdir()


def _refuse_cwd(target: Path, path: Path, what: str) -> None:
    """A build folder is swapped in whole and the old one removed: never the root, the current directory or a
    folder that holds it (`build --out . --force` left the caller's shell in a deleted folder)."""
    if target == Path(target.anchor or "/"):
        raise InputError(f"{what} {str(path)!r}: is the root directory; choose a folder for the build")
    try:
        cwd = Path(os.getcwd())
    except OSError:  # the current directory is gone already: nothing to protect
        return
    if target == cwd or target in cwd.parents:
        where = "is the current directory" if target == cwd else f"contains the current directory {str(cwd)!r}"
        raise InputError(f"{what} {str(path)!r}: {where}; the build replaces its folder whole, which would leave "
                         "this shell in a deleted folder: choose another folder, or cd out of it first")


def _assemble_and_swap(target: Path, files: Sequence[tuple[str, str | bytes, int]], path: Path, what: str,
                       force: bool) -> None:
    link = _link_text(target)  # a symlink is replaced by the folder, like a missing one
    exists = link is None and target.is_dir()
    if exists and not force:
        _refuse_not_empty(target, path, what)
    fresh = {name for name, _, _ in files}
    stem = glob_stem(target)
    for kind in ("build", "old"):   # under the folder's lock: left by a build into this folder that was killed
        sweep_left_behind(target.parent, f".{stem}.*.{kind}", what, path)
    tmp = _temp_name(target, "build")
    make_owned_dir(tmp)
    try:
        _write_files(tmp, files)
        listing = "# files written by blockfit build; build --force replaces them, and only them\n"
        (tmp / MANIFEST).write_text(listing + "".join(f"{name}\n" for name in sorted(fresh)), encoding="utf-8")
        if exists:
            _carry_over(target, tmp, _previous_build(target), fresh | {MANIFEST}, path, what)
            _take_mode_and_owner(target, tmp)
        else:
            os.chmod(tmp, 0o777 & ~_umask())
        checkpoint("rename")
        with held():
            _disown(tmp)
            _fsync_dir(tmp)
            if not exists and link is None:
                os.rename(tmp, target)  # onto nothing, or onto an empty folder made meanwhile
                _temps.discard(tmp)
            else:
                _swap_onto(tmp, target)
            _say_link_replaced(what, path, link)
            written.append(path)
            _fsync_dir(target.parent)
    finally:
        with held():
            if tmp in _temps:  # an unfinished build, or the old folder exchanged out
                _remove(tmp)


def _refuse_not_empty(target: Path, path: Path, what: str) -> None:
    """Without --force a build goes only into a new or empty folder: the user's files there are never at risk."""
    with os.scandir(target) as entries:
        if any(entries):
            raise InputError(f"{what} {str(path)!r}: directory is not empty; choose another or pass --force")


def _write_files(tmp: Path, files: Sequence[tuple[str, str | bytes, int]]) -> None:
    """Each file of the build into the hidden folder, created afresh (never through a link planted there) and
    synced, so the folder renamed into place holds every byte."""
    for name, data, mode in files:
        dest = tmp / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        try:
            checkpoint("write")
            _write_all(fd, _encode(data))
            os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)


def _take_mode_and_owner(target: Path, tmp: Path) -> None:
    """The rebuilt folder keeps the old one's mode, and (when root can) its owner: --force replaces the contents,
    not who may read them."""
    st = os.stat(target)
    os.chmod(tmp, stat.S_IMODE(st.st_mode))
    if os.geteuid() == 0 and (st.st_uid, st.st_gid) != (os.getuid(), os.getgid()):
        os.chown(tmp, st.st_uid, st.st_gid)


def _swap_onto(tmp: Path, target: Path) -> None:
    """Put the new folder at `target`, where an old folder (or a link) is: exchanged in one step where the kernel
    can (the old folder then has the temp name, removed by the caller), else the old one is renamed aside first
    and put back if the new one cannot take its place."""
    if _renameat2_exchange(tmp, target):
        return
    aside = _temp_name(target, "old")
    os.rename(target, aside)
    _register(aside)
    with contextlib.suppress(OSError):   # the old folder, removed below: a kill before leaves it marked
        (aside / OWNER).write_text(_owner(), encoding="ascii")
    try:
        os.rename(tmp, target)
    except OSError:
        _disown(aside)
        os.rename(aside, target)
        _temps.discard(aside)
        raise
    _temps.discard(tmp)
    _remove(aside)  # the old folder, or the replaced link (removed itself, not what it named)

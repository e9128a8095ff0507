"""The supervisor each adapter process runs under: it outlives no descendant of the adapter, setsid or not.

Run as a script (``python -I -S reaper.py PARENT_PID PROGRAM ARG...``, standard library only): it makes
itself a child subreaper (Linux ``prctl(PR_SET_CHILD_SUBREAPER)``), so every process the adapter starts,
even one that calls ``setsid`` or double-forks, stays its descendant when its parent exits.  It starts
the program on its own stdin, stdout and stderr and waits for it; when the program exits, or rofl asks
it to stop (SIGTERM), or rofl itself goes away (``PR_SET_PDEATHSIG``), it kills every descendant
(walking ``/proc``), reaps them, and exits with the program's code.  So nothing an adapter started holds
its output open after it exits, and nothing survives rofl.  Without ``prctl`` and ``/proc`` (not Linux)
only the process group rofl kills is stopped.
"""

from __future__ import annotations

import os
import signal
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
CANNOT_START = 127


def _prctl(option: int, value: int) -> bool:
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def descendants(root: int) -> list[int]:
    """Every process whose parent chain leads to ``root`` (read from /proc), children first."""
    parents: dict[int, list[int]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()  # after "pid (comm) ": state, ppid, ...
        if len(fields) > 1:
            parents.setdefault(int(fields[1]), []).append(int(name))
    out: list[int] = []
    todo = [root]
    while todo:
        kids = parents.get(todo.pop(), [])
        out.extend(kids)
        todo.extend(kids)
    return out


def kill_descendants(me: int) -> None:
    """Kill and reap every descendant of ``me`` until none is left."""
    while True:
        for pid in descendants(me):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            return
        time.sleep(0.005)


class Stop(Exception):
    """rofl asked the supervisor to stop (SIGTERM), or went away."""


def _stop(signum: int, frame: object) -> None:
    raise Stop


def main(argv: list[str]) -> int:
    parent, program = int(argv[0]), argv[1:]
    me = os.getpid()
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    signal.signal(signal.SIGTERM, _stop)
    _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    code = CANNOT_START
    try:
        if os.getppid() != parent:  # rofl went away before the death signal was armed
            raise Stop
        child = os.fork()
        if child == 0:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            try:
                os.execvp(program[0], program)
            except OSError as exc:
                os.write(2, f"cannot start {program[0]!r} ({exc.strerror or exc})\n".encode())
            os._exit(CANNOT_START)
        _, status = os.waitpid(child, 0)
        code = os.waitstatus_to_exitcode(status)
    except (Stop, OSError):
        pass
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    for fd in (0, 1, 2):  # rofl sees the end of output once the program and its descendants are gone
        try:
            os.close(fd)
        except OSError:
            pass
    kill_descendants(me)
    if code < 0:  # the program died of a signal: so does its supervisor, and rofl reads the same code
        signal.signal(-code, signal.SIG_DFL)
        os.kill(me, -code)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

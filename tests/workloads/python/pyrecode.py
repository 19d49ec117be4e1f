"""pyrecode - one function object whose code is replaced in a loop, as a
code reloader or patcher does: rounds make work's code, alternately, a
new copy of work in heavy.py (3 units of CPU a call) and one of work in
light.py (1 unit), the same name and first line; each is called 300
times through one call site, and dropped before the next is made,
which then takes its memory. CPython 3.11 sets work's version back to
0 at each change of code, and numbers it again once the call in call()
is specialized to it again. Names its process pyrecode. With "thread",
all that runs in a thread of its own, not the main one: its frees are
the process's as much.
    python3 pyrecode.py SECONDS [thread]
"""
import sys
import threading
import time
from time import thread_time  # noqa: F401 (the global of work's code)

# n seconds of the thread's CPU time, by time (pydie.py says why)
BODY = ("    s = 0\n    end = thread_time() + n\n    while thread_time() < end:\n"
        "        for k in range(50):\n            s += k\n    return s\n")
CALLS = 300
UNIT = 0.00005


def work(n):
    return 0


def idle(n):
    return 0


def call(n):
    return work(n)


def main():
    with open("/proc/thread-self/comm", "w") as f:
        f.write("pyrecode")
    # the code of work in each file: the first constant of its module's
    heavy = compile("def work(n):\n" + BODY, "heavy.py", "exec").co_consts[0]
    light = compile("def work(n):\n" + BODY, "light.py", "exec").co_consts[0]
    end = time.monotonic() + float(sys.argv[1])
    i = 0
    while time.monotonic() < end:
        i += 1
        code, units = (heavy, 3) if i % 2 else (light, 1)
        # the last copy freed first: the next one is made in its memory
        work.__code__ = idle.__code__
        work.__code__ = code.replace()
        for _ in range(CALLS):
            call(units * UNIT)


if sys.argv[2:] == ["thread"]:
    t = threading.Thread(target=main)
    t.start()
    t.join()
else:
    main()

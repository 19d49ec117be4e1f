"""pythreads - two threads running Python at once (the GIL hands over
between them), each in its own function, each naming itself: pyth_a runs
spin_a, pyth_b runs spin_b; and a third, pyth_c, in in_c, mostly in zlib
with the GIL released, so on a CPU at the same time as the one holding
it; the main thread waits for them.
    python3 pythreads.py SECONDS
"""
import os
import sys
import threading
import time
import zlib


def name_thread(name):
    with open("/proc/thread-self/comm", "w") as f:
        f.write(name)


def spin_a(end):
    s = 0
    while time.monotonic() < end:
        for i in range(1000):
            s += i
    return s


def spin_b(end):
    s = 0
    while time.monotonic() < end:
        for i in range(1000):
            s += i
    return s


def in_c(end):
    data = os.urandom(4 << 20)  # random: tens of ms in zlib a call
    while time.monotonic() < end:
        zlib.compress(data, 9)


def thread_a(end):
    name_thread("pyth_a")
    spin_a(end)


def thread_b(end):
    name_thread("pyth_b")
    spin_b(end)


def thread_c(end):
    name_thread("pyth_c")
    in_c(end)


def main():
    name_thread("pyth_main")
    end = time.monotonic() + float(sys.argv[1])
    threads = [threading.Thread(target=thread_a, args=(end,)),
               threading.Thread(target=thread_b, args=(end,)),
               threading.Thread(target=thread_c, args=(end,))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


main()

"""pythreads - two threads running Python at once (the GIL hands over
between them), each in its own function, each naming itself: pyth_a runs
spin_a, pyth_b runs spin_b; the main thread waits for both.
    python3 pythreads.py SECONDS
"""
import sys
import threading
import time


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


def thread_a(end):
    name_thread("pyth_a")
    spin_a(end)


def thread_b(end):
    name_thread("pyth_b")
    spin_b(end)


def main():
    name_thread("pyth_main")
    end = time.monotonic() + float(sys.argv[1])
    threads = [threading.Thread(target=thread_a, args=(end,)),
               threading.Thread(target=thread_b, args=(end,))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


main()

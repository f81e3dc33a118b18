"""Barriers for the tests' local servers (server.py, feed_server.py): a request of group G is held until N of
the group have arrived, so that N were in flight at once; a group not complete within 20 s is broken, and its
requests (those waiting, and any later one) are let go at once, so a client that sends one at a time fails in
20 s rather than hanging. A readiness wait on a condition, never a sleep."""
import threading

GROUPS = {}
ARRIVED = threading.Condition()


def barrier(group, n):
    """Waits for the group's Nth arrival; True when it came, False when the group is broken."""
    with ARRIVED:
        state = GROUPS.setdefault(group, {"arrived": 0, "broken": False})
        state["arrived"] += 1
        ARRIVED.notify_all()
        if not ARRIVED.wait_for(lambda: state["arrived"] >= n or state["broken"], timeout=20):
            state["broken"] = True
            ARRIVED.notify_all()
        return not state["broken"]

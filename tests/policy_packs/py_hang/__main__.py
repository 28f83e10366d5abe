"""A pack that never serves: it blocks before its PolicyPack starts."""

import threading

threading.Event().wait()

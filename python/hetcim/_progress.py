"""The ``progress`` keyword of the long calls: a callable ``progress(done, total)``, called on the
caller's thread after the call's steps (python/interrupt.h hands them over every 50 ms); None: a
tqdm bar (tqdm.auto: a widget in Jupyter) when tqdm is installed and someone watches (stderr is a
terminal, or a Jupyter kernel runs), else nothing; True: a tqdm bar; False: nothing."""

import sys


class _Bar:
    """A tqdm bar fed (done, total); close() ends it."""

    def __init__(self, what):
        self.what, self.bar = what, None

    def __call__(self, done, total):
        if self.bar is None:
            from tqdm.auto import tqdm  # noqa: PLC0415  (optional)
            self.bar = tqdm(total=total, desc=self.what, leave=False)
        if self.bar.total != total:
            self.bar.total = total
        self.bar.update(done - self.bar.n)

    def close(self):
        if self.bar is not None:
            self.bar.refresh()  # the last count is drawn even within tqdm's redraw interval
            self.bar.close()


def _have_tqdm():
    try:
        import tqdm  # noqa: F401, PLC0415
    except ImportError:
        return False
    return True


def _watched():
    return "ipykernel" in sys.modules or (hasattr(sys.stderr, "isatty") and sys.stderr.isatty())


def resolve(progress, what):
    """(the callable to hand to the binding or None, a closer to call when the call ends)."""
    if progress is False or (progress is None and not _watched()):
        return None, lambda: None
    if progress is None or progress is True:
        if not _have_tqdm():
            if progress is True:
                raise ImportError("progress=True draws a tqdm bar: install tqdm "
                                  "(Debian: python3-tqdm), or pass progress=callable")
            return None, lambda: None
        bar = _Bar(what)
        return bar, bar.close
    if not callable(progress):
        raise TypeError("progress: expected a callable progress(done, total), True, False or None")
    return progress, lambda: None


def call(func, what, progress, *args, **kwargs):
    """func(*args, **kwargs, progress=...) with the keyword resolved, the bar closed after."""
    cb, close = resolve(progress, what)
    try:
        if cb is not None:
            kwargs["progress"] = cb
        return func(*args, **kwargs)
    finally:
        close()

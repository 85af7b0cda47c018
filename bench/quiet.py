"""
quiet.py
    scipy's L-BFGS-B (Fortran) writes "ascent direction in projection" to
    unit 6 when a finite-difference gradient is slightly off; the Fortran
    runtime buffers it and flushes at exit, so it cannot be caught around the
    call.  The scikit-learn GP-EI baseline therefore runs in worker processes
    whose file descriptor 1 goes to /dev/null (they print nothing else).
"""
import os


def silence_stdout():
    """Pool initializer: send this process's fd 1 to /dev/null."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)

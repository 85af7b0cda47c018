"""
runinfo.py
    What a benchmark run records about where it ran: the commit, the load
    average and the tuner.so the server actually loaded.
"""
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))


def git_info():
    def git(*args):
        try:
            return subprocess.run(["git", "-C", HERE] + list(args), capture_output=True, text=True,
                                  check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return None
    return {"commit": git("rev-parse", "--short", "HEAD"), "subject": git("log", "-1", "--format=%s"),
            "dirty": bool(git("status", "--porcelain", "--untracked-files=no"))}


def loadavg():
    try:
        with open("/proc/loadavg") as fh:
            return fh.read().split()[:3]
    except OSError:
        return None


def loaded_library(conn):
    """The tuner.so the server's backend actually mapped (its
    /proc/<pid>/maps, readable when the server is local and ours, e.g.
    pg_virtualenv as root; a private DESTDIR through extension_destdir is
    found this way), else pg_config --pkglibdir's."""
    with conn.cursor() as cur:
        cur.execute("SELECT pg_backend_pid()")
        pid = cur.fetchone()[0]
        # Make sure the library is loaded in this backend.
        cur.execute("SELECT tuner.gp_log_likelihood('{\"lengthscales\": [1], \"outputscale\": 1, "
                    "\"noise\": 0.1, \"mean\": 0, \"x\": [[0]], \"y\": [0]}'::jsonb)")
    try:
        with open("/proc/%d/maps" % pid) as fh:
            for line in fh:
                path = line.split()[-1]
                if path.endswith("/tuner.so"):
                    return path
    except OSError:
        pass
    try:
        libdir = subprocess.run(["pg_config", "--pkglibdir"], capture_output=True, text=True,
                                check=True).stdout.strip()
        return os.path.join(libdir, "tuner.so")
    except (OSError, subprocess.CalledProcessError):
        return None

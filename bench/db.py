"""
db.py
    The benchmarks' database connection: psycopg2 from the PG* environment
    variables (pg_virtualenv sets them), autocommit, extension present.
"""
import psycopg2


def connect():
    """A psycopg2 connection from the PG* environment variables."""
    conn = psycopg2.connect("")
    conn.autocommit = True
    with conn.cursor() as cur:
        cur.execute("CREATE EXTENSION IF NOT EXISTS tuner")
    return conn

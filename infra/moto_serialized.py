"""moto server (PyPI `moto[server]`) with one request at a time.

DynamoDB applies each conditional write atomically; moto's threaded server does not (two
concurrent `UpdateItem ADD` calls can both read the old value), which would make the tests of
single-use codes and counters flaky for the emulator's sake. This runs moto's own WSGI app in
werkzeug's threaded server (keep-alive connections stay cheap) behind one lock, so each request
is handled whole before the next: the atomicity DynamoDB gives.

usage: moto_serialized.py HOST PORT
"""
import sys
import threading

from moto.moto_server.werkzeug_app import (
    DomainDispatcherApplication,
    create_backend_app,
)
from werkzeug.serving import run_simple


def main() -> None:
    host, port = sys.argv[1], int(sys.argv[2])
    app = DomainDispatcherApplication(create_backend_app)
    lock = threading.Lock()

    def serialized(environ, start_response):
        with lock:
            # Run the whole response (body included) under the lock.
            return [b"".join(app(environ, start_response))]

    run_simple(host, port, serialized, threaded=True)


if __name__ == "__main__":
    main()

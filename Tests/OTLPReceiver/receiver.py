#!/usr/bin/env python3
"""An OTLP/HTTP receiver for the tests: decodes what it is sent with the official OTLP protobuf definitions
(the `opentelemetry-proto` package) and keeps it for the test to read back.

It listens on 127.0.0.1 only, on a port the system picks, and prints `port <N>` as its first line.

- POST /v1/logs, /v1/metrics, /v1/traces: decoded as ExportLogsServiceRequest, ExportMetricsServiceRequest,
  ExportTraceServiceRequest; answered 200 with an empty response message. A body that does not decode is
  answered 400 and recorded as an error.
- POST /status/<code>/v1/...: answered <code> without decoding (a collector that refuses).
- POST /silent/v1/...: read and never answered, until the receiver exits (a collector that hangs).
- GET /received: every decoded request so far, as JSON: [{"signal": "logs", "request": {...}}, ...], in the
  protobuf JSON mapping (bytes fields such as trace ids as base64), plus "errors".
- It exits when its standard input closes (the test ended) or after --lifetime seconds.
"""
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

try:
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.proto.collector.logs.v1 import logs_service_pb2
    from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2
    from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
except ImportError as error:
    print(f"missing {error.name}: install the official OTLP definitions with "
          f"`python3 -m pip install opentelemetry-proto`", flush=True)
    sys.exit(3)

SIGNALS = {
    "/v1/logs": ("logs", logs_service_pb2.ExportLogsServiceRequest, logs_service_pb2.ExportLogsServiceResponse),
    "/v1/metrics": ("metrics", metrics_service_pb2.ExportMetricsServiceRequest,
                    metrics_service_pb2.ExportMetricsServiceResponse),
    "/v1/traces": ("traces", trace_service_pb2.ExportTraceServiceRequest,
                   trace_service_pb2.ExportTraceServiceResponse),
}

received = []
errors = []
lock = threading.Lock()
done = threading.Event()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, format, *args):
        pass

    def answer(self, status, body=b"", content_type="application/x-protobuf"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        path = self.path
        if path.startswith("/silent/"):
            done.wait()
            return
        if path.startswith("/status/"):
            self.answer(int(path.split("/")[2]), b"refused by the test")
            return
        if path not in SIGNALS:
            self.answer(404)
            return
        signal, request_type, response_type = SIGNALS[path]
        if self.headers.get("Content-Encoding", "") not in ("", "identity"):
            with lock:
                errors.append(f"{path}: compressed body ({self.headers.get('Content-Encoding')})")
            self.answer(400)
            return
        request = request_type()
        try:
            request.ParseFromString(body)
        except Exception as error:  # a body that does not decode is the test's failure, not the receiver's
            with lock:
                errors.append(f"{path}: {error}")
            self.answer(400)
            return
        with lock:
            received.append({"signal": signal, "contentType": self.headers.get("Content-Type", ""),
                             "request": MessageToDict(request)})
        self.answer(200, response_type().SerializeToString())

    def do_GET(self):
        if self.path != "/received":
            self.answer(404)
            return
        with lock:
            body = json.dumps({"received": received, "errors": errors}).encode()
        self.answer(200, body, "application/json")


def main():
    lifetime = 600.0
    if "--lifetime" in sys.argv:
        lifetime = float(sys.argv[sys.argv.index("--lifetime") + 1])
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"port {server.server_address[1]}", flush=True)
    # Ends with the test: when stdin closes, or after the lifetime.
    threading.Thread(target=lambda: (sys.stdin.read(), done.set()), daemon=True).start()
    done.wait(lifetime)
    server.shutdown()


if __name__ == "__main__":
    main()

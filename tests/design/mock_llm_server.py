#!/usr/bin/env python3
"""A scripted OpenAI-compatible chat-completions server for ktune design's tests (loopback only).

    mock_llm_server.py SCRIPT.json REQUESTS.jsonl [--port-file FILE] [--lifetime SECONDS]

SCRIPT.json is a list of steps, served in order, one per request: {"content": "..."} answers with a chat completion
(content may also be null or a list of {"type": "text", "text": ...} parts; with "stream": true it is sent as a
server-sent event stream of chat.completion.chunk deltas, as some servers answer whatever the request says),
{"status": 429} (or any other status,
optionally with "body" and "retry_after") answers with that error. Past the end of the script
the last step repeats. Every request's JSON body is appended to REQUESTS.jsonl with the status served. The server
listens on 127.0.0.1 on a free port, writes the port to --port-file, and exits by itself after --lifetime seconds.
"""
import argparse
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("script")
    parser.add_argument("requests")
    parser.add_argument("--port-file")
    parser.add_argument("--lifetime", type=float, default=600)
    parser.add_argument("--path", default=None, help="serve only this path (others are 404, not counted)")
    args = parser.parse_args()
    with open(args.script) as f:
        steps = json.load(f)
    lock = threading.Lock()
    state = {"next": 0}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_POST(self):
            length = int(self.headers.get("Content-Length", 0))
            body = self.rfile.read(length)
            if (args.path and self.path != args.path) or not self.path.endswith("/chat/completions"):
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            with lock:
                step = steps[min(state["next"], len(steps) - 1)]
                state["next"] += 1
                index = state["next"] - 1
            try:
                request = json.loads(body)
            except ValueError:
                request = {"unparsable": body.decode(errors="replace")}
            status = step.get("status", 200)
            with lock, open(args.requests, "a") as f:
                f.write(json.dumps({"index": index, "path": self.path, "status": status,
                                    "authorization": self.headers.get("Authorization"),
                                    "request": request}) + "\n")
            if status == 200:
                payload = {"id": f"mock-{index}", "object": "chat.completion", "model": request.get("model", "mock"),
                           "choices": [{"index": 0, "finish_reason": "stop",
                                        "message": {"role": "assistant", "content": step["content"]}}],
                           "usage": {"prompt_tokens": 100, "completion_tokens": 50, "total_tokens": 150}}
            else:
                payload = step.get("body", {"error": {"message": f"mock status {status}"}})
            content_type = "application/json"
            if status == 200 and step.get("stream"):
                text = step["content"] or ""
                pieces = [text[i:i + 37] for i in range(0, len(text), 37)]
                chunks = [{"id": f"mock-{index}", "object": "chat.completion.chunk", "model": payload["model"],
                           "choices": [{"index": 0, "delta": {"role": "assistant", "content": piece}}]}
                          for piece in pieces]
                chunks.append({"id": f"mock-{index}", "object": "chat.completion.chunk", "model": payload["model"],
                               "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                               "usage": payload["usage"]})
                data = "".join(f"data: {json.dumps(c)}\r\n\r\n" for c in chunks).encode() + b"data: [DONE]\n\n"
                content_type = "text/event-stream"
            else:
                data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            if "retry_after" in step:
                self.send_header("Retry-After", str(step["retry_after"]))
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as f:
            f.write(str(server.server_address[1]))
        import os
        os.replace(args.port_file + ".tmp", args.port_file)
    timer = threading.Timer(args.lifetime, server.shutdown)
    timer.daemon = True
    timer.start()
    server.serve_forever()


if __name__ == "__main__":
    main()

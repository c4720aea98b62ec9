"""Serve a folder on 127.0.0.1 with the right MIME type for .wasm/.mjs and no caching."""
import http.server
import sys
from functools import partial


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".js": "text/javascript",
        ".mjs": "text/javascript",
        ".json": "application/json",
    }

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, *args):
        pass


def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8080
    root = sys.argv[2] if len(sys.argv) > 2 else "www"
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), partial(Handler, directory=root))
    server.serve_forever()


if __name__ == "__main__":
    main()

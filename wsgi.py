"""WSGI entry point: `flask --app wsgi run`, or any WSGI server (waitress, gunicorn)."""
import sys

from webapp import create_app
from webapp.config import ConfigError

try:
    app = create_app()
except ConfigError as e:  # one line, exit status 2: the server must not start (LISTOK_ENV=production)
    print(f"listok: {e}", file=sys.stderr)
    raise SystemExit(2) from None

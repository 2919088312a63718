"""WSGI entry point: `flask --app wsgi run`, or any WSGI server (waitress, gunicorn)."""
from webapp import create_app

app = create_app()

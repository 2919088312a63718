"""The server process around the app: gunicorn's settings, admission control of the phones'
writes, the group commit of their sheets, and the supervised replica of the venue's
database. Above the services it calls; the views and the sync routes use it."""

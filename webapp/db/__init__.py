"""The database below the services: connection settings (SQLite's durability and write
lock, PostgreSQL's pool), the schema's check against the migrations, and the Alembic
migrations themselves (migrations/)."""

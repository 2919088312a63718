"""`python -m webapp.cli`, as the tests and benchmarks start the server."""
from .main import main

main()

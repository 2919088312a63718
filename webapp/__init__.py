"""Listok: the digital score sheet and tournament engine for mariáš."""


def create_app(config=None):
    """The Flask app factory.

    Flask and its extensions are imported here, not at package import, so the
    `listok` computing commands (which only need `webapp.rules`) start fast.
    """
    from .factory import build_app

    return build_app(config)

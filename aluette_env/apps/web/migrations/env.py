"""Alembic's environment for the web game's database (:mod:`..store`).

The server runs the migrations itself (:meth:`~aluette_env.apps.web.store.Database.upgrade`,
which hands its connection over in ``config.attributes``); a developer may
also run ``alembic`` with ``-x url=sqlite:///games.db``.
"""

from alembic import context
from sqlalchemy import create_engine

from aluette_env.apps.web.store import Base

connection = context.config.attributes.get("connection")
if connection is None:
    engine = create_engine(context.get_x_argument(as_dictionary=True)["url"])
    with engine.begin() as connection:
        context.configure(connection=connection, target_metadata=Base.metadata)
        with context.begin_transaction():
            context.run_migrations()
else:
    context.configure(connection=connection, target_metadata=Base.metadata)
    with context.begin_transaction():
        context.run_migrations()

"""Applications: the ``eval`` and ``ratings`` commands (:mod:`.cli`; the command
line itself is :mod:`aluette_env.commands`) and the games for
people: one game flow and its words (:mod:`.session`), shown in the terminal
(:mod:`.terminal`, ``aluette play``) and in the browser (:mod:`.web`,
``aluette serve``), with the coach beside them (:mod:`.coach`: hints and deal
reviews by the expert; :mod:`.review`, ``aluette review MATCH.json``).

May import: everything in :mod:`aluette_env`; rich for the terminal. Never
torch: training commands come from the ``training`` package through the
``aluette.commands`` entry points.
"""

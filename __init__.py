"""tilecam: an overhead camera that records a tournament Scrabble game.

The repository's top-level folders are installed as one namespace (pyproject.toml maps
``tilecam`` to this folder): ``tilecam.capture -> tilecam.vision -> tilecam.scoring ->
tilecam.api``, with ``tilecam.models`` (training) and ``tilecam.hardware`` beside them.
"""

"""The PostgreSQL channels commits are announced on: one per group of scenes, so that a process
hears of the commits of the scenes it holds (and of the others that share their groups), not of
every commit of the database.

The store (``server.store.postgres``) says ``NOTIFY justicar_commits_G, 'SEQ SCENE'`` inside each
append's transaction; the feed (``server.notify.Listener``) ``LISTEN``s to the groups of the scenes
its process holds. Both take the group from here, so they cannot disagree.

The group is the scene id's CRC-32 (the same in every process and every Python, unlike ``hash``)
modulo ``GROUPS``. It is the scene's alone: an append names its scene and nothing else, so the
store cannot know, without a read, the game night a scene belongs to; a night and its scenes fall
in groups of their own (a process holding a night's scene loads the night too, and listens to both).
"""

from __future__ import annotations

import zlib

GROUPS = 1024
"""How many groups scenes are spread over. A process holding ``n`` scenes listens to about
``GROUPS * (1 - (1 - 1/GROUPS) ** n)`` groups and so hears, besides its own scenes' commits, that
share of the others': with 1024 groups, 5 % for 50 scenes held, 39 % for 500; with 64 groups it
would be 54 % and 100 %. More groups cost the database little: each listening session already
looks at every announcement of the database (PostgreSQL wakes every listener per commit and drops
other channels' announcements in the server), and checks its channels by a list scan: about 20 µs
of the server's CPU per commit per listening session, 30 µs listening to 1024 channels, 37 µs to
4096 (``benchmarks/announcements.py --server-cost``; a process listens to at most as many groups
as it holds scenes). Changing it
is an upgrade like any change of channel: processes of both numbers find each other's commits by
their sweep only (docs/deploy.md, "Announcements")."""
PREFIX = "justicar_commits_"
LEGACY = "justicar_commits"
"""The one channel of Justicar before the groups: no longer said nor listened to (docs/deploy.md)."""


def group(scene: str) -> int:
    """The group of ``scene``'s announcements (stable across processes, machines and versions)."""
    return zlib.crc32(scene.encode()) % GROUPS


def channel(scene: str) -> str:
    """The channel ``scene``'s commits are announced on."""
    return f"{PREFIX}{group(scene)}"


def channel_of(group: int) -> str:
    """The channel of one group (an identifier: no quoting needed)."""
    return f"{PREFIX}{group}"

"""`ludica serve`: the live web application over stage folders and run folders (Starlette, run by
uvicorn): stages, runs as they go, replays. create_app builds it; sort_folders says which folder
is which."""
from .app import LOOPBACK_NAMES, create_app
from .folders import Folders, sort_folders
from .play import PlayRoom

__all__ = ["LOOPBACK_NAMES", "Folders", "PlayRoom", "create_app", "sort_folders"]

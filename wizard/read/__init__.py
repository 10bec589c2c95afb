"""Reading a home: which homes and profiles (`homes`), and everything on disk that decides what
the gateway does, read once into a `Snapshot` (`snapshot`), parsed as the judged Hermes parses it.
"""

"""Hermes 0.19.0: its `model` (its answers to the version seam, wizard/hermes/model.py) and its data
(`env_keys.txt`, the `.env` names it knows).  The shared loader (wizard/hermes/loader/, access/) is the
default every model builds on; older versions' packages override what they decided differently.
"""

"""Hermes 0.17.0: `model` (what differs from 0.18.0), `loader` and `authz` (the 0.17 pieces of them)."""

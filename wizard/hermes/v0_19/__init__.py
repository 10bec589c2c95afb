"""Hermes 0.19.0's gateway loader, re-implemented (never imported): its platforms (`catalog`),
`.env` loading (`envfile`, `env_keys.txt`), `config.yaml` reading (`yamlfile`), the loader
(`resolve`, `envrules`, `plugins`, `state`), the startup rule (`gate`), transports on disk
(`credentials`) — and `model`, its answers to the version seam (wizard/hermes/model.py).
Older versions reuse these pieces and override what changed.
"""

"""The shared gateway loader every modelled Hermes runs, re-implemented (never imported): the contract's default.

What Hermes builds from a home: its platforms (`catalog`), `.env` loading (`envfile`), `config.yaml`
reading (`yamlfile`), legacy gateway.json (`gwdata`), the loader's values (`state`), the pipeline
(`resolve`, `envrules`, `plugins`), the startup rule (`gate`), transports on disk (`credentials`) and
hermes-wizard's keyring source as Hermes applies it (`secret_sources`).

Wherever versions differ, this code asks a `Model` (wizard/hermes/model.py) and the version's package
(wizard/hermes/v<major>_<minor>/) answers.  Nothing here imports a version package: which version
judges is the caller's choice (`models.model_for(judgement)`), the newest modelled when none is given.
"""

"""``label-audit demo --labelstudio``: the whole loop on one machine, offline, in one command.

Label Studio (source and review instances), Redis, the ML backend and a worker run as background
processes whose pids, logs and secrets live under ``<home>/demo/``; a sample project is scored through
the queue, its suspects go to a blind review, the HTML report is written, and ``--stop`` ends it all.

- :mod:`backend.demo.home`: the folder layout, the per-machine secrets (0600) and the saved state;
- :mod:`backend.demo.processes`: background processes recorded by pid and start time;
- :mod:`backend.demo.services`: start or reuse each service;
- :mod:`backend.demo.project`: the sample project, the model connection, the demo experts;
- :mod:`backend.demo.run`: the steps in order, and what to open.
"""

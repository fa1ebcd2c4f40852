"""The settings of a run or deployment, resolved once at an edge (a command, the web app factory, a worker's start) and passed down."""

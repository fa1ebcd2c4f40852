"""The ground floor: pieces every layer uses (defaults, the environment, labels, record files, safe output), importing nothing else of label-audit."""

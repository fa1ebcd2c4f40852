"""Pure statistics: agreement, aggregation, error-rate bounds and intervals, stratification, rankings. No file, network or terminal I/O."""

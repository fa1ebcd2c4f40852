"""What a run costs and how to spend less: prices, per-member accounting, estimates, budgets, early exit."""

"""Image inputs: the image part an item carries to the judges, fetching it safely from Label Studio,
and the copy a blind review shows its experts (one module per concept)."""

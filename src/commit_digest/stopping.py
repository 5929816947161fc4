"""Stop signals (placeholder: the full module replaces this at merge)."""
def stop_requested() -> bool:
    return False

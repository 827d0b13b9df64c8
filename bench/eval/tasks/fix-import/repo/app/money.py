def format_price(amount):
    """A price in euros with two decimals."""
    return f"€{amount:.2f}"

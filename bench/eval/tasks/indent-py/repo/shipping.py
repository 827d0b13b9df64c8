RATES = {"domestic": 5, "international": 20}


def shipping_cost(order_total, destination):
    """What shipping costs for an order."""
    if destination not in RATES:
        raise ValueError(f"unknown destination {destination!r}")
    rate = RATES[destination]
    if order_total > 500:
        if destination == "international":
            return rate // 2
    return rate

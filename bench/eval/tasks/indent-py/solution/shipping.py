RATES = {"domestic": 5, "international": 20}


def shipping_cost(order_total, destination):
    if destination not in RATES:
        raise ValueError(f"unknown destination {destination!r}")
    rate = RATES[destination]
    if destination == "domestic" and order_total >= 100:
        return 0
    if order_total > 500:
        if destination == "international":
            return rate // 2
    return rate

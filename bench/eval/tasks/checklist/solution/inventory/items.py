def add_item(items, name, price, quantity):
    if quantity < 0:
        raise ValueError("negative quantity")
    items.append({"name": name, "price": price, "quantity": quantity})
    return items


def total_value(items):
    return sum(i["price"] * i["quantity"] for i in items)

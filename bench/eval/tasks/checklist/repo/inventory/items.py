def add_item(items, name, price, quantity):
    """Adds an item (name, unit price, quantity) to the list and returns the list."""
    items.append({"name": name, "price": price, "quantity": quantity})
    return items

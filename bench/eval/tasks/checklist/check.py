import re

from inventory.items import add_item, total_value

assert total_value([{"name": "a", "price": 2, "quantity": 3}, {"name": "b", "price": 5, "quantity": 1}]) == 11
assert total_value([]) == 0
try:
    add_item([], "x", 1, -1)
    raise SystemExit("add_item accepted a negative quantity")
except ValueError:
    pass
assert add_item([], "x", 1, 0) == [{"name": "x", "price": 1, "quantity": 0}]
tests = open("test_items.py").read()
assert "total_value" in tests, "no test of total_value"
assert "ValueError" in tests or "assertRaises" in tests, "no test of the negative quantity"
log = open("CHANGELOG.md").read()
unreleased = log.split("## Unreleased", 1)[1].split("## 1.0.0", 1)[0]
assert re.search(r"total_value", unreleased), "CHANGELOG has no total_value line under Unreleased"

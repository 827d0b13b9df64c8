import unittest

from inventory.items import add_item, total_value


class ItemsTest(unittest.TestCase):
    def test_total_value(self):
        self.assertEqual(total_value([{"name": "a", "price": 2, "quantity": 3}]), 6)

    def test_negative(self):
        with self.assertRaises(ValueError):
            add_item([], "x", 1, -1)
